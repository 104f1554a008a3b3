// A sub-agent block names the container its commands run in and that container's host: from
// the task's live progress while it runs, from its outcome once returned; the live layout
// counts that line.
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { formatTaskResult } from '../../src/core/subagents/index.js';
import { TaskBlock } from '../../src/ui/components/tree/TaskBlock.js';
import { taskBlockRows } from '../../src/ui/screens/live-layout.js';
import { reduce, type ToolCallItem, type UiState } from '../../src/ui/state/index.js';
import { A, ROOT, ev, run, treeEvents } from '../ui/state/fixtures.js';

const WHERE = { host: 'ssh://ci@build-1', container: 'opencode-ink-childa-m1' };
const LINE = `  in container ${WHERE.container} on ${WHERE.host}`;

const callOf = (state: UiState): ToolCallItem => state.items[ROOT]!.find((i): i is ToolCallItem => i.kind === 'tool' && i.callId === 'callA')!;
const lines = (state: UiState, call: ToolCallItem) => (render(<TaskBlock state={state} call={call} now={99_999} width={100} />).lastFrame() ?? '').split('\n');

describe('a task block of a sub-agent in a container', () => {
  it('names the container and host while the sub-agent runs', () => {
    let s = run(treeEvents());
    const before = callOf(s);
    const rowsBefore = taskBlockRows(s, before, 3);
    expect(lines(s, before).join('\n')).not.toContain('in container');
    s = reduce(
      s,
      ev('tool.progress', ROOT, [ROOT], 'build', { call_id: 'callA', tool: 'task', metadata: { session_id: A, agent: 'explore', status: 'running', tool_calls: 1, elapsed_ms: 5, runner: WHERE } }, 20),
    );
    const call = callOf(s);
    const drawn = lines(s, call);
    expect(drawn[1]).toBe(LINE);
    expect(taskBlockRows(s, call, 3)).toBe(rowsBefore + 1);
    expect(drawn).toHaveLength(taskBlockRows(s, call, 3));
  });

  it('keeps naming them once the task has returned', () => {
    let s = run(treeEvents());
    s = reduce(s, ev('session.status', A, [ROOT, A], 'explore', { status: 'completed' }, 5010));
    const output = formatTaskResult(A, 'completed', 'done', { entries: [], earlier: 0 });
    const metadata = { session_id: A, agent: 'explore', state: 'completed' as const, runner: WHERE };
    s = reduce(s, ev('tool.completed', ROOT, [ROOT], 'build', { call_id: 'callA', tool: 'task', output, is_error: false, metadata }, 5011));
    const call = callOf(s);
    expect(lines(s, call).slice(1)).toEqual([LINE]);
    expect(taskBlockRows(s, call, 3)).toBe(2);
  });
});
