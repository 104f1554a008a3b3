import { describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import { TaskBlock } from '../../../src/ui/components/tree/TaskBlock.js';
import { TranscriptItem } from '../../../src/ui/components/transcript/TranscriptItem.js';
import { ToolCall } from '../../../src/ui/components/transcript/ToolCall.js';
import { reduce, type ToolCallItem, type UiState } from '../../../src/ui/state/index.js';
import { displayWidth } from '../../../src/ui/render/text.js';
import { A, B, G, ROOT, ev, run, treeEvents } from '../state/fixtures.js';

const call = (s: UiState, sid: string, id: string) => s.items[sid]?.find((i): i is ToolCallItem => i.kind === 'tool' && i.callId === id) as ToolCallItem;
const block = (s: UiState, sid: string, id: string, now = 10_000, extra: Partial<Parameters<typeof TaskBlock>[0]> = {}) =>
  render(<TaskBlock state={s} call={call(s, sid, id)} now={now} {...extra} />).lastFrame() ?? '';

describe('TaskBlock for a teammate (DESIGN §24)', () => {
  it("shows the teammate's name, its state as the team names it and the task it holds, across idle and wake", () => {
    const rp = [ROOT];
    const tp = [ROOT, B];
    const task = (status: 'pending' | 'in_progress' | 'completed', owner: string | null) => ({
      id: '2',
      title: 'Build the API',
      description: null,
      status,
      owner: owner ? 'backend' : null,
      owner_session_id: owner,
      blocked_by: [],
      result: null,
    });
    let s = run([
      ev('session.created', ROOT, rp, 'build', { parent_id: null, title: 'Main', tool_call_id: null, task_description: null, depth: 0 }, 1),
      ev('tool.started', ROOT, rp, 'build', { call_id: 'callT', tool: 'task', input: { description: 'Backend work', prompt: 'You own the API', subagent_type: 'general', name: 'backend' } }, 2),
      ev('session.created', B, tp, 'general', { parent_id: ROOT, title: 'Backend work (@general teammate backend)', tool_call_id: 'callT', task_description: 'Backend work', depth: 1 }, 3),
      ev('tool.completed', ROOT, rp, 'build', { call_id: 'callT', tool: 'task', output: `<task id="${B}" state="running"><task_result>Teammate "backend" started.</task_result></task>`, is_error: false, metadata: { session_id: B, agent: 'general', state: 'running' } }, 4),
      ev('session.status', B, tp, 'general', { status: 'running' }, 5),
      ev('team.task', B, tp, 'general', { action: 'claimed', task: task('in_progress', B) }, 6),
    ]);
    expect(block(s, ROOT, 'callT').split('\n')[0]).toMatch(/^\S general @backend Backend work · working on #2 Build the API · /);
    // Its call returned long ago; going idle is not ending.
    s = reduce(s, ev('session.status', B, tp, 'general', { status: 'idle' }, 7));
    expect(block(s, ROOT, 'callT').split('\n')[0]).toMatch(/^◌ general @backend Backend work · idle · holds #2 Build the API/);
    s = reduce(s, ev('team.task', B, tp, 'general', { action: 'updated', task: task('pending', null) }, 8));
    expect(block(s, ROOT, 'callT').split('\n')[0]).toMatch(/^◌ general @backend Backend work · idle(?! · holds)/);
    s = reduce(s, ev('session.status', B, tp, 'general', { status: 'failed' }, 9));
    expect(block(s, ROOT, 'callT').split('\n')[0]).toMatch(/^✗ general @backend Backend work · failed/);
    s = reduce(s, ev('session.status', B, tp, 'general', { status: 'completed' }, 10));
    expect(block(s, ROOT, 'callT').split('\n')[0]).toMatch(/^✓ general @backend Backend work · ended/);
  });
});

describe('TaskBlock states', () => {
  it('shows a queued child with its agent, description and no elapsed time', () => {
    const out = block(run(treeEvents()), ROOT, 'callB');
    expect(out).toBe('◌ general Review tests · queued');
  });

  it('says starting, not queued, until a child no limit holds sends its first request', () => {
    let s = run(treeEvents());
    s = reduce(s, ev('session.status', B, [ROOT, B], 'general', { status: 'queued' }, 20));
    expect(block(s, ROOT, 'callB')).toMatch(/^\S general Review tests · starting/);
    s = reduce(s, ev('session.status', B, [ROOT, B], 'general', { status: 'running' }, 21));
    expect(block(s, ROOT, 'callB')).toMatch(/^\S general Review tests · starting/);
    s = reduce(s, ev('message.started', B, [ROOT, B], 'general', { message_id: 'b1' }, 22));
    expect(block(s, ROOT, 'callB')).toMatch(/^\S general Review tests · running/);
  });

  it('keeps the command on the one latest line a narrow, short screen leaves a running child', () => {
    let s = run(treeEvents());
    s = reduce(s, ev('session.status', B, [ROOT, B], 'general', { status: 'running' }, 20));
    s = reduce(s, ev('tool.started', B, [ROOT, B], 'general', { call_id: 'b1', tool: 'bash', input: { command: 'npm test -- --run' } }, 21));
    s = reduce(s, ev('tool.progress', ROOT, [ROOT], 'build', { call_id: 'callB', tool: 'task', metadata: { session_id: B, agent: 'general', status: 'running', tool_calls: 1, latest_tool: 'bash', elapsed_ms: 1 } }, 21));
    const out = block(s, ROOT, 'callB', 30_000, { latestTools: 0, width: 50 });
    expect(out.split('\n')[1]).toBe('  › bash npm test -- --run');
  });

  it('shows a running child with live elapsed time, tool count, latest tools and the nested grandchild', () => {
    const s = run(treeEvents());
    const at10s = block(s, ROOT, 'callA', 10 + 12_000);
    const lines = at10s.split('\n');
    expect(lines[0]).toMatch(/^\S explore Find API routes · running · 12s · 2 tools$/);
    expect(lines[1]).toBe('  ⎿ read src/a.ts');
    expect(lines[2]).toMatch(/^ {2}\S explore Deep dive · running · 11s$/);
    // Time moves with `now`.
    expect(block(s, ROOT, 'callA', 10 + 75_000).split('\n')[0]).toContain('1m 15s');
  });

  it('shows completed, failed and cancelled with their glyphs and a failure reason', () => {
    let s = run(treeEvents());
    s = reduce(s, ev('session.status', A, [ROOT, A], 'explore', { status: 'completed' }, 5010));
    s = reduce(s, ev('tool.completed', ROOT, [ROOT], 'build', { call_id: 'callA', tool: 'task', output: `<task id="${A}" state="completed"><task_result>ok</task_result></task>`, is_error: false, metadata: { session_id: A, agent: 'explore', state: 'completed' } }, 5011));
    // What it spent includes its own sub-agent's: 22 + 55 tokens, the grandchild's $0.50.
    expect(block(s, ROOT, 'callA', 99_999)).toBe('✓ explore Find API routes · completed · 5s · 2 tools · 77 tok · $0.50');

    s = reduce(s, ev('session.status', B, [ROOT, B], 'general', { status: 'running' }, 100));
    s = reduce(s, ev('session.status', B, [ROOT, B], 'general', { status: 'failed', reason: 'timed out after 60 s' }, 2100));
    expect(block(s, ROOT, 'callB', 99_999)).toBe('✗ general Review tests · failed · 2s\n  timed out after 60 s');

    s = reduce(s, ev('session.status', G, [ROOT, A, G], 'explore', { status: 'cancelled' }, 3015));
    expect(block(s, A, 'callG', 99_999)).toBe('⊘ explore Deep dive · cancelled · 3s · 55 tok · $0.50');
  });

  it('marks a child stopped at its cap on model requests as limited, naming the limit and what raises it', () => {
    let s = run(treeEvents());
    s = reduce(s, ev('session.status', B, [ROOT, B], 'general', { status: 'running' }, 100));
    const reason = 'reached its limit of 20 model requests (raise subagents.max_turns)';
    s = reduce(s, ev('session.status', B, [ROOT, B], 'general', { status: 'limited', reason }, 2100));
    const output = `<task id="${B}" state="limited"><task_result>half done\n\n[Stopped: ${reason}; the work may be unfinished.]</task_result></task>`;
    s = reduce(s, ev('tool.completed', ROOT, [ROOT], 'build', { call_id: 'callB', tool: 'task', output, is_error: false, metadata: { session_id: B, agent: 'general', state: 'limited' } }, 2101));
    expect(block(s, ROOT, 'callB', 99_999)).toBe(`■ general Review tests · limited · 2s\n  ${reason}`);
  });

  it('lists the first lines of the report and then the tool log when expanded, and only then', () => {
    let s = run(treeEvents());
    s = reduce(s, ev('session.status', A, [ROOT, A], 'explore', { status: 'completed' }, 5010));
    const report = ['Found 7 routes.', '', 'GET /a in src/a.ts', 'GET /b in src/b.ts', 'POST /c </task_result> quoted', 'PUT /d', 'DELETE /e', 'PATCH /f'].join('\n');
    // The block reads the typed outcome, never the text the model read: that says something else here.
    const output = `<task id="${A}" state="completed"><task_result>Text for the model only.</task_result><tool_log>\nread src/a.ts\n</tool_log></task>`;
    const toolLog = [{ tool: 'read', arg: 'src/a.ts', status: 'ok' as const }];
    s = reduce(s, ev('tool.completed', ROOT, [ROOT], 'build', { call_id: 'callA', tool: 'task', output, is_error: false, metadata: { session_id: A, agent: 'explore', state: 'completed', tool_log: toolLog, report } }, 5011));
    const collapsed = block(s, ROOT, 'callA', 99_999);
    expect(collapsed.split('\n')).toHaveLength(1);
    expect(collapsed).not.toContain('Found 7 routes');
    expect(block(s, ROOT, 'callA', 99_999, { expanded: true }).split('\n')).toEqual([
      '✓ explore Find API routes · completed · 5s · 2 tools · 77 tok · $0.50',
      '  Found 7 routes.',
      '  GET /a in src/a.ts',
      '  GET /b in src/b.ts',
      '  POST /c </task_result> quoted',
      '  PUT /d',
      '  … 2 more lines',
      '  ⎿ read src/a.ts',
    ]);
  });

  it('says why a task stopped once, expanded or not', () => {
    let s = run(treeEvents());
    s = reduce(s, ev('session.status', A, [ROOT, A], 'explore', { status: 'cancelled' }, 5010));
    const report = 'Looked at half of it.\n\n[Cancelled by the user.]';
    const output = `<task id="${A}" state="cancelled"><task_result>${report}</task_result></task>`;
    s = reduce(s, ev('tool.completed', ROOT, [ROOT], 'build', { call_id: 'callA', tool: 'task', output, is_error: false, metadata: { session_id: A, agent: 'explore', state: 'cancelled', report } }, 5011));
    for (const expanded of [false, true]) {
      const drawn = block(s, ROOT, 'callA', 99_999, { expanded });
      expect(drawn.split('[Cancelled by the user.]')).toHaveLength(2);
    }
  });

  it('never shows child thinking', () => {
    let s = run(treeEvents());
    s = reduce(s, ev('thinking.delta', A, [ROOT, A], 'explore', { text: 'SECRET THOUGHT' }));
    expect(block(s, ROOT, 'callA')).not.toContain('SECRET');
  });
});

describe('TaskBlock nesting', () => {
  /** Child A spawns `n` grandchildren; the first one spawns a great-grandchild that spawns another. */
  const wide = (n: number) => {
    const events = treeEvents();
    for (let i = 0; i < n; i++) {
      const id = `g${i}`;
      events.push(ev('tool.started', A, [ROOT, A], 'explore', { call_id: `cg${i}`, tool: 'task', input: { description: `Sub ${i}`, prompt: 'p', subagent_type: 'explore' } }, 20));
      events.push(ev('session.created', id, [ROOT, A, id], 'explore', { parent_id: A, title: `Sub ${i}`, tool_call_id: `cg${i}`, task_description: `Sub ${i}`, depth: 2 }, 20));
      events.push(ev('session.status', id, [ROOT, A, id], 'explore', { status: 'running' }, 20));
    }
    const d3 = [ROOT, A, 'g0', 'd3'];
    const d4 = [...d3, 'd4'];
    events.push(ev('tool.started', 'g0', [ROOT, A, 'g0'], 'explore', { call_id: 'c3', tool: 'task', input: { description: 'Level three', prompt: 'p', subagent_type: 'general' } }, 21));
    events.push(ev('session.created', 'd3', d3, 'general', { parent_id: 'g0', title: 'Level three', tool_call_id: 'c3', task_description: 'Level three', depth: 3 }, 21));
    events.push(ev('session.status', 'd3', d3, 'general', { status: 'running' }, 21));
    events.push(ev('tool.started', 'd3', d3, 'general', { call_id: 'c4', tool: 'task', input: { description: 'Level four', prompt: 'p', subagent_type: 'general' } }, 22));
    events.push(ev('session.created', 'd4', d4, 'general', { parent_id: 'd3', title: 'Level four', tool_call_id: 'c4', task_description: 'Level four', depth: 4 }, 22));
    events.push(ev('session.status', 'd4', d4, 'general', { status: 'running' }, 22));
    return run(events);
  };

  it('caps children per level with +N more', () => {
    const out = block(wide(4), ROOT, 'callA', 30_000, { maxChildren: 3 });
    // Deep dive + Sub 0..3 = 5 grandchildren; 3 shown.
    expect(out).toContain('Deep dive');
    expect(out).toContain('Sub 0');
    expect(out).toContain('Sub 1');
    expect(out).not.toContain('Sub 2');
    expect(out).toMatch(/^ {2}\+2 more$/m);
  });

  it('collapses levels deeper than maxDepth into +N more', () => {
    const out = block(wide(1), ROOT, 'callA', 30_000, { maxDepth: 2 });
    expect(out).toMatch(/^ {4}\S general Level three · running/m);
    expect(out).not.toContain('Level four');
    expect(out).toMatch(/^ {6}\+1 more$/m);
    const shallow = block(wide(1), ROOT, 'callA', 30_000, { maxDepth: 1 });
    expect(shallow).not.toContain('Level three');
    // Sub 0's whole subtree (Level three and four) is counted.
    expect(shallow).toMatch(/^ {4}\+2 more$/m);
  });

  it('fits 80 columns even with long descriptions and commands', () => {
    let s = run(treeEvents());
    s = reduce(s, ev('tool.started', A, [ROOT, A], 'explore', { call_id: 'long', tool: 'bash', input: { command: 'echo ' + 'x'.repeat(200) } }));
    const created = reduce(
      s,
      ev('tool.started', ROOT, [ROOT], 'build', { call_id: 'cL', tool: 'task', input: { description: 'D'.repeat(120), prompt: 'p', subagent_type: 'explore' } }),
    );
    for (const id of ['callA', 'cL']) {
      const out = block(created, ROOT, id);
      for (const line of out.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(80);
      expect(out).toContain('…');
    }
  });
});

describe('TranscriptItem', () => {
  it('summarises tool calls in one line and shows an edit diff', () => {
    let s = run(treeEvents());
    s = reduce(s, ev('tool.started', A, [ROOT, A], 'explore', { call_id: 'e', tool: 'edit', input: { file_path: 'src/x.ts', old_string: 'a\nb\n', new_string: 'a\nc\nd\n' } }));
    s = reduce(s, ev('tool.completed', A, [ROOT, A], 'explore', { call_id: 'e', tool: 'edit', output: 'Edited', is_error: false }));
    const out = render(<TranscriptItem item={call(s, A, 'e')} />).lastFrame() ?? '';
    expect(out.split('\n')[0]).toBe('● edit src/x.ts (+2 −1)');
    expect(out).toMatch(/2 - b/);
    expect(out).toMatch(/3 \+ d/);
  });

  it('shows the tail of bash output collapsed and more when expanded', () => {
    let s = run(treeEvents());
    const output = Array.from({ length: 12 }, (_, i) => `out ${i}`).join('\n');
    s = reduce(s, ev('tool.started', A, [ROOT, A], 'explore', { call_id: 'b', tool: 'bash', input: { command: 'npm test' } }));
    s = reduce(s, ev('tool.completed', A, [ROOT, A], 'explore', { call_id: 'b', tool: 'bash', output, is_error: false }));
    const collapsed = render(<ToolCall call={call(s, A, 'b')} />).lastFrame() ?? '';
    expect(collapsed.split('\n')).toEqual(['● bash npm test', '  … 9 more lines', '  out 9', '  out 10', '  out 11']);
    const expanded = render(<ToolCall call={call(s, A, 'b')} expanded />).lastFrame() ?? '';
    expect(expanded).toContain('out 0');
    expect(expanded).not.toContain('more lines');
  });

  it('draws a skill call that forked a sub-agent as that sub-agent\'s block, and a skill call without one as a tool line', () => {
    const rp = [ROOT];
    const sp = [ROOT, B];
    let s = run([
      ev('session.created', ROOT, rp, 'build', { parent_id: null, title: 'Main', tool_call_id: null, task_description: null, depth: 0 }, 1),
      ev('tool.started', ROOT, rp, 'build', { call_id: 'plain', tool: 'skill', input: { name: 'style-guide' } }, 2),
      ev('tool.started', ROOT, rp, 'build', { call_id: 'forked', tool: 'skill', input: { name: 'deep-review', arguments: 'src/' } }, 3),
    ]);
    expect(render(<TranscriptItem item={call(s, ROOT, 'forked')} state={s} />).lastFrame()).toMatch(/^\S skill deep-review/);
    s = reduce(s, ev('session.created', B, sp, 'explore', { parent_id: ROOT, title: 'Deep review (@explore)', tool_call_id: 'forked', task_description: 'Deep review', depth: 1 }, 4));
    s = reduce(s, ev('session.status', B, sp, 'explore', { status: 'running' }, 5));
    s = reduce(s, ev('message.started', B, sp, 'explore', { message_id: 'm1' }, 6));
    expect(render(<TranscriptItem item={call(s, ROOT, 'forked')} state={s} now={6} />).lastFrame()).toMatch(/^\S explore Deep review · running/);
    expect(render(<TranscriptItem item={call(s, ROOT, 'plain')} state={s} />).lastFrame()).toMatch(/^\S skill style-guide/);
  });

  it('draws a task call as a sub-agent block when given state, and user/assistant items', () => {
    const s = run(treeEvents());
    const task = render(<TranscriptItem item={call(s, ROOT, 'callB')} state={s} />).lastFrame();
    expect(task).toBe('◌ general Review tests · queued');
    const items = s.items[ROOT] ?? [];
    expect(render(<TranscriptItem item={items[0]!} />).lastFrame()).toBe('› Map the API');
    expect(render(<TranscriptItem item={items[1]!} />).lastFrame()).toBe('Delegating.');
  });
});
