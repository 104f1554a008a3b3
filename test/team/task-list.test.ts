// The team's shared task list (DESIGN §24) through the real engine, store, hooks and
// Anthropic SDK against the fake model server: a lead splits a job into tasks with
// dependencies, sub-agents claim and complete them, and every session sees one list.
// Read top to bottom, these tests are the feature's documentation.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreEvent, EventOf } from '../../src/core/events.js';
import { requestsOf, scriptConversations, toolUse } from '../support/conversations.js';
import { reply, text, toolNames, toolResults, type RecordedRequest, type ScriptedReply } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { HookScripts } from '../hooks/scripts.js';

let h: Harness | undefined;
let scriptsDir: string | undefined;
afterEach(async () => {
  h?.engine.cancelAll();
  await h?.engine.close();
  await h?.close();
  h = undefined;
  if (scriptsDir) rmSync(scriptsDir, { recursive: true, force: true });
  scriptsDir = undefined;
});

const taskList = (input: Record<string, unknown>) => toolUse('task_list', input);
const spawn = (prompt: string) => toolUse('task', { description: prompt, prompt, subagent_type: 'general' });
/** The newest tool results of a request, as the model read them. */
const results = (req: RecordedRequest) => toolResults(req).map((r) => ({ text: String(r.content), isError: r.is_error === true }));
const teamEvents = (events: CoreEvent[]) => events.filter((e): e is EventOf<'team.task'> => e.type === 'team.task');

/**
 * A sub-agent that works through the shared list the way a teammate would: claim the first
 * free task, complete it, claim the next; when every pending task is blocked by work still in
 * progress, look at the list and try again; stop when nothing is left pending.
 */
function worker(name: string) {
  return (req: RecordedRequest): ScriptedReply => {
    const last = results(req)[0]?.text ?? '';
    const claimed = /^You have claimed task (\d+)/.exec(last);
    if (claimed) return reply(taskList({ action: 'complete', id: claimed[1], result: `done by ${name}` }));
    if (last.startsWith('No task is pending') || last.startsWith('The task list is empty')) return text(`${name}: nothing left`);
    if (last.startsWith('No pending task is free')) return reply(taskList({ action: 'list' }));
    return reply(taskList({ action: 'claim' }));
  };
}
const repeat = <T,>(n: number, item: T): T[] => Array.from({ length: n }, () => item);

describe('task_list: a lead splits the work, sub-agents share it', () => {
  it('a lead creates five tasks with dependencies; three sub-agents claim and complete each exactly once, in dependency order', async () => {
    h = await startHarness({ config: { subagents: { max_turns: 200 } } });
    scriptConversations(h.server, {
      'ship the release': [
        // 1 ← 2, 3 ← 4 ← 5: the schema first, then API and UI side by side, then docs, then notes.
        reply(
          taskList({ action: 'create', title: 'Write the schema' }),
          taskList({ action: 'create', title: 'Build the API', blocked_by: ['1'] }),
          taskList({ action: 'create', title: 'Build the UI', description: 'Forms only', blocked_by: [1] }),
          taskList({ action: 'create', title: 'Write the docs', blocked_by: ['2', '3'] }),
          taskList({ action: 'create', title: 'Release notes', blocked_by: ['4'] }),
        ),
        reply(spawn('worker one'), spawn('worker two'), spawn('worker three')),
        reply(taskList({ action: 'list' })),
        text('released'),
      ],
      'worker one': repeat(200, worker('one')),
      'worker two': repeat(200, worker('two')),
      'worker three': repeat(200, worker('three')),
    });
    const lead = h.engine.createSession();
    expect(await h.engine.prompt(lead.id, 'ship the release')).toMatchObject({ status: 'completed', text: 'released' });

    const [created, , listed] = requestsOf(h.server, 'ship the release').slice(1).map(results);
    expect(created!.map((r) => r.text)).toEqual([
      'Created task 1: Write the schema.',
      'Created task 2: Build the API. It is blocked until 1 is completed.',
      'Created task 3: Build the UI. It is blocked until 1 is completed.',
      'Created task 4: Write the docs. It is blocked until 2 and 3 are completed.',
      'Created task 5: Release notes. It is blocked until 4 is completed.',
    ]);
    // The lead's list shows every task completed, with who did it and that they have ended.
    expect(listed![0]!.text).toMatch(/^5 tasks: 0 pending, 0 in progress, 5 completed\./);
    expect(listed![0]!.text).toMatch(/#1 \[completed\] Write the schema · owner ses_\w+ \(ended\) · result: done by (one|two|three)/);

    const tasks = h.store.teamTasks.list(lead.id);
    expect(tasks.map((t) => [t.id, t.status, t.blocked_by])).toEqual([
      ['1', 'completed', []],
      ['2', 'completed', ['1']],
      ['3', 'completed', ['1']],
      ['4', 'completed', ['2', '3']],
      ['5', 'completed', ['4']],
    ]);
    const workers = new Set(h.store.children(lead.id).map((c) => c.id));
    for (const task of tasks) expect(workers.has(task.owner_session_id!)).toBe(true);

    // Each task was claimed once and completed once, by the same sub-agent, and no task was
    // claimed before everything blocking it had been completed.
    const events = teamEvents(h.events);
    const claims = events.filter((e) => e.action === 'claimed');
    const completions = events.filter((e) => e.action === 'completed');
    expect(claims.map((e) => e.task.id).sort()).toEqual(['1', '2', '3', '4', '5']);
    expect(completions.map((e) => e.task.id).sort()).toEqual(['1', '2', '3', '4', '5']);
    const at = (e: CoreEvent) => h!.events.indexOf(e);
    for (const claim of claims) {
      const done = completions.find((e) => e.task.id === claim.task.id)!;
      expect(done.session_id).toBe(claim.session_id);
      expect(claim.task.owner).toBe(claim.session_id);
      expect(claim.path).toEqual([lead.id, claim.session_id]);
      for (const blocker of claim.task.blocked_by) expect(at(completions.find((e) => e.task.id === blocker)!)).toBeLessThan(at(claim));
    }
    // Created by the lead, as the lead.
    expect(events.filter((e) => e.action === 'created').map((e) => [e.session_id, e.task.id, e.task.status, e.task.owner])).toEqual(
      ['1', '2', '3', '4', '5'].map((id) => [lead.id, id, 'pending', null]),
    );
  });

  it('claim is first come, first served: the loser is told who has the task, and blocked or finished tasks cannot be taken', async () => {
    h = await startHarness();
    scriptConversations(h.server, {
      plan: [
        reply(taskList({ action: 'create', title: 'Migrate the database' }), taskList({ action: 'create', title: 'Switch traffic', blocked_by: ['1'] })),
        reply(taskList({ action: 'claim', id: '1' })),
        reply(spawn('helper')),
        text('ok'),
      ],
      helper: [
        reply(
          taskList({ action: 'claim', id: '1' }),
          taskList({ action: 'claim', id: '2' }),
          taskList({ action: 'claim' }),
          taskList({ action: 'complete', id: '2' }),
          taskList({ action: 'claim', id: '9' }),
        ),
        text('could not help'),
      ],
    });
    const lead = h.engine.createSession();
    await h.engine.prompt(lead.id, 'plan');
    const [leadClaim] = results(requestsOf(h.server, 'plan')[2]!);
    expect(leadClaim).toEqual({ text: 'You have claimed task 1: Migrate the database.\nComplete it with task_list complete when done.', isError: false });
    expect(results(requestsOf(h.server, 'helper')[1]!)).toEqual([
      { text: 'Task 1 is already claimed by lead; claim another task or ask them.', isError: true },
      { text: 'Task 2 is blocked by 1, not completed yet; claim it once it is done.', isError: true },
      { text: 'No pending task is free to claim: 2 is blocked by 1.', isError: true },
      { text: 'Task 2 is blocked by 1, not completed yet; it cannot be completed before it is.', isError: true },
      { text: 'There is no task "9"; the tasks are 1 and 2 (task_list list shows them).', isError: true },
    ]);
    expect(h.store.teamTasks.get(lead.id, '1')).toMatchObject({ status: 'in_progress', owner: 'lead', owner_session_id: lead.id });
  });

  it('refuses what would break the list, in sentences the model can act on', async () => {
    h = await startHarness();
    scriptConversations(h.server, {
      mistakes: [
        reply(
          taskList({ action: 'create', title: 'A' }),
          taskList({ action: 'create', title: 'B', blocked_by: ['1'] }),
          taskList({ action: 'create', title: 'C', blocked_by: ['7'] }),
          taskList({ action: 'create' }),
          taskList({ action: 'update', id: '1', blocked_by: ['2'] }),
          taskList({ action: 'update', id: '1', blocked_by: ['1'] }),
          taskList({ action: 'complete' }),
          taskList({ action: 'create', title: 'D', owner: 'someone' }),
          taskList({ action: 'complete', id: '1', result: 'done' }),
          taskList({ action: 'complete', id: '1' }),
          taskList({ action: 'update', id: '2', status: 'in_progress' }),
          taskList({ action: 'frobnicate' }),
        ),
        text('ok'),
      ],
    });
    const lead = h.engine.createSession();
    await h.engine.prompt(lead.id, 'mistakes');
    const out = results(requestsOf(h.server, 'mistakes')[1]!);
    expect(out.slice(0, 11)).toEqual([
      { text: 'Created task 1: A.', isError: false },
      { text: 'Created task 2: B. It is blocked until 1 is completed.', isError: false },
      { text: 'blocked_by names task "7", which does not exist; the tasks are 1 and 2 (task_list list shows them).', isError: true },
      { text: 'task_list create needs a "title": a short imperative sentence saying what is to be done.', isError: true },
      { text: 'blocked_by would make a cycle: 1 → 2 → 1; no task of a cycle could ever start.', isError: true },
      { text: 'Task 1 cannot be blocked by itself.', isError: true },
      { text: 'task_list complete needs "id": the id of the task ("1", "2", …; task_list list shows them).', isError: true },
      {
        text: 'owner "someone" is not on this team: name `lead` or the session id of one of its sub-agents (a `task` result\'s id), or leave owner out.',
        isError: true,
      },
      { text: 'Completed task 1: A. Now unblocked: 2.', isError: false },
      { text: 'Task 1 is already completed (by lead).', isError: true },
      { text: expect.stringMatching(/^Updated task 2:\n#2 \[in_progress\] B · owner lead \(\w+\)$/), isError: false },
    ]);
    // A bad action is a validation error the model reads, not a crash.
    expect(out[11]!.isError).toBe(true);
    expect(out[11]!.text).toMatch(/action/);
    // A refused id was never handed out: the next task would be 3.
    expect(h.store.teamTasks.list(lead.id).map((t) => t.id)).toEqual(['1', '2']);
  });

  it('every session of the tree gets the tool and sees the root\'s list; a failed sub-agent\'s claimed task goes back to pending', async () => {
    h = await startHarness();
    scriptConversations(h.server, {
      delegate: [reply(taskList({ action: 'create', title: 'Fix the flaky test' })), reply(spawn('flaky helper')), text('will retry')],
      'flaky helper': [reply(taskList({ action: 'claim' })), { type: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'boom' }],
    });
    const lead = h.engine.createSession();
    await h.engine.prompt(lead.id, 'delegate');
    expect(toolNames(requestsOf(h.server, 'delegate')[0]!)).toContain('task_list');
    expect(toolNames(requestsOf(h.server, 'flaky helper')[0]!)).toContain('task_list');
    const [helper] = h.store.children(lead.id);
    expect(helper!.status).toBe('failed');
    // Claimed by the helper, then returned when its run failed: pending, unowned, claimable.
    const changes = teamEvents(h.events).map((e) => [e.action, e.session_id, e.task.status, e.task.owner]);
    expect(changes).toEqual([
      ['created', lead.id, 'pending', null],
      ['claimed', helper!.id, 'in_progress', helper!.id],
      ['updated', helper!.id, 'pending', null],
    ]);
    expect(h.store.teamTasks.get(lead.id, '1')).toMatchObject({ status: 'pending', owner: null, owner_session_id: null });
  });
});

describe('TaskCreated and TaskCompleted hooks (Claude Code\'s exit 2)', () => {
  function scripts(): HookScripts {
    scriptsDir = mkdtempSync(join(tmpdir(), 'oci-task-hooks-'));
    return new HookScripts(scriptsDir);
  }

  it("a PreToolUse matcher written for Claude Code's task tools (TaskCreate|TaskUpdate) matches task_list", async () => {
    const s = scripts();
    const guard = s.command('guard', `process.stderr.write('The plan is frozen.'); process.exit(2);`);
    h = await startHarness({ config: { hooks: { PreToolUse: [{ matcher: 'TaskCreate|TaskUpdate', hooks: [{ type: 'command', command: guard }] }] } } });
    scriptConversations(h.server, { frozen: [reply(taskList({ action: 'create', title: 'One more thing' })), text('ok')] });
    const lead = h.engine.createSession();
    await h.engine.prompt(lead.id, 'frozen');
    expect(results(requestsOf(h.server, 'frozen')[1]!)).toEqual([{ text: 'Blocked by a PreToolUse hook: The plan is frozen.', isError: true }]);
    expect(s.calls('guard')[0]).toMatchObject({ tool_name: 'task_list', tool_input: { action: 'create', title: 'One more thing' } });
    expect(h.store.teamTasks.list(lead.id)).toEqual([]);
  });

  it('exit 2 refuses the creation or keeps the task open, and the model reads the hook\'s stderr', async () => {
    const s = scripts();
    const noVague = s.command('no-vague', `if (input.task_subject.includes('stuff')) { process.stderr.write('Say what the task is.'); process.exit(2); }`);
    const needsResult = s.command('needs-tests', `if (!fs.existsSync(${JSON.stringify(join(scriptsDir!, 'tests-pass'))})) { process.stderr.write('Tests fail: fix them first.'); process.exit(2); }`);
    h = await startHarness({
      config: { hooks: { TaskCreated: [{ hooks: [{ type: 'command', command: noVague }] }], TaskCompleted: [{ hooks: [{ type: 'command', command: needsResult }] }] } },
    });
    scriptConversations(h.server, {
      hooked: [
        reply(taskList({ action: 'create', title: 'Do stuff' }), taskList({ action: 'create', title: 'Fix the login bug', description: 'Safari only' })),
        reply(spawn('fixer')),
        text('ok'),
      ],
      fixer: [
        reply(taskList({ action: 'claim' })),
        reply(taskList({ action: 'complete', id: '2' })),
        // The hook's condition now holds (the test makes it so below) and the same call goes through.
        async () => {
          const { writeFileSync } = await import('node:fs');
          writeFileSync(join(scriptsDir!, 'tests-pass'), '');
          return reply(taskList({ action: 'complete', id: '2', result: 'fixed' }));
        },
        text('fixed'),
      ],
    });
    const lead = h.engine.createSession();
    await h.engine.prompt(lead.id, 'hooked');

    expect(results(requestsOf(h.server, 'hooked')[1]!)).toEqual([
      { text: 'A TaskCreated hook refused this task, so it was not created: Say what the task is.', isError: true },
      { text: 'Created task 2: Fix the login bug.', isError: false },
    ]);
    const fixer = requestsOf(h.server, 'fixer');
    expect(results(fixer[2]!)).toEqual([{ text: 'A TaskCompleted hook kept task 2 open: Tests fail: fix them first.', isError: true }]);
    expect(results(fixer[3]!)).toEqual([{ text: 'Completed task 2: Fix the login bug.', isError: false }]);
    // The refused task never existed for anyone; its id is not handed out again.
    expect(h.store.teamTasks.list(lead.id).map((t) => [t.id, t.status, t.result])).toEqual([['2', 'completed', 'fixed']]);
    expect(teamEvents(h.events).map((e) => [e.action, e.task.id])).toEqual([
      ['created', '2'],
      ['claimed', '2'],
      ['completed', '2'],
    ]);

    // What the hooks were given: Claude Code's fields, the acting teammate, the team.
    const [helper] = h.store.children(lead.id);
    expect(s.calls('no-vague')).toEqual([
      expect.objectContaining({ hook_event_name: 'TaskCreated', session_id: lead.id, task_id: '1', task_subject: 'Do stuff', task_description: '', team_name: lead.id }),
      expect.objectContaining({ hook_event_name: 'TaskCreated', task_id: '2', task_subject: 'Fix the login bug', task_description: 'Safari only' }),
    ]);
    expect(s.calls('no-vague')[0]!.teammate_name).toBeUndefined();
    expect(s.calls('needs-tests')).toEqual(
      repeat(2, expect.objectContaining({ hook_event_name: 'TaskCompleted', session_id: helper!.id, task_id: '2', teammate_name: helper!.id, team_name: lead.id })),
    );
    const notices = h.events.filter((e): e is EventOf<'hook.notice'> => e.type === 'hook.notice');
    expect(notices.map((n) => [n.hook_event, n.kind])).toEqual([
      ['TaskCreated', 'blocked'],
      ['TaskCompleted', 'blocked'],
    ]);
  });
});
