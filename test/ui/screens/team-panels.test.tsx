// The live sub-agents panel and the task list's rows, drawn from plain UI state: who is live
// (queued, starting, running, idle teammates; never finished ones, wherever they sit in the
// tree), and every row within the width and the panel within its rows at 50 columns.
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { AgentsPanel, agentsPanelRows, liveAgents } from '../../../src/ui/screens/agents-panel.js';
import { taskRow } from '../../../src/ui/screens/task-list-view.js';
import { displayWidth } from '../../../src/ui/render/text.js';
import type { UiInput } from '../../../src/ui/state/index.js';
import { ev, run } from '../state/fixtures.js';

const ROOT = 'root';

function child(id: string, parent: string, path: string[], description: string, statuses: UiInput[] = []): UiInput[] {
  return [ev('session.created', id, path, 'general', { parent_id: parent, title: description, tool_call_id: `call-${id}`, task_description: description, depth: path.length - 1 }, 2), ...statuses];
}

function tree() {
  const at = (id: string, path: string[]) => (type: 'session.status', status: 'queued' | 'running' | 'idle' | 'completed', reason?: string) =>
    ev(type, id, path, 'general', { status, ...(reason ? { reason } : {}) }, 3);
  const p = (id: string) => [ROOT, id];
  return run([
    ev('session.created', ROOT, [ROOT], 'build', { parent_id: null, title: 'Main', tool_call_id: null, task_description: null, depth: 0 }, 1),
    ...child('run', ROOT, p('run'), 'Run the suite', [
      at('run', p('run'))('session.status', 'running'),
      ev('tool.started', 'run', p('run'), 'general', { call_id: 'b1', tool: 'bash', input: { command: 'npm test -- --reporter dot' } }, 4),
    ]),
    ...child('held', ROOT, p('held'), 'Wait for a slot', [at('held', p('held'))('session.status', 'queued', 'waiting for a free slot (subagents.max_concurrency is 1)')]),
    ...child('boot', ROOT, p('boot'), 'Boot', [at('boot', p('boot'))('session.status', 'queued')]),
    ...child('mate', ROOT, p('mate'), 'backend', [at('mate', p('mate'))('session.status', 'running'), ev('text.delta', 'mate', p('mate'), 'general', { text: 'Waiting for\nthe next task.' }, 5), at('mate', p('mate'))('session.status', 'idle')]),
    ...child('done', ROOT, p('done'), 'Finished one', [at('done', p('done'))('session.status', 'completed')]),
    ...child('deep', 'run', [ROOT, 'run', 'deep'], 'Grandchild', [at('deep', [ROOT, 'run', 'deep'])('session.status', 'running'), ev('message.started', 'deep', [ROOT, 'run', 'deep'], 'general', { message_id: 'm' }, 4)]),
  ]);
}

describe('the live sub-agents panel', () => {
  it('lists every live session of the tree with its state and latest activity, and no finished one', () => {
    const agents = liveAgents(tree(), ROOT, 10_000);
    expect(agents.map((a) => [a.label, a.state, a.activity])).toEqual([
      // A call started: its first request went out.
      ['general (Run the suite)', 'running', '› bash npm test -- --reporter dot'],
      ['general (Run the suite) › general (Grandchild)', 'running', ''],
      ['general (Wait for a slot)', 'queued', ''],
      ['general (Boot)', 'starting', ''],
      ['general (backend)', 'idle', 'the next task.'],
    ]);
  });

  it('fits 50 columns and its rows, saying how many more it could not list', () => {
    const agents = liveAgents(tree(), ROOT, 10_000);
    const { lastFrame, unmount } = render(<AgentsPanel agents={agents} now={10_000} width={50} maxRows={4} focused={false} toggleKey="ctrl+x a" onOpen={() => {}} onBlur={() => {}} />);
    const lines = (lastFrame() ?? '').split('\n');
    unmount();
    expect(lines).toHaveLength(agentsPanelRows(agents.length, 4));
    expect(lines[0]).toMatch(/^── Sub-agents · 5 live · ctrl\+x a to pick/);
    expect(lines[1]).toMatch(/^ {2}\S general \(Run the… · running \d+s · › bash npm/);
    expect(lines.at(-1)).toBe('  +3 more');
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(50);
  });
});

describe('a task list row', () => {
  it('keeps id and status, then cuts the title before the owner at 46 cells', () => {
    const task = { id: '12', title: 'Rewrite the parser so that it streams tokens instead of reading the whole file', description: null, status: 'in_progress' as const, owner: 'backend', owner_session_id: 's', blocked_by: ['3', '4'], result: null };
    const row = taskRow(task, { selected: true, idWidth: 2, width: 46, owner: 'backend · working' });
    expect(displayWidth(row)).toBeLessThanOrEqual(46);
    expect(row).toMatch(/^› 12 ◐ working Rewrite the par…/);
    expect(row).toContain('· backend');
    // Escape sequences in a title never reach the terminal.
    expect(taskRow({ ...task, title: 'evil\u001b[31mred' }, { selected: false, idWidth: 2, width: 80, owner: 'lead' })).not.toContain('\u001b');
  });
});
