// The finished task block lists the child's report and tool log when expanded (Ctrl+O), from the
// structured log the core put on the task call: real engine events drive the UI state.
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { TaskBlock } from '../../src/ui/components/tree/TaskBlock.js';
import { TranscriptItem } from '../../src/ui/components/transcript/TranscriptItem.js';
import { taskBlockRows } from '../../src/ui/screens/live-layout.js';
import { createUiState, reduce, type ToolCallItem, type UiState } from '../../src/ui/state/index.js';
import { scriptConversations } from '../support/conversations.js';
import { reply, text } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { A, ROOT, ev, run, treeEvents } from '../ui/state/fixtures.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const taskCall = (s: UiState, sid: string) => s.items[sid]!.find((i): i is ToolCallItem => i.kind === 'tool' && i.tool === 'task')!;
const frame = (node: React.ReactElement) => render(node).lastFrame() ?? '';

describe('expanded task block', () => {
  it('shows the tool log the parent model received, only when expanded', async () => {
    h = await startHarness({ files: { 'notes.txt': 'n', 'src/auth.ts': 'auth' } });
    scriptConversations(h.server, {
      'log it': [reply({ type: 'tool_use', name: 'task', input: { description: 'Read notes', prompt: 'child reads', subagent_type: 'explore' }, id: 'toolu_log_1' }), text('done')],
      'child reads': [
        reply({ type: 'tool_use', name: 'read', input: { file_path: 'notes.txt' }, id: 'toolu_r1' }, { type: 'tool_use', name: 'grep', input: { pattern: 'auth', path: 'src' }, id: 'toolu_g1' }),
        reply({ type: 'tool_use', name: 'read', input: { file_path: 'missing.txt' }, id: 'toolu_r2' }),
        text('notes say n'),
      ],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'log it');
    const state = h.events.reduce(reduce, createUiState());
    const call = taskCall(state, root.id);

    const collapsed = frame(<TaskBlock state={state} call={call} now={call.endedAt ?? 0} />);
    expect(collapsed.split('\n')).toHaveLength(1);
    expect(collapsed).toMatch(/^✓ explore Read notes · completed · .* · 3 tools · \d+ tok · \$\d+\.\d\d$/);

    const expanded = frame(<TaskBlock state={state} call={call} now={call.endedAt ?? 0} expanded />).split('\n');
    // The report first, then the log.
    expect(expanded.slice(1)).toEqual(['  notes say n', '  ⎿ read notes.txt', '  ⎿ grep "auth" in src', '  ✗ read missing.txt']);
    // The transcript passes Ctrl+O's state on to the block, and the live layout counts its rows.
    const viaTranscript = frame(<TranscriptItem item={call} state={state} now={call.endedAt ?? 0} width={80} expanded />);
    expect(viaTranscript.split('\n')).toHaveLength(5);
    expect(taskBlockRows(state, call, 3, 0, 2, 3, true)).toBe(5);
    expect(taskBlockRows(state, call, 3, 0, 2, 3, false)).toBe(1);
  });

  it('counts the calls the log leaves out', () => {
    let s = run(treeEvents());
    const log = Array.from({ length: 20 }, (_, i) => ({ tool: 'glob', arg: `*.e${i + 5}`, status: 'ok' as const }));
    s = reduce(s, ev('session.status', A, [ROOT, A], 'explore', { status: 'completed' }, 5010));
    s = reduce(
      s,
      ev('tool.completed', ROOT, [ROOT], 'build', { call_id: 'callA', tool: 'task', output: '<task id="childA" state="completed"></task>', is_error: false, metadata: { session_id: A, agent: 'explore', state: 'completed', tool_log: log, tool_log_earlier: 5 } }, 5011),
    );
    const call = s.items[ROOT]!.find((i): i is ToolCallItem => i.kind === 'tool' && i.callId === 'callA')!;
    const lines = frame(<TaskBlock state={s} call={call} now={99_999} width={80} expanded />).split('\n');
    expect(lines).toHaveLength(22);
    expect(lines[1]).toBe('  5 earlier calls not shown');
    expect(lines[2]).toBe('  ⎿ glob *.e5');
    expect(lines[21]).toBe('  ⎿ glob *.e24');
  });

  it("falls back to the child's own calls when the result carries no log (loaded from history)", () => {
    let s = run(treeEvents());
    s = reduce(s, ev('session.status', A, [ROOT, A], 'explore', { status: 'completed' }, 5010));
    s = reduce(s, ev('tool.completed', ROOT, [ROOT], 'build', { call_id: 'callA', tool: 'task', output: '<task id="childA" state="completed"></task>', is_error: false }, 5011));
    const call = s.items[ROOT]!.find((i): i is ToolCallItem => i.kind === 'tool' && i.callId === 'callA')!;
    const lines = frame(<TaskBlock state={s} call={call} now={99_999} width={80} expanded />).split('\n');
    expect(lines.slice(1)).toEqual(['  ⎿ read src/a.ts', '  ⎿ task explore: Deep dive']);
  });
});
