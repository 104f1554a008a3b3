// Sub-agent edge cases: asks bubbling from depth 2, approvals "deny", provider failures,
// totals across generations, resumes under a changed parent, duplicate resumes, cancelling
// a queued child, and background results reaching a parent that already returned.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { reply, text, toolNames, toolResults, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../support/harness.js';
import { waitFor } from '../ui/keys/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  h?.engine.cancelAll();
  await h?.close();
  h = undefined;
});

let seq = 0;
const spawn = (description: string, prompt: string, subagent_type = 'general', extra: Record<string, unknown> = {}) => ({
  type: 'tool_use' as const,
  name: 'task',
  input: { description, prompt, subagent_type, ...extra },
  id: `toolu_edge_${++seq}`,
});
const bash = (command: string) => ({ type: 'tool_use' as const, name: 'bash', input: { command }, id: `toolu_edge_${++seq}` });
const slow = (s: string, delayMs: number) => ({ ...text(s), delayMs });
const results = (req: RecordedRequest) => toolResults(req).map((r) => (typeof r.content === 'string' ? r.content : JSON.stringify(r.content)));

describe('permission asks from nested children', () => {
  it('brings a grandchild ask to the user labelled with its path, and runs the command once allowed', async () => {
    h = await startHarness({ config: { subagents: { max_depth: 2 } }, engine: { interactive: true } });
    scriptConversations(h.server, {
      'root asks': [reply(spawn('middle', 'mid asks')), text('root ok')],
      'mid asks': [reply(spawn('leaf', 'leaf asks')), text('mid ok')],
      'leaf asks': [reply(bash('echo hello-from-leaf')), text('leaf ok')],
    });
    const root = h.engine.createSession();
    const running = h.engine.prompt(root.id, 'root asks');
    const asked = await waitForEvent(h.engine, (e) => e.type === 'permission.asked');
    if (asked.type !== 'permission.asked') throw new Error('unreachable');
    expect(asked.path).toHaveLength(3);
    expect(asked.path[0]).toBe(root.id);
    expect(asked).toMatchObject({ tool: 'bash', agent: 'general', subject: expect.stringContaining('echo hello-from-leaf') });
    expect(h.engine.pendingPermissions()).toHaveLength(1);
    h.engine.replyPermission(asked.request_id, 'once');
    expect((await running).status).toBe('completed');
    expect(results(requestsOf(h.server, 'leaf asks')[1]!)[0]).toContain('hello-from-leaf');
  });

  it('turns a child ask into a denial, without asking, when approvals is "deny"', async () => {
    h = await startHarness({ config: { subagents: { max_depth: 2, approvals: 'deny' } }, engine: { interactive: true } });
    scriptConversations(h.server, {
      'root deny': [reply(spawn('middle', 'mid deny')), text('root ok')],
      'mid deny': [reply(spawn('leaf', 'leaf deny')), text('mid ok')],
      'leaf deny': [reply(bash('echo should-not-run')), text('leaf ok')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'root deny')).status).toBe('completed');
    expect(h.events.some((e) => e.type === 'permission.asked')).toBe(false);
    const [leafResult] = toolResults(requestsOf(h.server, 'leaf deny')[1]!);
    expect(leafResult!.is_error).toBe(true);
    expect(String(leafResult!.content)).not.toContain('should-not-run\n');
    expect(String(leafResult!.content)).toMatch(/denied|approvals/i);
  });
});

describe('failures and totals', () => {
  it('returns state="failed" with the provider error, and the parent goes on', async () => {
    h = await startHarness();
    scriptConversations(h.server, {
      'fail root': [reply(spawn('breaks', 'fail child')), text('parent survived')],
      'fail child': [{ type: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'boom-400' }],
    });
    const root = h.engine.createSession();
    const outcome = await h.engine.prompt(root.id, 'fail root');
    expect(outcome).toMatchObject({ status: 'completed', text: 'parent survived' });
    const [result] = toolResults(requestsOf(h.server, 'fail root')[1]!);
    expect(result!.is_error).toBe(true);
    expect(String(result!.content)).toMatch(/^<task id="ses_\w+" state="failed"><task_result>[\s\S]*boom-400[\s\S]*<\/task_result><tool_log>\n\(no tool calls\)\n<\/tool_log><\/task>$/);
    expect(h.store.children(root.id)[0]!.status).toBe('failed');
  });

  it('counts grandchildren in the root totals while each session keeps its own usage', async () => {
    h = await startHarness({ config: { subagents: { max_depth: 2 } } });
    scriptConversations(h.server, {
      'cost root': [reply(spawn('m', 'cost mid')), text('r', { input_tokens: 10, output_tokens: 1 })],
      'cost mid': [reply(spawn('l', 'cost leaf')), text('m', { input_tokens: 100, output_tokens: 1 })],
      'cost leaf': [text('l', { input_tokens: 100_000, output_tokens: 1 })],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'cost root');
    const mid = h.store.children(root.id)[0]!;
    const leaf = h.store.children(mid.id)[0]!;
    expect(h.store.getSession(leaf.id)!.input_tokens).toBe(100_000);
    expect(h.store.getSession(root.id)!.input_tokens).toBeLessThan(1_000);
    const totals = h.store.totals(root.id);
    expect(totals.total_tokens).toBe(
      [root.id, mid.id, leaf.id].reduce((sum, id) => sum + h!.store.getSession(id)!.input_tokens + h!.store.getSession(id)!.output_tokens, 0),
    );
    expect(totals.total_cost).toBeGreaterThan(h.store.getSession(leaf.id)!.cost);
  });
});

describe('resuming', () => {
  it('gives a resumed child the gates of the parent that resumes it', async () => {
    h = await startHarness({ config: { permission: { edit: 'allow' } } });
    let childId = '';
    scriptConversations(h.server, {
      'switch root': [
        reply(spawn('first', 'switch child')),
        text('first turn done'),
        () => reply(spawn('again', 'write now', 'general', { session_id: childId })),
        text('plan done'),
      ],
      'switch child': [text('ready'), reply({ type: 'tool_use', name: 'write', input: { file_path: 'leak.txt', content: 'x' }, id: 'toolu_w' }), text('gave up')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'switch root');
    childId = h.store.children(root.id)[0]!.id;
    expect(toolNames(requestsOf(h.server, 'switch child')[0]!)).toContain('write');
    // The read-only plan agent now calls the same child again: it must not write through it.
    h.engine.setAgent(root.id, 'plan');
    await h.engine.prompt(root.id, 'second turn');
    const resumed = requestsOf(h.server, 'switch child')[1]!;
    expect(toolNames(resumed)).not.toContain('write');
    expect(toolNames(resumed)).not.toContain('edit');
    expect(existsSync(join(h.projectDir, 'leak.txt'))).toBe(false);
    // Its history was kept across the resume.
    expect(resumed.body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('refuses a second resume of the same child in one message', async () => {
    h = await startHarness();
    const idFrom = (req: RecordedRequest) => /<task id="([^"]+)"/.exec(results(req)[0] ?? '')?.[1] ?? 'missing';
    scriptConversations(h.server, {
      'dup root': [
        reply(spawn('first', 'dup child')),
        (req) => reply(spawn('again a', 'follow a', 'general', { session_id: idFrom(req) }), spawn('again b', 'follow b', 'general', { session_id: idFrom(req) })),
        text('root done'),
      ],
      'dup child': [text('first'), slow('second', 100)],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'dup root');
    const [a, b] = toolResults(requestsOf(h.server, 'dup root')[2]!);
    expect(String(a!.content)).toContain('state="completed"><task_result>second');
    expect(b!.is_error).toBe(true);
    expect(String(b!.content)).toMatch(/still running/);
    const child = h.store.children(root.id)[0]!;
    expect(h.store.loadMessages(child.id).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('stores the model a resume switches the child to', async () => {
    h = await startHarness();
    const idFrom = (req: RecordedRequest) => /<task id="([^"]+)"/.exec(results(req)[0] ?? '')?.[1] ?? 'missing';
    scriptConversations(h.server, {
      'model root': [reply(spawn('first', 'model child')), (req) => reply(spawn('again', 'more', 'general', { session_id: idFrom(req), model: 'haiku' })), text('done')],
      'model child': [text('one'), text('two')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'model root');
    const child = h.store.children(root.id)[0]!;
    expect(requestsOf(h.server, 'model child')[1]!.body.model).toBe('claude-haiku-4-5');
    expect(h.store.getSession(child.id)!.model).toBe('anthropic/claude-haiku-4-5');
  });
});

describe('queued and background children', () => {
  it('cancels a queued child alone: it never starts and its parent gets state="cancelled"', async () => {
    h = await startHarness({ config: { subagents: { max_concurrency: 1 } } });
    scriptConversations(h.server, {
      'q root': [reply(spawn('first', 'q first'), spawn('second', 'q second')), text('q done')],
      'q first': [slow('first ok', 300)],
      'q second': [text('second ok')],
    });
    const root = h.engine.createSession();
    const running = h.engine.prompt(root.id, 'q root');
    await waitFor(() => h!.store.children(root.id).length === 2 && h!.server.requests.length >= 2, undefined, 5000);
    const second = h.store.children(root.id).find((c) => c.task_description === 'second')!;
    expect(h.store.getSession(second.id)!.status).toBe('queued');
    expect(h.engine.cancel(second.id)).toBe(true);
    expect((await running).status).toBe('completed');
    expect(requestsOf(h.server, 'q second')).toHaveLength(0);
    const [first, cancelled] = results(requestsOf(h.server, 'q root')[1]!);
    expect(first).toContain('state="completed"');
    expect(cancelled).toContain(`<task id="${second.id}" state="cancelled">`);
    expect(h.store.getSession(second.id)!.status).toBe('cancelled');
  });

  it('passes a background result up when the child that started it has already returned', async () => {
    h = await startHarness({ config: { subagents: { max_depth: 2 } } });
    scriptConversations(h.server, {
      'bg root': [reply(spawn('mid', 'bg mid')), text('root done'), text('root read the late findings')],
      'bg mid': [reply(spawn('bg', 'bg leaf', 'general', { run_in_background: true })), text('mid done'), text('mid relays: leaf findings')],
      'bg leaf': [slow('leaf findings', 300)],
    });
    const root = h.engine.createSession();
    const first = await h.engine.prompt(root.id, 'bg root');
    expect(first.text).toBe('root done');
    await h.engine.settled(root.id);
    // The middle child got a turn with the leaf's result, and the root one with the middle's.
    const midRequests = requestsOf(h.server, 'bg mid');
    expect(midRequests).toHaveLength(3);
    expect(JSON.stringify(midRequests[2]!.body.messages.at(-1))).toContain('leaf findings');
    const rootRequests = requestsOf(h.server, 'bg root');
    expect(rootRequests).toHaveLength(3);
    expect(JSON.stringify(rootRequests[2]!.body.messages.at(-1))).toContain('mid relays: leaf findings');
    expect(h.engine.lastOutcome(root.id)?.text).toBe('root read the late findings');
    // Each hand-over is announced on the session that receives it, naming the sender.
    const arrivals = h.events.filter((e) => e.type === 'result.arrived');
    const mid = h.store.children(root.id)[0]!;
    const leaf = h.store.children(mid.id)[0]!;
    expect(arrivals.map((e) => [e.session_id, e.child_id, e.description, e.state, e.follow_up])).toEqual([
      [mid.id, leaf.id, 'bg', 'completed', false],
      [root.id, mid.id, 'mid', 'completed', true],
    ]);
  });
});

describe('interrupting the parent turn', () => {
  it('cancels the foreground children but lets background ones finish and report', async () => {
    h = await startHarness();
    scriptConversations(h.server, {
      'esc root': [reply(spawn('bg', 'esc background', 'general', { run_in_background: true }), spawn('fg', 'esc foreground')), text('after the background result')],
      'esc background': [slow('background finished', 400)],
      'esc foreground': [slow('never seen', 5_000)],
    });
    const root = h.engine.createSession();
    const running = h.engine.prompt(root.id, 'esc root');
    await h.server.waitForRequests(3, 5000);
    expect(h.engine.cancel(root.id)).toBe(true);
    expect((await running).status).toBe('cancelled');
    await h.engine.settled(root.id);
    const children = h.store.children(root.id);
    expect(children.find((c) => c.task_description === 'fg')!.status).toBe('cancelled');
    expect(children.find((c) => c.task_description === 'bg')!.status).toBe('completed');
    // The background result still reached the root, which took it up in a new turn.
    const last = requestsOf(h.server, 'esc root').at(-1)!;
    expect(JSON.stringify(last.body.messages.at(-1))).toContain('background finished');
    expect(h.engine.lastOutcome(root.id)?.text).toBe('after the background result');
  });
});
