import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreEvent } from '../../src/core/events.js';
import { reply, text, toolResults, toolUse } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const types = (events: CoreEvent[]) => events.map((e) => e.type);

describe('agent loop', () => {
  it('runs a text-only turn and emits the §6 events in order', async () => {
    h = await startHarness();
    h.server.enqueue(text('Hello there'));
    const session = h.engine.createSession();
    const outcome = await h.engine.prompt(session.id, 'hi');
    expect(outcome).toMatchObject({ status: 'completed', text: 'Hello there', steps: 1 });
    const seq = types(h.events).filter((t) => t !== 'text.delta');
    expect(seq).toEqual([
      'session.created',
      'session.status',
      'message.started',
      'message.completed',
      'session.status',
      'turn.completed',
    ]);
    const deltas = h.events.filter((e) => e.type === 'text.delta').map((e) => (e.type === 'text.delta' ? e.text : ''));
    expect(deltas.join('')).toBe('Hello there');
    for (const e of h.events) expect(e).toMatchObject({ session_id: session.id, agent: 'build', path: [session.id] });
    expect(h.store.getSession(session.id)).toMatchObject({ status: 'idle', title: 'hi' });
    expect(h.store.loadMessages(session.id).map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('runs a tool and sends its result back on the next request', async () => {
    h = await startHarness({ files: { 'notes.txt': 'alpha\nbeta\n' } });
    h.server.enqueue(toolUse('read', { file_path: 'notes.txt' }), text('The file has two lines.'));
    const session = h.engine.createSession();
    const outcome = await h.engine.prompt(session.id, 'read notes');
    expect(outcome.status).toBe('completed');
    expect(h.server.requests).toHaveLength(2);
    const [result] = toolResults(h.server.requests[1]!);
    expect(result).toMatchObject({ type: 'tool_result' });
    expect(JSON.stringify(result)).toContain('beta');
    expect(types(h.events)).toContain('tool.completed');
  });

  it('answers every tool_use of one message, in order, including bad ones', async () => {
    h = await startHarness({ files: { 'a.txt': 'A-content' } });
    h.server.enqueue(
      reply(
        { type: 'tool_use', name: 'read', input: { file_path: 'a.txt' }, id: 'toolu_1' },
        { type: 'tool_use', name: 'read', input: { path: 'wrong-key' }, id: 'toolu_2' },
        { type: 'tool_use', name: 'teleport', input: {}, id: 'toolu_3' },
      ),
      text('done'),
    );
    const session = h.engine.createSession();
    const outcome = await h.engine.prompt(session.id, 'go');
    expect(outcome.status).toBe('completed');
    const results = toolResults(h.server.requests[1]!);
    expect(results.map((r) => r.tool_use_id)).toEqual(['toolu_1', 'toolu_2', 'toolu_3']);
    expect(results[0]!.is_error ?? false).toBe(false);
    expect(String(results[1]!.content)).toMatch(/Invalid arguments for tool "read"[\s\S]*file_path/);
    expect(results[1]!.is_error).toBe(true);
    expect(String(results[2]!.content)).toMatch(/Unknown tool "teleport"/);
    expect(results[2]!.is_error).toBe(true);
  });

  it('runs changing calls one at a time in the order written, and neighbouring read-only calls together', async () => {
    h = await startHarness();
    const call = (id: string, name: string, input: unknown) => ({ type: 'tool_use' as const, id, name, input });
    h.server.enqueue(
      reply(
        call('w', 'write', { file_path: 'f.txt', content: 'first\n' }),
        call('b1', 'bash', { command: 'cat f.txt' }),
        call('r', 'read', { file_path: 'f.txt' }),
        call('g', 'glob', { pattern: '*.txt' }),
        call('e', 'edit', { file_path: 'f.txt', old_string: 'first', new_string: 'second' }),
        call('b2', 'bash', { command: 'cat f.txt' }),
      ),
      text('done'),
    );
    const engine = h.newEngine({ autoApprove: true });
    const session = engine.createSession();
    expect((await engine.prompt(session.id, 'go')).status).toBe('completed');

    // Each call saw the effect of the changing calls written before it.
    const results = new Map(toolResults(h.server.requests[1]!).map((r) => [r.tool_use_id, JSON.stringify(r.content)]));
    expect([...results.keys()]).toEqual(['w', 'b1', 'r', 'g', 'e', 'b2']);
    expect(results.get('b1')).toContain('first');
    expect(results.get('r')).toContain('first');
    expect(results.get('g')).toContain('f.txt');
    expect(results.get('b2')).toContain('second');

    const steps = h.events.flatMap((e) =>
      e.type === 'tool.started' ? [`start ${e.call_id}`] : e.type === 'tool.completed' ? [`end ${e.call_id}`] : [],
    );
    // Changing calls never overlap anything; read and glob both start before either ends.
    expect(steps.slice(0, 4)).toEqual(['start w', 'end w', 'start b1', 'end b1']);
    expect(steps.slice(4, 6)).toEqual(['start r', 'start g']);
    expect([...steps.slice(6, 8)].sort()).toEqual(['end g', 'end r']);
    expect(steps.slice(8)).toEqual(['start e', 'end e', 'start b2', 'end b2']);
  });

  it('never runs a tool call cut off by max_tokens', async () => {
    h = await startHarness();
    h.server.enqueue(
      {
        type: 'message',
        content: [{ type: 'tool_use', name: 'write', input: {}, partialJson: '{"file_path": "out.txt", "cont' }],
        stop_reason: 'max_tokens',
      },
      text('ok, smaller steps'),
    );
    const engine = h.newEngine({ autoApprove: true });
    const session = engine.createSession();
    await engine.prompt(session.id, 'write a big file');
    expect(existsSync(join(h.projectDir, 'out.txt'))).toBe(false);
    const [result] = toolResults(h.server.requests[1]!);
    expect(result!.is_error).toBe(true);
    expect(JSON.stringify(result)).toMatch(/max_tokens/);
  });

  it('denies an asking permission in a non-interactive run and runs it with autoApprove', async () => {
    h = await startHarness();
    h.server.enqueue(toolUse('write', { file_path: 'x.txt', content: 'one' }), text('could not'));
    const session = h.engine.createSession();
    await h.engine.prompt(session.id, 'write x');
    expect(existsSync(join(h.projectDir, 'x.txt'))).toBe(false);
    expect(JSON.stringify(toolResults(h.server.requests[1]!))).toMatch(/--yes/);
    expect(types(h.events)).toEqual(expect.arrayContaining(['permission.asked', 'permission.replied']));

    h.server.enqueue(toolUse('write', { file_path: 'x.txt', content: 'two' }), text('written'));
    const yes = h.newEngine({ autoApprove: true });
    const s2 = yes.createSession();
    await yes.prompt(s2.id, 'write x');
    expect(readFileSync(join(h.projectDir, 'x.txt'), 'utf8')).toBe('two');
  });

  it('a deny rule wins over autoApprove', async () => {
    h = await startHarness({ config: { permission: { bash: { '*': 'allow', 'rm *': 'deny' } } } });
    h.server.enqueue(toolUse('bash', { command: 'rm -rf important' }), text('ok'));
    const engine = h.newEngine({ autoApprove: true });
    const session = engine.createSession();
    await engine.prompt(session.id, 'clean up');
    expect(JSON.stringify(toolResults(h.server.requests[1]!))).toMatch(/denied by the configured rules/);
  });

  it('cancels mid-stream and keeps a history the next turn can use', async () => {
    h = await startHarness();
    h.server.enqueue({ type: 'message', content: [{ type: 'text', text: 'a long story '.repeat(40) }], chunkDelayMs: 20 });
    const session = h.engine.createSession();
    const running = h.engine.prompt(session.id, 'tell me a story');
    await waitForEvent(h.engine, (e) => e.type === 'text.delta');
    expect(h.engine.cancel(session.id)).toBe(true);
    const outcome = await running;
    expect(outcome.status).toBe('cancelled');
    expect(h.store.getSession(session.id)!.status).toBe('cancelled');

    h.server.enqueue(text('fine'));
    const next = await h.engine.prompt(session.id, 'shorter please');
    expect(next.status).toBe('completed');
    const roles = h.server.requests[1]!.body.messages.map((m) => m.role);
    expect(roles[0]).toBe('user');
    for (let i = 1; i < roles.length; i++) expect(roles[i]).not.toBe(roles[i - 1]);
  });

  it('cancels a running bash tool and records a result for it', async () => {
    h = await startHarness({ config: { permission: { bash: 'allow' } } });
    h.server.enqueue(toolUse('bash', { command: 'sleep 30' }));
    const session = h.engine.createSession();
    const running = h.engine.prompt(session.id, 'wait');
    await waitForEvent(h.engine, (e) => e.type === 'tool.started');
    h.engine.cancel(session.id);
    const outcome = await running;
    expect(outcome.status).toBe('cancelled');
    const history = h.store.loadMessages(session.id);
    const last = history[history.length - 1]!;
    expect(last.role).toBe('user');
    expect(last.content[0]).toMatchObject({ type: 'tool_result', is_error: true });
  });

  it('resumes a session from the store in a new engine with its full history', async () => {
    h = await startHarness();
    h.server.enqueue(text('first answer'));
    const session = h.engine.createSession();
    await h.engine.prompt(session.id, 'first question');

    h.server.enqueue(text('second answer'));
    const restarted = h.newEngine();
    await restarted.prompt(session.id, 'second question');
    const sent = h.server.requests[1]!.body.messages;
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(sent)).toContain('first answer');
  });

  it('fails the turn with a clear error when the provider keeps failing, and the session stays usable', async () => {
    h = await startHarness();
    h.server.enqueue({ type: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'prompt is too long' });
    const session = h.engine.createSession();
    const outcome = await h.engine.prompt(session.id, 'x');
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/prompt is too long/);
    expect(h.events.some((e) => e.type === 'error')).toBe(true);
    h.server.enqueue(text('recovered'));
    expect((await h.engine.prompt(session.id, 'again')).text).toBe('recovered');
  });
});

describe('what tool events tell the UI', () => {
  it('ties a permission ask to its tool call and reports an edit\'s diff on completion', async () => {
    h = await startHarness({ files: { 'a.txt': 'one\ntwo\n' }, engine: { autoApprove: true } });
    h.server.enqueue(
      toolUse('read', { file_path: 'a.txt' }),
      toolUse('edit', { file_path: 'a.txt', old_string: 'two', new_string: 'three' }, 'toolu_edit'),
      text('edited'),
    );
    const session = h.engine.createSession();
    await h.engine.prompt(session.id, 'change two');
    const asked = h.events.find((e) => e.type === 'permission.asked');
    expect(asked).toMatchObject({ call_id: 'toolu_edit', tool: 'edit' });
    const done = h.events.find((e) => e.type === 'tool.completed' && e.tool === 'edit');
    expect(done).toMatchObject({ call_id: 'toolu_edit', is_error: false, metadata: { path: 'a.txt', diff: expect.stringMatching(/-two\n\+three/) } });
  });
});
