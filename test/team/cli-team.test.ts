// The team's task list through the built binary (DESIGN §24): `run --format json` streams
// `team.task` events like any other, and `sessions show <root>` gives the list back after the
// program has exited — `team` in its JSON, a "Team tasks" section in its text.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolUse } from '../support/conversations.js';
import { reply, text } from '../support/fake-anthropic.js';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { validEvent } from '../support/events.js';

let ctx: CliProject;
beforeEach(async () => {
  ctx = await startCliProject();
});
afterEach(() => ctx.close());

describe('the task list outside the engine', () => {
  it('run --format json streams team.task events, and sessions show <root> includes the team', async () => {
    ctx.server.enqueue(
      reply(
        toolUse('task_list', { action: 'create', title: 'Write the parser', description: 'Lines and columns' }),
        toolUse('task_list', { action: 'create', title: 'Test the parser', blocked_by: ['1'] }),
        toolUse('task_list', { action: 'claim', id: '1' }),
      ),
      reply(toolUse('task_list', { action: 'complete', id: '1', result: 'parser.ts written' })),
      text('planned'),
    );
    const run = await runCli(['run', '--format', 'json', 'plan the parser'], { cwd: ctx.project, env: ctx.env });
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string })
      .filter((e) => e.type !== 'protocol')
      .map((e) => validEvent(e));
    const team = events.filter((e) => e.type === 'team.task');
    expect(team.map((e) => (e.type === 'team.task' ? [e.action, e.task.id, e.task.status, e.task.owner] : []))).toEqual([
      ['created', '1', 'pending', null],
      ['created', '2', 'pending', null],
      ['claimed', '1', 'in_progress', 'lead'],
      ['completed', '1', 'completed', 'lead'],
    ]);
    const rootId = team[0]!.session_id;

    const shown = await runCli(['sessions', 'show', rootId, '--json'], { cwd: ctx.project, env: ctx.env });
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout).team).toEqual({
      teammates: [],
      tasks: [
        { id: '1', title: 'Write the parser', description: 'Lines and columns', status: 'completed', owner: 'lead', owner_session_id: rootId, blocked_by: [], result: 'parser.ts written' },
        { id: '2', title: 'Test the parser', description: null, status: 'pending', owner: null, owner_session_id: null, blocked_by: ['1'], result: null },
      ],
    });
    const textForm = await runCli(['sessions', 'show', rootId], { cwd: ctx.project, env: ctx.env });
    expect(textForm.stdout).toContain('Team tasks:\n  #1 [completed] Write the parser · lead\n  #2 [pending] Test the parser');
  });
});
