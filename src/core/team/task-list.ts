// The `task_list` tool (DESIGN §24), one of the built-in tools: every session of a tree works
// on its root session's list, reached through `ToolContext.team` (the engine's sessions have
// it). Contract: `create`, `list`, `claim`, `complete`, `update` as §24 names them; each
// change is made atomically by team/task-store.ts and announced with one `team.task` event
// from the session that made it; TaskCreated and TaskCompleted hooks run before the change
// and can refuse it (exit 2: the model reads the hook's stderr, the task is not created or
// stays open); every refusal is an error result the model can read, never a crash. When a
// sub-agent's run fails or is cancelled, `returnHeldTasks` puts the tasks it held back to
// pending for others to claim.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { once } from '../once.js';
import type { EventPayloads } from '../events.js';
import type { SessionHooks } from '../hooks/index.js';
import type { SessionStore } from '../store/index.js';
import { defineTool, ToolError, type ToolResult } from '../tools/types.js';
import { actorOf, LEAD, memberState, resolveOwner } from './members.js';
import { describeIds, TEAM_TASK_STATUSES, type TaskOwner, type TaskResult, type TeamTask } from './task-store.js';

export const TASK_LIST_TOOL = 'task_list';

/** What the tool needs of the session calling it. */
export interface TaskListCaller {
  readonly id: string;
  /** Session ids from the root down to this one: the list is the root's. */
  readonly path: readonly string[];
  readonly hooks?: SessionHooks | undefined;
  emit(type: 'team.task', payload: EventPayloads['team.task']): void;
}

type TeamTaskAction = EventPayloads['team.task']['action'];

/** A task as events, `list` metadata and `sessions show --json` give it. */
export type PublicTeamTask = EventPayloads['team.task']['task'];

export function publicTask(task: TeamTask): PublicTeamTask {
  return {
    id: task.id,
    title: task.title,
    description: task.description,
    status: task.status,
    owner: task.owner,
    owner_session_id: task.owner_session_id,
    blocked_by: task.blocked_by,
    result: task.result,
  };
}

const MAX_TITLE = 300;
const MAX_TEXT = 20_000;
const MAX_BLOCKERS = 100;

/** Models often send task ids as numbers: both spellings name the same task. */
const taskId = once(() =>
  z.union([z.string().trim().min(1).max(20), z.number().int().nonnegative()]).describe('A task id: "1", "2", …'),
);

const parameters = lazySchema(() =>
  z.object({
    action: z.enum(['create', 'list', 'claim', 'complete', 'update']).describe('What to do (see the list above).'),
    id: taskId().optional().describe('claim (optional: without it, the first free task), complete, update: the task.'),
    title: z.string().trim().min(1).max(MAX_TITLE).optional().describe('create (required), update: a short imperative title.'),
    description: z.string().max(MAX_TEXT).optional().describe('create, update: what done means, details.'),
    blocked_by: z
      .array(taskId())
      .max(MAX_BLOCKERS)
      .optional()
      .describe('create, update (replaces the list): ids of tasks that must be completed before this one can be claimed.'),
    owner: z
      .string()
      .max(200)
      .optional()
      .describe('create, update: who should do it: "lead", a teammate\'s name, or a sub-agent\'s session id; update with "" leaves it unowned.'),
    status: z.enum(TEAM_TASK_STATUSES as ['pending', 'in_progress', 'completed']).optional().describe('update: pending, in_progress or completed.'),
    result: z.string().max(MAX_TEXT).optional().describe('complete: what was done, for whoever reads the list.'),
  }),
);

/** The arguments with every task id as a string ("1", whether the model sent "1" or 1). */
type Args = Omit<z.infer<typeof parameters>, 'id' | 'blocked_by'> & { id?: string | undefined; blocked_by?: string[] | undefined };

const DESCRIPTION = `The task list shared by every session of this team (the lead and all its sub-agents): split work, see who does what, avoid doing it twice.
- create: title, description?, blocked_by? (ids), owner? → the new task's id ("1", "2", …).
- list: every task with its status, owner and the owner's state (working, idle, ended, failed).
- claim: id? → take a task (status in_progress, owner you); without id, the first pending task that is unblocked and free. Only one session can win a task.
- complete: id, result? → mark it done; tasks blocked by it become claimable.
- update: id with title?, description?, owner?, status?, blocked_by?.
A task whose blocked_by tasks are not all completed cannot be claimed or completed.`;

/** What `task_list` works with: the store of the list and the session calling (ToolContext.team). */
export interface TeamAccess {
  store: SessionStore;
  caller: TaskListCaller;
}

export const taskListTool = defineTool({
  name: TASK_LIST_TOOL,
  description: DESCRIPTION,
  parameters,
  readOnly: false,
  fileChanges: 'none',
  async execute(raw, ctx) {
    if (!ctx.team) throw new ToolError('The task list is kept by the engine\'s sessions; this call has none.');
    const list = new TaskListActions(ctx.team.store, ctx.team.caller);
    const args = { ...raw, id: raw.id === undefined ? undefined : String(raw.id), blocked_by: raw.blocked_by?.map(String) };
    switch (args.action) {
      case 'list':
        return list.list();
      case 'create':
        return list.create(args);
      case 'claim':
        return list.claim(args.id);
      case 'complete':
        return list.complete(required(args, 'id'), args.result);
      case 'update':
        return list.update(required(args, 'id'), args);
    }
  },
});

function required(args: Args, key: 'id'): string {
  const value = args[key];
  if (value === undefined) throw new ToolError(`task_list ${args.action} needs "${key}": the id of the task ("1", "2", …; task_list list shows them).`);
  return value;
}

class TaskListActions {
  private readonly rootId: string;

  constructor(
    private readonly store: SessionStore,
    private readonly session: TaskListCaller,
  ) {
    this.rootId = session.path[0] ?? session.id;
  }

  private get tasks() {
    return this.store.teamTasks;
  }

  private get actor() {
    return actorOf(this.rootId, this.session.id, this.store);
  }

  list(): ToolResult {
    const tasks = this.tasks.list(this.rootId);
    // The team is listed too: after a compaction the lead still knows who is on it and how each is.
    const team = this.teamLine();
    if (tasks.length === 0) return { output: ['The task list is empty. Create tasks with task_list create.', ...team].join('\n'), metadata: { tasks: [] } };
    const count = (status: TeamTask['status']) => tasks.filter((t) => t.status === status).length;
    const lines = tasks.map((task) => this.line(task));
    const header = `${tasks.length} task${tasks.length === 1 ? '' : 's'}: ${count('pending')} pending, ${count('in_progress')} in progress, ${count('completed')} completed.`;
    return { output: [header, ...lines, ...team].join('\n'), metadata: { tasks: tasks.map(publicTask) } };
  }

  /** `Teammates: backend (idle, holds 2), docs (working)`, or nothing without teammates. */
  private teamLine(): string[] {
    const members = this.store.teamMembers.list(this.rootId);
    if (members.length === 0) return [];
    const held = (sessionId: string) =>
      this.tasks
        .list(this.rootId)
        .filter((t) => t.status === 'in_progress' && t.owner_session_id === sessionId)
        .map((t) => t.id);
    const parts = members.map((m) => {
      const holds = held(m.session_id);
      return `${m.name} (${m.state}${holds.length ? `, holds ${describeIds(holds)}` : ''})`;
    });
    return [`Teammates: ${parts.join(', ')}.`];
  }

  async create(args: Args): Promise<ToolResult> {
    if (args.title === undefined) throw new ToolError('task_list create needs a "title": a short imperative sentence saying what is to be done.');
    const owner = args.owner === undefined || args.owner.trim() === '' ? undefined : this.owner(args.owner);
    const drafted = this.tasks.draft(this.rootId, this.actor, { title: args.title, description: args.description, blocked_by: args.blocked_by, owner });
    const draft = unwrap(drafted).task;
    const hook = await this.session.hooks?.teamTask('TaskCreated', this.hookInput(draft));
    if (hook?.block !== undefined) {
      this.tasks.abandon(this.rootId, draft.id);
      throw new ToolError(`A TaskCreated hook refused this task, so it was not created: ${hook.block}`);
    }
    const task = this.tasks.reveal(this.rootId, draft.id)!;
    this.announce('created', task);
    const blocked = task.blocked_by.length ? ` It is blocked until ${describeIds(task.blocked_by)} ${task.blocked_by.length === 1 ? 'is' : 'are'} completed.` : '';
    return { output: `Created task ${task.id}: ${task.title}.${blocked}`, metadata: { task: publicTask(task) } };
  }

  claim(id: string | undefined): ToolResult {
    const claimed = unwrap(this.tasks.claim(this.rootId, this.actor, id));
    if (claimed.changed) this.announce('claimed', claimed.task);
    const task = claimed.task;
    const already = claimed.changed ? '' : ' (you already held it)';
    const details = task.description ? `\n${task.description}` : '';
    return { output: `You have claimed task ${task.id}${already}: ${task.title}.${details}\nComplete it with task_list complete when done.`, metadata: { task: publicTask(task) } };
  }

  async complete(id: string, result: string | undefined): Promise<ToolResult> {
    const check = unwrap(this.tasks.checkComplete(this.rootId, id));
    const hook = await this.session.hooks?.teamTask('TaskCompleted', this.hookInput(check.task));
    if (hook?.block !== undefined) throw new ToolError(`A TaskCompleted hook kept task ${id} open: ${hook.block}`);
    const done = unwrap(this.tasks.complete(this.rootId, this.actor, id, result));
    this.announce('completed', done.task);
    const freed = this.tasks
      .list(this.rootId)
      .filter((t) => t.status === 'pending' && t.blocked_by.includes(id) && this.tasks.openBlockers(this.rootId, t).length === 0)
      .map((t) => t.id);
    const next = freed.length ? ` Now unblocked: ${describeIds(freed)}.` : '';
    return { output: `Completed task ${id}: ${done.task.title}.${next}`, metadata: { task: publicTask(done.task) } };
  }

  async update(id: string, args: Args): Promise<ToolResult> {
    const owner = args.owner === undefined ? undefined : args.owner.trim() === '' ? null : this.owner(args.owner);
    const completing = args.status === 'completed' && this.tasks.get(this.rootId, id)?.status !== 'completed';
    // Completing goes through `complete` (its checks and its hooks) after the other changes.
    const changes = { title: args.title, description: args.description, owner, blocked_by: args.blocked_by, status: completing ? undefined : args.status };
    if (completing) unwrap(this.tasks.checkComplete(this.rootId, id));
    const updated = unwrap(this.tasks.update(this.rootId, this.actor, id, changes));
    if (updated.changed) this.announce(updated.task.status === 'in_progress' && args.status === 'in_progress' ? 'claimed' : 'updated', updated.task);
    if (completing) return this.complete(id, args.result);
    const what = updated.changed ? 'Updated' : 'Nothing to change in';
    return { output: `${what} task ${id}:\n${this.line(updated.task)}`, metadata: { task: publicTask(updated.task) } };
  }

  private owner(name: string): TaskOwner {
    const owner = resolveOwner(this.store, this.rootId, name);
    if ('error' in owner) throw new ToolError(owner.error);
    return owner;
  }

  private line(task: TeamTask): string {
    const open = task.status === 'pending' ? this.tasks.openBlockers(this.rootId, task) : [];
    const status = open.length ? `pending, blocked by ${describeIds(open)}` : task.status;
    const parts = [`#${task.id} [${status}] ${task.title}`];
    if (task.owner) parts.push(`owner ${task.owner}${this.ownerState(task)}`);
    if (task.result) parts.push(`result: ${oneLine(task.result)}`);
    return parts.join(' · ');
  }

  private ownerState(task: TeamTask): string {
    if (!task.owner_session_id) return '';
    // A teammate's state is the team's own record: idle is not ended.
    const teammate = this.store.teamMembers.get(task.owner_session_id);
    if (teammate) return ` (${teammate.state})`;
    const row = this.store.getSession(task.owner_session_id);
    return row ? ` (${memberState(row.status, task.owner === LEAD)})` : '';
  }

  private hookInput(task: TeamTask) {
    const actor = this.actor;
    return { id: task.id, title: task.title, description: task.description, teammateName: actor.name === LEAD ? undefined : actor.name, teamName: this.rootId };
  }

  private announce(action: TeamTaskAction, task: TeamTask): void {
    this.session.emit('team.task', { action, task: publicTask(task) });
  }
}

function unwrap(result: TaskResult): Extract<TaskResult, { ok: true }> {
  if (!result.ok) throw new ToolError(result.error);
  return result;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 160 ? `${flat.slice(0, 159)}…` : flat;
}

/**
 * Puts the tasks a session held in progress back to pending (its run failed, was cancelled,
 * or its process died), announcing each as updated from that session.
 */
export function returnHeldTasks(store: SessionStore, session: Pick<TaskListCaller, 'id' | 'emit'>): void {
  for (const { task } of store.teamTasks.releaseHeldBy(session.id)) session.emit('team.task', { action: 'updated', task: publicTask(task) });
}
