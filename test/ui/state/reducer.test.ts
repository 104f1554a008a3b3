import { describe, expect, it } from 'vitest';
import {
  agentPath,
  childrenOf,
  createUiState,
  LIVE_TAIL_LINES,
  loadHistory,
  queuedCount,
  reduce,
  runningCount,
  startingCount,
  subtreeTotals,
  transcriptView,
  type AssistantItem,
  type ToolCallItem,
} from '../../../src/ui/state/index.js';
import { taskState } from '../../../src/ui/components/tree/status.js';
import { A, B, G, ROOT, ev, run, treeEvents, usage } from './fixtures.js';

const tool = (state: ReturnType<typeof run>, sid: string, callId: string) =>
  state.items[sid]?.find((i): i is ToolCallItem => i.kind === 'tool' && i.callId === callId);

describe('reduce: session tree', () => {
  it('builds parent, two children and a grandchild with links, depths and prompts', () => {
    const s = run(treeEvents());
    expect(s.roots).toEqual([ROOT]);
    expect(childrenOf(s, ROOT).map((c) => c.id)).toEqual([A, B]);
    expect(childrenOf(s, A).map((c) => c.id)).toEqual([G]);
    expect(s.sessions[G]).toMatchObject({ parentId: A, depth: 2, path: [ROOT, A, G], toolCallId: 'callG', description: 'Deep dive' });
    expect(tool(s, ROOT, 'callA')?.childSessionId).toBe(A);
    expect(tool(s, A, 'callG')?.childSessionId).toBe(G);
    // The child's transcript opens with the task prompt.
    expect(s.items[A]?.[0]).toMatchObject({ kind: 'user', text: 'Find the routes' });
    expect(s.items[ROOT]?.[0]).toMatchObject({ kind: 'user', text: 'Map the API' });
  });

  it('moves a child queued → running → completed with start and finish times', () => {
    let s = run(treeEvents());
    expect(s.sessions[B]?.status).toBe('queued');
    expect(s.sessions[B]?.startedAt).toBeUndefined();
    s = reduce(s, ev('session.status', B, [ROOT, B], 'general', { status: 'running' }, 20));
    expect(s.sessions[B]).toMatchObject({ status: 'running', startedAt: 20 });
    s = reduce(s, ev('session.status', B, [ROOT, B], 'general', { status: 'completed' }, 30));
    expect(s.sessions[B]).toMatchObject({ status: 'completed', startedAt: 20, finishedAt: 30 });
  });

  it('keeps the latest task progress and completes tool calls', () => {
    let s = run(treeEvents());
    s = reduce(s, ev('tool.progress', ROOT, [ROOT], 'build', { call_id: 'callA', tool: 'task', metadata: { session_id: A, agent: 'explore', status: 'running', tool_calls: 2, latest_tool: 'task', elapsed_ms: 20 } }, 20));
    expect(tool(s, ROOT, 'callA')).toMatchObject({ childSessionId: A, task: { session_id: A, status: 'running', tool_calls: 2, latest_tool: 'task' } });
    expect(tool(s, A, 'a1')).toMatchObject({ done: true, output: '1\tx', isError: false, startedAt: 11, endedAt: 12 });
    s = reduce(s, ev('tool.completed', ROOT, [ROOT], 'build', { call_id: 'callA', tool: 'task', output: 'boom', is_error: true }, 21));
    expect(tool(s, ROOT, 'callA')).toMatchObject({ done: true, isError: true, endedAt: 21 });
  });

  it('keeps unrelated parts identical when one session changes', () => {
    const before = run(treeEvents());
    const after = reduce(before, ev('text.delta', G, [ROOT, A, G], 'explore', { text: 'hi' }, 30));
    expect(after.items[B]).toBe(before.items[B]);
    expect(after.sessions[B]).toBe(before.sessions[B]);
    // Ancestors change version: their subtree changed.
    expect(after.sessions[A]?.version).toBeGreaterThan(before.sessions[A]?.version ?? 0);
    expect(after.sessions[ROOT]?.version).toBeGreaterThan(before.sessions[ROOT]?.version ?? 0);
  });
});

describe('reduce: text, thinking and retries', () => {
  const p = [ROOT];
  const base = () =>
    run([
      ev('session.created', ROOT, p, 'build', { parent_id: null, title: 't', tool_call_id: null, task_description: null, depth: 0 }),
      ev('message.started', ROOT, p, 'build', { message_id: 'm' }),
    ]);

  it('accumulates deltas into one assistant item and flags thinking without keeping it', () => {
    let s = base();
    s = reduce(s, ev('thinking.delta', ROOT, p, 'build', { text: 'secret plan' }));
    expect(s.sessions[ROOT]?.thinking).toBe(true);
    s = reduce(s, ev('text.delta', ROOT, p, 'build', { text: 'Hel' }));
    s = reduce(s, ev('text.delta', ROOT, p, 'build', { text: 'lo' }));
    expect(s.sessions[ROOT]?.thinking).toBe(false);
    expect(s.items[ROOT]).toHaveLength(1);
    expect(s.items[ROOT]?.[0]).toMatchObject({ kind: 'assistant', text: 'Hello', done: false, messageId: 'm' });
    expect(JSON.stringify(s)).not.toContain('secret plan');
  });

  it('resets streamed text on message.retrying', () => {
    let s = base();
    s = reduce(s, ev('text.delta', ROOT, p, 'build', { text: 'half an answ' }));
    s = reduce(s, ev('message.retrying', ROOT, p, 'build', { attempt: 1, delay_ms: 10, reason: 'overloaded' }));
    expect((s.items[ROOT]?.[0] as AssistantItem).text).toBe('');
    s = reduce(s, ev('text.delta', ROOT, p, 'build', { text: 'Full answer' }));
    expect(s.items[ROOT]).toHaveLength(1);
    expect((s.items[ROOT]?.[0] as AssistantItem).text).toBe('Full answer');
  });

  it('closes an already-printed text on retry and starts a fresh one', () => {
    let s = base();
    const long = Array.from({ length: LIVE_TAIL_LINES + 5 }, (_, i) => `Paragraph ${i}.\n`).join('\n');
    s = reduce(s, ev('text.delta', ROOT, p, 'build', { text: long }));
    const first = s.items[ROOT]?.[0] as AssistantItem;
    expect(first.cuts.length).toBeGreaterThan(0);
    s = reduce(s, ev('message.retrying', ROOT, p, 'build', { attempt: 1, delay_ms: 10, reason: 'overloaded' }));
    s = reduce(s, ev('text.delta', ROOT, p, 'build', { text: 'Again' }));
    expect(s.items[ROOT]).toHaveLength(2);
    expect(s.items[ROOT]?.[0]).toMatchObject({ done: true, abandoned: 'overloaded', text: long });
    expect(s.items[ROOT]?.[1]).toMatchObject({ text: 'Again', done: false });
  });

  it('splits a long streaming text so the finished prefix leaves the live area', () => {
    let s = base();
    const para = (i: number) => `Paragraph ${i} line one.\nline two.\n\n`;
    for (let i = 0; i < 12; i++) s = reduce(s, ev('text.delta', ROOT, p, 'build', { text: para(i) }));
    s = reduce(s, ev('text.delta', ROOT, p, 'build', { text: 'Tail still strea' }));
    const view = transcriptView(s, ROOT);
    expect(view.finished.length).toBeGreaterThan(0);
    expect(view.live).toHaveLength(1);
    const finishedText = view.finished.map((e) => ('text' in e ? e.text : '')).join('');
    const liveText = 'text' in view.live[0]! ? view.live[0].text : '';
    expect(finishedText + liveText).toBe((s.items[ROOT]?.[0] as AssistantItem).text);
    expect(liveText.endsWith('Tail still strea')).toBe(true);
    expect(finishedText.startsWith('Paragraph 0')).toBe(true);
    // Finishing the message moves the tail too, and earlier pieces keep their keys.
    const keys = view.finished.map((e) => e.key);
    s = reduce(s, ev('message.completed', ROOT, p, 'build', { message_id: 'm', usage: usage(1, 1), stop_reason: 'end_turn' }));
    const done = transcriptView(s, ROOT);
    expect(done.live).toEqual([]);
    expect(done.finished.map((e) => e.key).slice(0, keys.length)).toEqual(keys);
  });

  it('keeps a running tool call and everything after it live', () => {
    let s = base();
    s = reduce(s, ev('text.delta', ROOT, p, 'build', { text: 'Reading.' }));
    s = reduce(s, ev('tool.started', ROOT, p, 'build', { call_id: 'c1', tool: 'read', input: { file_path: 'a' } }));
    let view = transcriptView(s, ROOT);
    expect(view.finished.map((e) => e.item.kind)).toEqual(['assistant']);
    expect(view.live.map((e) => e.item.kind)).toEqual(['tool']);
    s = reduce(s, ev('tool.completed', ROOT, p, 'build', { call_id: 'c1', tool: 'read', output: 'ok', is_error: false }));
    view = transcriptView(s, ROOT);
    expect(view.finished.map((e) => e.item.kind)).toEqual(['assistant', 'tool']);
    expect(view.live).toEqual([]);
  });
});

describe('reduce: questions and permissions', () => {
  it('queues questions in asked order with the asker path, removing answered ones', () => {
    let s = run(treeEvents());
    s = reduce(s, ev('question.asked', G, [ROOT, A, G], 'explore', { question_id: 'q1', question: 'Which?', options: ['a', 'b'] }));
    s = reduce(s, ev('question.asked', B, [ROOT, B], 'general', { question_id: 'q2', question: 'Sure?', options: [] }));
    s = reduce(s, ev('question.asked', ROOT, [ROOT], 'build', { question_id: 'q3', question: 'Go?', options: [] }));
    expect(s.questions.map((q) => q.questionId)).toEqual(['q1', 'q2', 'q3']);
    expect(s.questions[0]).toMatchObject({ path: [ROOT, A, G], agent: 'explore', options: ['a', 'b'] });
    expect(agentPath(s, s.questions[0]!.sessionId)).toBe('build › explore (Find API routes) › explore (Deep dive)');
    s = reduce(s, ev('question.answered', B, [ROOT, B], 'general', { question_id: 'q2', answer: 'yes' }));
    expect(s.questions.map((q) => q.questionId)).toEqual(['q1', 'q3']);
  });

  it('queues permission requests and drops replied ones', () => {
    let s = run(treeEvents());
    s = reduce(s, ev('permission.asked', A, [ROOT, A], 'explore', { request_id: 'r1', tool: 'bash', subject: 'rm -rf x', permission: 'bash', patterns: ['rm -rf x'] }));
    s = reduce(s, ev('permission.asked', ROOT, [ROOT], 'build', { request_id: 'r2', tool: 'edit', subject: 'diff', permission: 'edit', patterns: ['a'] }));
    expect(s.permissions.map((p) => [p.requestId, p.path.length])).toEqual([
      ['r1', 2],
      ['r2', 1],
    ]);
    s = reduce(s, ev('permission.replied', A, [ROOT, A], 'explore', { request_id: 'r1', reply: 'once' }));
    expect(s.permissions.map((p) => p.requestId)).toEqual(['r2']);
  });

  it('shows with the command that it would run outside the sandbox', () => {
    let s = run(treeEvents());
    const ask = { request_id: 'r3', tool: 'bash', subject: 'curl example.com', permission: 'bash', patterns: ['curl example.com'] };
    s = reduce(s, ev('permission.asked', ROOT, [ROOT], 'build', { ...ask, outside_sandbox: 'the model asked to run it outside the sandbox' }));
    s = reduce(s, ev('permission.asked', ROOT, [ROOT], 'build', { ...ask, request_id: 'r4' }));
    expect(s.permissions.map((p) => p.subject)).toEqual([
      'curl example.com\n⚠ runs outside the sandbox: the model asked to run it outside the sandbox',
      'curl example.com',
    ]);
  });
});

describe('selectors', () => {
  it('totals tokens and cost including descendants, without double counting a finished turn', () => {
    const s = run(treeEvents());
    // G: one finished turn (50/5, $0.5). A: one message in flight (20/2). ROOT: one message (100/10).
    expect(subtreeTotals(s, G)).toMatchObject({ tokens: 55, cost: 0.5 });
    expect(subtreeTotals(s, A)).toMatchObject({ tokens: 77, cost: 0.5 });
    expect(subtreeTotals(s, ROOT)).toMatchObject({ tokens: 187, cost: 0.5 });
    const after = reduce(s, ev('turn.completed', ROOT, [ROOT], 'build', { usage: usage(100, 10), cost: 1 }));
    expect(subtreeTotals(after, ROOT)).toMatchObject({ tokens: 187, cost: 1.5 });
    expect(subtreeTotals(after, ROOT).usage.input_tokens).toBe(170);
  });

  it('counts running and queued sub-agents under a root', () => {
    let s = run(treeEvents());
    expect(runningCount(s, ROOT)).toBe(2); // A and G
    expect(queuedCount(s, ROOT)).toBe(1); // B
    s = reduce(s, ev('session.status', G, [ROOT, A, G], 'explore', { status: 'completed' }));
    s = reduce(s, ev('session.status', B, [ROOT, B], 'general', { status: 'queued' }));
    // Out of the limit's hold, its first request not sent yet: starting (issue 40).
    expect(queuedCount(s, ROOT)).toBe(0);
    expect(startingCount(s, ROOT)).toBe(1);
    s = reduce(s, ev('session.status', B, [ROOT, B], 'general', { status: 'running' }));
    expect(startingCount(s, ROOT)).toBe(1);
    expect(runningCount(s, ROOT)).toBe(1);
    s = reduce(s, ev('message.started', B, [ROOT, B], 'general', { message_id: 'b1' }));
    expect(runningCount(s, ROOT)).toBe(2);
    expect(startingCount(s, ROOT)).toBe(0);
    expect(queuedCount(s, ROOT)).toBe(0);
    expect(runningCount(s, A)).toBe(0);
  });

  it('says starting, not queued, for children no limit holds', () => {
    const P = [ROOT];
    const kids = ['k1', 'k2', 'k3', 'k4', 'k5'];
    let s = run([
      ev('session.created', ROOT, P, 'build', { parent_id: null, title: 'Main', tool_call_id: null, task_description: null, depth: 0 }, 1),
      ...kids.flatMap((k, i) => [
        ev('session.created', k, [ROOT, k], 'general', { parent_id: ROOT, title: k, tool_call_id: `c${i}`, task_description: k, depth: 1 }, 2),
        ev('session.status', k, [ROOT, k], 'general', { status: 'queued' }, 2),
      ]),
      ev('session.status', 'k1', [ROOT, 'k1'], 'general', { status: 'running' }, 3),
      ev('message.started', 'k1', [ROOT, 'k1'], 'general', { message_id: 'm' }, 4),
    ]);
    expect([runningCount(s, ROOT), startingCount(s, ROOT), queuedCount(s, ROOT)]).toEqual([1, 4, 0]);
    s = reduce(s, ev('session.status', 'k5', [ROOT, 'k5'], 'general', { status: 'queued', reason: 'waiting for a free slot (subagents.max_concurrency is 4)' }));
    expect([runningCount(s, ROOT), startingCount(s, ROOT), queuedCount(s, ROOT)]).toEqual([1, 3, 1]);
  });

  it('labels agent paths with task descriptions', () => {
    const s = run(treeEvents());
    expect(agentPath(s, ROOT)).toBe('build');
    expect(agentPath(s, A)).toBe('build › explore (Find API routes)');
    expect(agentPath(s, B)).toBe('build › general (Review tests)');
  });
});

describe('loadHistory', () => {
  it('rebuilds a finished child transcript and links it to its parent call', () => {
    let s = createUiState();
    s = loadHistory(
      s,
      'p',
      [
        { role: 'user', content: [{ type: 'text', text: 'Go' }] },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hidden', signature: 'x' }, { type: 'text', text: 'On it' }, { type: 'tool_use', id: 't1', name: 'task', input: { description: 'Find', prompt: 'f', subagent_type: 'explore' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '<task id="c" state="completed"><task_result>done</task_result></task>' }] },
      ],
      { parent_id: null, agent: 'build', title: 'Main', status: 'idle', created_at: 1, input_tokens: 10, output_tokens: 2, cost: 0.1 },
    );
    s = loadHistory(s, 'c', [{ role: 'user', content: [{ type: 'text', text: 'f' }] }, { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'read', input: { file_path: 'a' } }] }], {
      parent_id: 'p',
      agent: 'explore',
      title: 'Find (@explore subagent)',
      task_description: 'Find',
      tool_call_id: 't1',
      status: 'completed',
      created_at: 2,
      updated_at: 9,
      input_tokens: 5,
      output_tokens: 1,
      cost: 0.05,
    });
    expect(s.items['p']?.map((i) => i.kind)).toEqual(['user', 'assistant', 'tool']);
    expect(s.items['p']?.[2]).toMatchObject({ done: true, childSessionId: 'c', output: expect.stringContaining('state="completed"') });
    expect(JSON.stringify(s.items['p'])).not.toContain('hidden');
    expect(s.sessions['c']).toMatchObject({ depth: 1, path: ['p', 'c'], status: 'completed', finishedAt: 9, description: 'Find' });
    // A call cut off without a result is closed, not left spinning.
    expect(s.items['c']?.[1]).toMatchObject({ kind: 'tool', done: true, isError: true });
    expect(agentPath(s, 'c')).toBe('build › explore (Find)');
    expect(subtreeTotals(s, 'p')).toMatchObject({ tokens: 18, cost: 0.15000000000000002 });
    // Loading again replaces rather than duplicates.
    const again = loadHistory(s, 'c', [], { parent_id: 'p', agent: 'explore', title: 'x', status: 'completed', created_at: 2 });
    expect(again.items['c']).toEqual([]);
    expect(childrenOf(again, 'p')).toHaveLength(1);
  });

  it("links a parent's task calls to its stored children by call id, not by reading the result text", () => {
    const messages = [
      { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 't1', name: 'task', input: { description: 'Find', prompt: 'f', subagent_type: 'explore' } }] },
      // A result text that names another id: only the stored link counts.
      { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 't1', content: '<task id="decoy" state="completed">…</task>' }] },
    ];
    const s = loadHistory(createUiState(), 'p', messages, {
      parent_id: null,
      agent: 'build',
      title: 'Main',
      status: 'idle',
      created_at: 1,
      children: [{ id: 'c', agent: 'explore', tool_call_id: 't1', status: 'interrupted' }],
    });
    const call = tool(s, 'p', 't1');
    expect(call).toMatchObject({ childSessionId: 'c', taskOutcome: { session_id: 'c', agent: 'explore', state: 'cancelled' } });
    expect(taskState(s, call!)).toBe('cancelled');
  });
});

describe('reduce: what a tool reports', () => {
  it('keeps the change an edit reports (its real diff) and the call an approval is for', () => {
    let s = run(treeEvents());
    s = reduce(s, ev('tool.started', ROOT, [ROOT], 'build', { call_id: 'e1', tool: 'edit', input: { file_path: 'a.ts', old_string: 'x', new_string: 'y' } }));
    s = reduce(s, ev('permission.asked', ROOT, [ROOT], 'build', { request_id: 'r9', tool: 'edit', subject: 'diff', permission: 'edit', patterns: ['a.ts'], call_id: 'e1' }));
    expect(s.permissions.at(-1)).toMatchObject({ requestId: 'r9', callId: 'e1' });
    s = reduce(s, ev('tool.completed', ROOT, [ROOT], 'build', { call_id: 'e1', tool: 'edit', output: 'Edited a.ts', is_error: false, metadata: { path: 'a.ts', diff: '@@ -7 +7 @@\n-x\n+y\n' } }));
    const call = (s.items[ROOT] ?? []).find((i) => i.kind === 'tool' && i.callId === 'e1');
    expect(call).toMatchObject({ done: true, fileChange: { path: 'a.ts', diff: '@@ -7 +7 @@\n-x\n+y\n' } });
  });
});

describe('reduce: /init keeping AGENTS.md', () => {
  it('shows what was done to keep the user\'s text as a notice in the root transcript', () => {
    const message = '/init dropped lines of your AGENTS.md, so your text was put back intact and its new lines follow under "## Added by /init".';
    const s = run([...treeEvents(), ev('file.kept', ROOT, [ROOT], 'build', { file: 'AGENTS.md', action: 'merged', message }, 50)]);
    expect(s.items[ROOT]?.at(-1)).toMatchObject({ kind: 'notice', text: message });
  });
});
