// The finished task block of an isolated task says what its merge did, from the typed outcome
// on the call, or from the `<task>` result of a call loaded from history; the live layout
// counts that line.
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import type { TaskMerge } from '../../src/core/events.js';
import { formatTaskResult } from '../../src/core/subagents/index.js';
import { TaskBlock } from '../../src/ui/components/tree/TaskBlock.js';
import { taskBlockRows } from '../../src/ui/screens/live-layout.js';
import { reduce, type ToolCallItem, type UiState } from '../../src/ui/state/index.js';
import { A, ROOT, ev, run, treeEvents } from '../ui/state/fixtures.js';

const LOG = { entries: [], earlier: 0 };

function finished(merge: TaskMerge, withMetadata: boolean): { state: UiState; call: ToolCallItem } {
  let s = run(treeEvents());
  s = reduce(s, ev('session.status', A, [ROOT, A], 'explore', { status: 'completed' }, 5010));
  const output = formatTaskResult(A, 'completed', 'done', LOG, merge);
  const metadata = { session_id: A, agent: 'explore', state: 'completed' as const, merge };
  s = reduce(s, ev('tool.completed', ROOT, [ROOT], 'build', { call_id: 'callA', tool: 'task', output, is_error: false, ...(withMetadata ? { metadata } : {}) }, 5011));
  const call = s.items[ROOT]!.find((i): i is ToolCallItem => i.kind === 'tool' && i.callId === 'callA')!;
  return { state: s, call };
}

const lines = (state: UiState, call: ToolCallItem) => (render(<TaskBlock state={state} call={call} now={99_999} width={100} />).lastFrame() ?? '').split('\n');

describe('finished isolated task block', () => {
  for (const withMetadata of [true, false]) {
    const how = withMetadata ? 'from its outcome' : 'from history';
    it(`says how many files were merged (${how})`, () => {
      const { state, call } = finished({ state: 'merged', files: ['a.ts', 'b.ts', 'c.ts'] }, withMetadata);
      expect(lines(state, call).slice(1)).toEqual(['  merged 3 files']);
      expect(taskBlockRows(state, call, 3)).toBe(2);
    });

    it(`names the conflicting file and the branch keeping the work (${how})`, () => {
      const merge: TaskMerge = { state: 'conflict', files: ['a.ts'], branch: `opencode/${A}`, base: 'abc123', reason: 'both changed' };
      const { state, call } = finished(merge, withMetadata);
      expect(lines(state, call).slice(1)).toEqual([`  conflict in a.ts — kept on opencode/${A}`]);
      expect(taskBlockRows(state, call, 3)).toBe(2);
    });
  }

  it('adds nothing for a task without isolation', () => {
    let s = run(treeEvents());
    s = reduce(s, ev('session.status', A, [ROOT, A], 'explore', { status: 'completed' }, 5010));
    s = reduce(s, ev('tool.completed', ROOT, [ROOT], 'build', { call_id: 'callA', tool: 'task', output: formatTaskResult(A, 'completed', 'done', LOG), is_error: false }, 5011));
    const call = s.items[ROOT]!.find((i): i is ToolCallItem => i.kind === 'tool' && i.callId === 'callA')!;
    expect(lines(s, call)).toHaveLength(1);
    expect(taskBlockRows(s, call, 3)).toBe(1);
  });
});
