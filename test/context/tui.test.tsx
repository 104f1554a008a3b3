// Compaction in the TUI: `/compact [focus]` runs through the engine, the transcript says it
// happened, the status line shows the context fill, and a resumed transcript marks the spot.
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, type RenderedApp } from '../support/app.js';
import type { CoreEvent } from '../../src/core/events.js';
import { summaryMessage } from '../../src/core/context/index.js';
import { statusSegments } from '../../src/ui/components/status-line.js';
import { loadHistory } from '../../src/ui/state/history.js';
import { reduce } from '../../src/ui/state/reducer.js';
import { systemText, text } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../support/harness.js';
import { waitFor } from '../support/wait.js';
import { closeApp } from '../ui/app/teardown.js';
import { KEY, press, waitForFrame } from '../ui/keys/harness.js';
import { createUiState } from '../../src/ui/state/index.js';

let h: Harness | undefined;
let app: RenderedApp | undefined;
afterEach(async () => {
  await closeApp(app, h);
  app = undefined;
  h = undefined;
});

const base = { session_id: 's1', agent: 'build', path: ['s1'], ts: 1 };

/** A prompt is over once the files after it are recorded for undo; until then /compact asks to wait. */
async function promptsSettled(harness: Harness, sessionId: string): Promise<void> {
  await waitFor(() => harness.store.messageRows(sessionId).every((r) => !r.prompt || !r.snapshot_before || r.snapshot_after !== null), 'the prompts to settle', { timeoutMs: 15_000 });
}

describe('/compact in the TUI', () => {
  it('compacts by hand with a focus, says so in the transcript and shows the context fill', async () => {
    h = await startHarness({
      engine: { interactive: true },
      config: { provider: { anthropic: { models: { 'claude-sonnet-4-6': { limit: { context: 40_000 } } } } } },
    });
    const harness = h;
    // The first answer is long, so summarising it saves tokens and the fill visibly drops.
    let answers = 0;
    harness.server.setHandler((req) =>
      systemText(req).includes('You summarise a coding session')
        ? text('Summary: two questions asked.')
        : text(`answer ${'in detail '.repeat(answers++ === 0 ? 3_000 : 10)}`, { input_tokens: 24_000, output_tokens: 10 }),
    );
    app = await openApp(harness.engine);
    const rootId = app.rootId;
    for (const q of ['question one', 'question two', 'question three']) {
      await press(app.stdin, q, KEY.enter);
      await waitForEvent(harness.engine, (e) => e.type === 'turn.completed' && e.session_id === rootId, 10_000);
    }
    await promptsSettled(harness, rootId);
    // 24,010 of 40,000 tokens.
    await waitForFrame(app.lastFrame, (f) => f.includes('ctx 60%'));

    await press(app.stdin, '/compact the questions');
    await press(app.stdin, KEY.escape, KEY.enter);
    const screen = await waitForFrame(app.lastFrame, (f) => f.includes('Context compacted'));
    expect(screen).toMatch(/Context compacted: ~[\d.]+k? → ~[\d.]+k? tokens/);
    const summaryRequest = harness.server.requests.find((r) => systemText(r).includes('You summarise'))!;
    expect(JSON.stringify(summaryRequest.body.messages)).toContain('Focus especially on: the questions');
    const event = harness.events.find((e): e is Extract<CoreEvent, { type: 'session.compacted' }> => e.type === 'session.compacted')!;
    expect(event.reason).toBe('manual');
    // The fill now reflects the compacted request, not the last reply's.
    await waitForFrame(app.lastFrame, (f) => !f.includes('ctx 60%') && /ctx \d+%/.test(f));
  });

  it('says why nothing was compacted when the older turns are too short, and sends nothing', async () => {
    h = await startHarness({ engine: { interactive: true } });
    const harness = h;
    harness.server.setHandler(() => text('short answer'));
    app = await openApp(harness.engine);
    const rootId = app.rootId;
    for (const q of ['question one', 'question two', 'question three']) {
      await press(app.stdin, q, KEY.enter);
      await waitForEvent(harness.engine, (e) => e.type === 'turn.completed' && e.session_id === rootId, 10_000);
    }
    await promptsSettled(harness, rootId);
    await press(app.stdin, '/compact');
    await press(app.stdin, KEY.escape, KEY.enter);
    const screen = await waitForFrame(app.lastFrame, (f) => f.includes('Nothing compacted'));
    expect(screen.replace(/\s+/g, ' ')).toMatch(/Nothing compacted: the turns before the most recent ones come to only ~\d+ tokens, about what a summary of them would take\./);
    expect(harness.server.requests.filter((r) => systemText(r).includes('You summarise'))).toHaveLength(0);
  });
});

describe('compaction in the UI state', () => {
  it('a session.compacted event adds a notice and sets the context fill', () => {
    let state = reduce(createUiState(), { type: 'session.created', ...base, parent_id: null, title: 't', tool_call_id: null, task_description: null, depth: 0 });
    state = reduce(state, { type: 'message.completed', ...base, message_id: 'm1', usage: { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 30, cache_read_input_tokens: 50 }, stop_reason: 'end_turn' });
    expect(state.sessions.s1!.contextTokens).toBe(200);
    state = reduce(state, { type: 'session.compacted', ...base, summary_message_id: 'msg1', reason: 'auto', tokens_before: 152_300, tokens_after: 31_000, pruned: 4, context_window: 200_000 });
    expect(state.sessions.s1!.contextTokens).toBe(31_000);
    const notice = state.items.s1!.at(-1)!;
    expect(notice).toMatchObject({ kind: 'notice' });
    expect(notice.kind === 'notice' && notice.text).toBe(
      'Context compacted (near the context window): ~152.3k → ~31k tokens, 4 old tool outputs left out. Older turns are summarised; the full history stays stored.',
    );
  });

  it('a stored summary shows as a notice, not as a user message, when a session is loaded', () => {
    const messages = [
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'old question' }] },
      summaryMessage('secret summary text', { kept: 0, tokens_before: 10 }),
    ];
    const state = loadHistory(createUiState(), 's1', messages, { agent: 'build', title: 't', status: 'idle', parent_id: null, created_at: 1 });
    const items = state.items.s1!;
    expect(items.map((i) => i.kind)).toEqual(['user', 'notice']);
    expect(JSON.stringify(items)).not.toContain('secret summary text');
  });

  it('the status line shows the fill', () => {
    const props = { agent: 'build', model: 'anthropic/claude-sonnet-4-6', tokens: 1200, cost: 0.01, running: 0, queued: 0, title: '' };
    expect(statusSegments({ ...props, contextFill: 0.423 }, 80)).toContain('ctx 42%');
    expect(statusSegments(props, 80).join(' ')).not.toContain('ctx');
  });
});
