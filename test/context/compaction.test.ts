// Context management end to end (DESIGN §12): the real engine, store and Anthropic SDK against
// the fake server, which answers 400 `prompt is too long` past a small configured window.
import { afterEach, describe, expect, it } from 'vitest';
import { MIN_SUMMARISED_TOKENS, SUMMARY_PREFIX, compactionMark } from '../../src/core/context/index.js';
import type { CoreEvent } from '../../src/core/events.js';
import { readTool } from '../../src/core/tools/read.js';
import type { Tool } from '../../src/core/tools/types.js';
import { estimatedTokens, systemText, text, toolUse, type RecordedRequest } from '../support/fake-anthropic.js';
import { runCli } from '../support/cli.js';
import { startHarness, type Harness } from '../support/harness.js';

const WINDOW = 4000;
const SUMMARY_MARK = 'You summarise a coding session';

function config(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'anthropic/claude-test',
    default_agent: 'lean',
    provider: { anthropic: { models: { 'claude-test': { limit: { context: WINDOW, output: 500 } } } } },
    // Only `read`: the budgets below are measured against a request whose tools do not change
    // when the `task` tool's description does.
    agent: { lean: { mode: 'primary', description: 'Reads files.', prompt: 'You read files.', tools: { task: false, ask_user: false } } },
    ...extra,
  };
}

/** Twelve files of ~4,000 characters: their contents add up to three times the window. */
function bigFiles(n = 12, lines = 50): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) files[`f${i}.txt`] = Array.from({ length: lines }, (_, l) => `file ${i} line ${l} `.padEnd(79, 'x')).join('\n');
  return files;
}

const isSummaryRequest = (r: RecordedRequest) => systemText(r).includes(SUMMARY_MARK);
const compactedEvents = (events: CoreEvent[]) => events.filter((e): e is Extract<CoreEvent, { type: 'session.compacted' }> => e.type === 'session.compacted');

function firstText(r: RecordedRequest): string {
  const content = r.body.messages[0]?.content;
  return Array.isArray(content) ? (content as Array<{ type: string; text?: string }>).map((p) => p.text ?? '').join('') : String(content);
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(files: Record<string, string> = bigFiles(), extra: Record<string, unknown> = {}): Promise<Harness> {
  h = await startHarness({ config: config(extra), files, engine: { tools: [readTool as Tool] } });
  h.server.setContextWindow(WINDOW);
  return h;
}

/** The model reads f0…f{n-1} one per step, then answers; summaries get a fixed text. */
function readAll(harness: Harness, n: number, summary = 'Task: read every file. Files touched: f0.txt onwards.'): void {
  let step = 0;
  harness.server.setHandler((req) => {
    if (isSummaryRequest(req)) return text(summary);
    const i = step++;
    return i < n ? toolUse('read', { file_path: `f${i}.txt` }) : text('All files read.');
  });
}

describe('compaction', () => {
  it('finishes a session whose tool output is three times the window, every request under it, the full history stored', async () => {
    const harness = await start();
    readAll(harness, 12);
    const session = harness.engine.createSession();
    const outcome = await harness.engine.prompt(session.id, 'Read f0.txt to f11.txt.');
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe('completed');
    expect(outcome.text).toBe('All files read.');

    for (const r of harness.server.requests) expect(estimatedTokens(r)).toBeLessThanOrEqual(WINDOW);
    // Replies never ask for more than the model's configured output limit.
    for (const r of harness.server.requests) expect(r.body.max_tokens).toBe(500);
    expect(harness.server.requests.some(isSummaryRequest)).toBe(true);
    expect(compactedEvents(harness.events).length).toBeGreaterThan(0);

    // Every tool output is stored in full, and the summaries are stored beside them.
    const stored = harness.store.loadMessages(session.id);
    const results = stored.flatMap((m) => m.content).filter((p) => p.type === 'tool_result');
    expect(results).toHaveLength(12);
    for (let i = 0; i < 12; i++) expect(results[i]!.type === 'tool_result' && results[i]!.content).toContain(`file ${i} line 49`);
    expect(stored.filter((m) => compactionMark(m)).length).toBe(compactedEvents(harness.events).length);
    expect(stored[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Read f0.txt to f11.txt.' }] });
    // The tool outputs added up to more than three windows.
    const outputChars = results.reduce((n, p) => n + (p.type === 'tool_result' ? p.content.length : 0), 0);
    expect(outputChars / 4).toBeGreaterThan(3 * WINDOW);
  });

  it('prunes old tool outputs in the request only before it summarises', async () => {
    const harness = await start(bigFiles(4, 30));
    readAll(harness, 4);
    const session = harness.engine.createSession();
    await harness.engine.prompt(session.id, 'Read four files.');
    const pruned = harness.server.requests.filter((r) => JSON.stringify(r.body.messages).includes('[output pruned:'));
    expect(pruned.length).toBeGreaterThan(0);
    const stored = JSON.stringify(harness.store.loadMessages(session.id));
    expect(stored).not.toContain('[output pruned:');
    // Pruning alone was enough here: no summary was needed.
    expect(harness.server.requests.some(isSummaryRequest)).toBe(false);
    for (const r of harness.server.requests) expect(estimatedTokens(r)).toBeLessThanOrEqual(WINDOW * 0.8);
  });

  it('with compaction.auto off, sends the request as it is and reports the overflow clearly', async () => {
    const harness = await start(bigFiles(6), { compaction: { auto: false } });
    readAll(harness, 6);
    const session = harness.engine.createSession();
    const outcome = await harness.engine.prompt(session.id, 'Read six files.');
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/does not fit the model's context window.*prompt is too long.*\/compact/);
    expect(harness.server.requests.some(isSummaryRequest)).toBe(false);
  });

  it('compacts and retries once when the API says the prompt is too long', async () => {
    // Configured larger than the server turns out to be, so only the API's refusal compacts.
    const harness = await start(bigFiles(3, 40), { provider: { anthropic: { models: { 'claude-test': { limit: { context: 6000, output: 500 } } } } } });
    readAll(harness, 3);
    const session = harness.engine.createSession();
    await harness.engine.prompt(session.id, 'Read three files.');
    const before = harness.server.requests.length;
    const eventsBefore = harness.events.length;
    // The real window turns out smaller than configured.
    harness.server.setContextWindow(2200);
    harness.server.setHandler((req) => (isSummaryRequest(req) ? text('Summary: three files were read.') : text('Still here.')));
    const outcome = await harness.engine.prompt(session.id, 'And now?');
    expect(outcome.status).toBe('completed');
    const after = harness.server.requests.slice(before);
    expect(after.map((r) => (isSummaryRequest(r) ? 'summary' : estimatedTokens(r) > 2200 ? 'too long' : 'ok'))).toEqual(['too long', 'summary', 'ok']);
    expect(firstText(after[2]!)).toContain(SUMMARY_PREFIX.trim().slice(0, 40));
    expect(compactedEvents(harness.events.slice(eventsBefore)).map((e) => e.reason)).toEqual(['overflow']);
  });

  it('fails with a clear error, not a loop, when the prompt is still too long after compacting', async () => {
    // Small enough that the request is sent as it is, and the API's refusal is what compacts.
    const harness = await start(bigFiles(2, 35));
    readAll(harness, 2);
    const session = harness.engine.createSession();
    await harness.engine.prompt(session.id, 'Read two files.');
    const before = harness.server.requests.length;
    harness.server.setHandler((req) =>
      isSummaryRequest(req) ? text('Summary.') : { type: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'prompt is too long: 999999 tokens > 200000 maximum' },
    );
    const outcome = await harness.engine.prompt(session.id, 'Go on.');
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/even after compacting/);
    expect(harness.server.requests.length - before).toBe(3);
    expect(harness.events.some((e) => e.type === 'error' && e.session_id === session.id && /even after compacting/.test(e.message))).toBe(true);
  });
});

describe('compaction failures', () => {
  it('ends the turn with a clear error when the summary request fails, and stores nothing for it', async () => {
    const harness = await start(bigFiles(6));
    let step = 0;
    harness.server.setHandler((req) =>
      isSummaryRequest(req)
        ? { type: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'summaries are broken today' }
        : step < 6
          ? toolUse('read', { file_path: `f${step++}.txt` })
          : text('done'),
    );
    const session = harness.engine.createSession();
    const outcome = await harness.engine.prompt(session.id, 'Read six files.');
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toBe('Compacting the conversation failed: Anthropic API error 400 (invalid_request_error): summaries are broken today');
    expect(harness.store.loadMessages(session.id).some((m) => compactionMark(m))).toBe(false);
    for (const r of harness.server.requests) expect(estimatedTokens(r)).toBeLessThanOrEqual(WINDOW);
  });
});

describe('a first prompt larger than the window', () => {
  it('fails at once with a clear error: there is nothing older to summarise', async () => {
    const harness = await start({});
    harness.server.setHandler(() => text('never'));
    const session = harness.engine.createSession();
    const outcome = await harness.engine.prompt(session.id, 'x'.repeat(WINDOW * 5));
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/^The request does not fit the model's context window and there are no older turns to summarise \(.*prompt is too long/);
    expect(harness.server.requests).toHaveLength(1);
  });
});

describe('/compact by hand and resuming', () => {
  it('summarises with the focus, keeps recent turns verbatim and continues from the summary, in a new engine too', async () => {
    const harness = await start({ 'a.txt': 'alpha' }, { provider: { anthropic: { models: { 'claude-test': { limit: { context: 100_000 } } } } } });
    harness.server.setContextWindow(undefined);
    // Replies long enough that summarising the oldest turn saves something.
    harness.server.setHandler((req) => (isSummaryRequest(req) ? text('The user said hello three times.') : text(`reply ${harness.server.requests.length} ${'and more '.repeat(1_000)}`)));
    const session = harness.engine.createSession();
    for (const p of ['first question', 'second question', 'third question']) await harness.engine.prompt(session.id, p);

    const result = await harness.engine.compact(session.id, 'the greetings');
    if ('skipped' in result) throw new Error(`compaction skipped: ${result.skipped}`);
    const summaryReq = harness.server.requests.find(isSummaryRequest)!;
    const instruction = JSON.stringify(summaryReq.body.messages);
    expect(instruction).toContain('Focus especially on: the greetings');
    expect(instruction).toContain('first question');
    expect(summaryReq.body.tools ?? []).toEqual([]);
    const event = compactedEvents(harness.events)[0]!;
    expect(event).toMatchObject({ session_id: session.id, reason: 'manual', summary_message_id: result.summaryMessageId, context_window: 100_000 });

    // Stored: everything, plus the summary as its own message.
    const rows = harness.store.messageRows(session.id);
    expect(rows).toHaveLength(7);
    expect(rows[6]!.id).toBe(result.summaryMessageId);

    const check = (req: RecordedRequest) => {
      const sent = JSON.stringify(req.body.messages);
      expect(firstText(req)).toContain('The user said hello three times.');
      expect(sent).not.toContain('first question');
      expect(sent).toContain('second question');
      expect(sent).toContain('third question');
    };
    await harness.engine.prompt(session.id, 'fourth question');
    check(harness.server.requests.at(-1)!);

    // A new process resumes from the summary.
    const restarted = harness.newEngine();
    await restarted.prompt(session.id, 'fifth question');
    check(harness.server.requests.at(-1)!);
    expect(JSON.stringify(harness.server.requests.at(-1)!.body.messages)).toContain('fourth question');

    // `sessions show` still prints everything, the summary marked as such.
    const shown = await runCli(['sessions', 'show', session.id], { cwd: harness.projectDir, env: harness.env });
    expect(shown.code).toBe(0);
    for (const q of ['first', 'second', 'third', 'fourth', 'fifth']) expect(shown.stdout).toContain(`> ${q} question`);
    expect(shown.stdout).toMatch(/--- compacted: [^\n]*\nThis session continues[\s\S]*The user said hello three times\./);
  });

  it('has nothing to compact in an empty session and refuses a running one', async () => {
    const harness = await start({});
    const session = harness.engine.createSession();
    await expect(harness.engine.compact(session.id)).resolves.toEqual({ skipped: 'nothing-older', olderTokens: 0 });
    await expect(harness.engine.compact('nope')).rejects.toThrow(/No session with id "nope"/);
    expect(harness.server.requests).toHaveLength(0);
  });

  it('sends nothing when the older turns are too short for a summary to save anything', async () => {
    const harness = await start({});
    harness.server.setHandler(() => text('short reply'));
    const session = harness.engine.createSession();
    for (const p of ['first question', 'second question', 'third question']) await harness.engine.prompt(session.id, p);
    const result = await harness.engine.compact(session.id);
    expect(result).toMatchObject({ skipped: 'too-short' });
    expect('skipped' in result && result.olderTokens).toBeGreaterThan(0);
    expect('skipped' in result && result.olderTokens).toBeLessThan(MIN_SUMMARISED_TOKENS);
    expect(harness.server.requests.filter(isSummaryRequest)).toHaveLength(0);
    expect(harness.store.messageRows(session.id)).toHaveLength(6);
  });
});

describe('children', () => {
  it('a sub-agent compacts the same way', async () => {
    const harness = await start(bigFiles(12), {
      agent: {
        lean: { mode: 'primary', description: 'Delegates.', prompt: 'You delegate.' },
        reader: { mode: 'subagent', description: 'Reads files.', prompt: 'You read files.' },
      },
    });
    let step = 0;
    harness.server.setHandler((req) => {
      if (isSummaryRequest(req)) return text('Summary of the reading so far.');
      if (systemText(req).includes('You read files.')) {
        const i = step++;
        return i < 12 ? toolUse('read', { file_path: `f${i}.txt` }) : text('Child read all files.');
      }
      return req.body.messages.length === 1
        ? toolUse('task', { description: 'Read files', prompt: 'Read f0.txt to f11.txt.', subagent_type: 'reader' })
        : text('Parent done.');
    });
    const session = harness.engine.createSession();
    const outcome = await harness.engine.prompt(session.id, 'Delegate the reading.');
    expect(outcome.error).toBeUndefined();
    expect(outcome.text).toBe('Parent done.');
    const child = harness.store.children(session.id)[0]!;
    expect(compactedEvents(harness.events).some((e) => e.session_id === child.id && e.path.length === 2)).toBe(true);
    for (const r of harness.server.requests) expect(estimatedTokens(r)).toBeLessThanOrEqual(WINDOW);
    expect(harness.store.loadMessages(child.id).flatMap((m) => m.content).filter((p) => p.type === 'tool_result')).toHaveLength(12);
  });
});
