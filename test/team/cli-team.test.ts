// The team's task list through the built binary (DESIGN §24): `run --format json` streams
// `team.task` events like any other, `sessions show <root>` gives the list back after the
// program has exited — `team` in its JSON, a "Team tasks" section in its text — and an editor
// on ACP sees the list as its plan.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolUse } from '../support/conversations.js';
import { reply, systemText, text, type RecordedRequest, type ScriptedReply } from '../support/fake-anthropic.js';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { validEvent } from '../support/events.js';
import { editorsPerTest, initialize } from '../acp/support.js';

describe('the task list outside the engine', () => {
  let ctx: CliProject;
  beforeEach(async () => {
    ctx = await startCliProject();
  });
  afterEach(() => ctx.close());

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

describe('the task list in an editor (ACP)', () => {
  let p!: CliProject;
  const editors = editorsPerTest((project) => (p = project));

  it("shows the team's list as the editor's plan, updated whichever session changes it", async () => {
    const isChild = (req: RecordedRequest) => systemText(req).includes('sub-agent of opencode-ink');
    const lead: ScriptedReply[] = [
      reply(toolUse('task_list', { action: 'create', title: 'Rename the module' }), toolUse('task_list', { action: 'create', title: 'Update imports', blocked_by: ['1'] })),
      reply(toolUse('task', { description: 'Rename', prompt: 'Take a task from the list.', subagent_type: 'general' })),
      text('Renamed.'),
    ];
    const child: ScriptedReply[] = [
      reply(toolUse('task_list', { action: 'claim' })),
      reply(toolUse('task_list', { action: 'complete', id: '1', result: 'renamed' })),
      text('done'),
    ];
    p.server.setHandler((req) => (isChild(req) ? child.shift() : lead.shift()) ?? text('(script exhausted)'));
    const e = editors.start();
    await initialize(e);
    const { sessionId } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    expect((await e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Rename it.' }] })).stopReason).toBe('end_turn');

    const plans = e.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'plan').map((n) => n.update);
    const [, , claimedBy] = plans;
    const helper = /\((ses_\w+)\)/.exec(JSON.stringify(claimedBy))?.[1];
    expect(helper).toBeDefined();
    expect(plans).toEqual([
      { sessionUpdate: 'plan', entries: [{ content: '#1 Rename the module', priority: 'medium', status: 'pending' }] },
      {
        sessionUpdate: 'plan',
        entries: [
          { content: '#1 Rename the module', priority: 'medium', status: 'pending' },
          { content: '#2 Update imports', priority: 'medium', status: 'pending' },
        ],
      },
      {
        sessionUpdate: 'plan',
        entries: [
          { content: `#1 Rename the module (${helper})`, priority: 'medium', status: 'in_progress' },
          { content: '#2 Update imports', priority: 'medium', status: 'pending' },
        ],
      },
      {
        sessionUpdate: 'plan',
        entries: [
          { content: `#1 Rename the module (${helper})`, priority: 'medium', status: 'completed' },
          { content: '#2 Update imports', priority: 'medium', status: 'pending' },
        ],
      },
    ]);
  });
});
