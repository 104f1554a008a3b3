// The team's shared task list in SQLite (DESIGN §24, tables of store migration 6). Contract:
// one list per root session, ids "1", "2", … in creation order; every change is one IMMEDIATE
// transaction (it takes the database's write lock before reading), so a claim, a completion
// or an update decides on the row as it is at that instant, whichever session or process
// asks: of ten claims of one task exactly one wins, the others read who has it. A task whose
// `blocked_by` tasks are not all completed cannot be claimed or completed, and is free again
// as soon as they are — nothing has to unblock it. Refusals are values (`{ ok: false,
// error }`) whose sentence the model reads; nothing here throws on bad requests, emits
// events or runs hooks (team/task-list.ts does).
import type Database from 'better-sqlite3';

export type TeamTaskStatus = 'pending' | 'in_progress' | 'completed';
export const TEAM_TASK_STATUSES: readonly TeamTaskStatus[] = ['pending', 'in_progress', 'completed'];

export interface TeamTask {
  /** "1", "2", … within its root session's list. */
  id: string;
  title: string;
  description: string | null;
  status: TeamTaskStatus;
  /** Who holds or was given it: `lead`, a teammate's name, or a sub-agent's session id. */
  owner: string | null;
  /** The owner's session. */
  owner_session_id: string | null;
  /** Ids of the tasks that must be completed before this one can be claimed. */
  blocked_by: string[];
  /** What the session that completed it said about it. */
  result: string | null;
  /** The session that created it. */
  created_by: string | null;
  created_at: number;
  updated_at: number;
}

/** A session acting on the list: its id and the name it owns tasks under. */
export interface TaskActor {
  sessionId: string;
  name: string;
}

/** An owner named in a request, resolved to its session by the caller. */
export interface TaskOwner {
  name: string;
  sessionId: string;
}

export type TaskResult = { ok: true; task: TeamTask; changed: boolean } | { ok: false; error: string };

export interface NewTeamTask {
  title: string;
  description?: string | undefined;
  blocked_by?: readonly string[] | undefined;
  owner?: TaskOwner | undefined;
}

export interface TeamTaskChanges {
  title?: string | undefined;
  description?: string | undefined;
  /** An owner, or null to leave the task unowned. */
  owner?: TaskOwner | null | undefined;
  status?: TeamTaskStatus | undefined;
  /** Replaces the task's dependencies. */
  blocked_by?: readonly string[] | undefined;
}

interface RawTask extends Omit<TeamTask, 'blocked_by' | 'status'> {
  status: TeamTaskStatus | 'creating';
  blocked_by: string;
  seq: number;
}

/** A task is `creating` while its TaskCreated hooks run: invisible to everyone until they let it through. */
const CREATING = 'creating';

export class TeamTaskStore {
  private readonly stmt: ReturnType<TeamTaskStore['prepare']>;

  constructor(private readonly db: Database.Database) {
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    return {
      visible: db.prepare<[string], RawTask>(`SELECT * FROM team_tasks WHERE root_id = ? AND status != '${CREATING}' ORDER BY seq`),
      get: db.prepare<[string, string], RawTask>('SELECT * FROM team_tasks WHERE root_id = ? AND id = ?'),
      nextId: db.prepare<[string], { last_id: number }>(`
        INSERT INTO team_task_counters (root_id, last_id) VALUES (?, 1)
        ON CONFLICT(root_id) DO UPDATE SET last_id = last_id + 1 RETURNING last_id`),
      insert: db.prepare(`
        INSERT INTO team_tasks (root_id, id, seq, title, description, status, owner, owner_session_id, blocked_by, created_by, created_at, updated_at)
        VALUES (@root_id, @id, @seq, @title, @description, '${CREATING}', @owner, @owner_session_id, @blocked_by, @created_by, @now, @now)`),
      reveal: db.prepare(`UPDATE team_tasks SET status = 'pending', updated_at = @now WHERE root_id = @root_id AND id = @id AND status = '${CREATING}'`),
      drop: db.prepare(`DELETE FROM team_tasks WHERE root_id = ? AND id = ? AND status = '${CREATING}'`),
      write: db.prepare(`
        UPDATE team_tasks SET title = @title, description = @description, status = @status, owner = @owner,
          owner_session_id = @owner_session_id, blocked_by = @blocked_by, result = @result, updated_at = @now
        WHERE root_id = @root_id AND id = @id`),
      heldBy: db.prepare<[string], RawTask & { root_id: string }>(
        "SELECT * FROM team_tasks WHERE owner_session_id = ? AND status = 'in_progress' ORDER BY root_id, seq",
      ),
    };
  }

  /** Every task of the root session's list, in creation order. */
  list(rootId: string): TeamTask[] {
    return this.stmt.visible.all(rootId).map(toTask);
  }

  get(rootId: string, id: string): TeamTask | undefined {
    const raw = this.stmt.get.get(rootId, id);
    return raw && raw.status !== CREATING ? toTask(raw) : undefined;
  }

  /**
   * Whether the task's blockers are all completed; the ids of those that are not.
   * An id with no task behind it counts as unfinished (it can only come from a bad row).
   */
  openBlockers(rootId: string, task: Pick<TeamTask, 'blocked_by'>): string[] {
    return task.blocked_by.filter((id) => this.get(rootId, id)?.status !== 'completed');
  }

  /**
   * Adds a task no one sees yet (`creating`) and gives it the next id: `reveal` makes it a
   * pending task, `abandon` removes it (its id is not handed out again).
   */
  draft(rootId: string, actor: TaskActor, fields: NewTeamTask): TaskResult {
    return this.write(() => {
      const blockers = this.checkBlockers(rootId, undefined, fields.blocked_by ?? []);
      if (typeof blockers === 'string') return { ok: false, error: blockers };
      const seq = this.stmt.nextId.get(rootId)!.last_id;
      const id = String(seq);
      this.stmt.insert.run({
        root_id: rootId,
        id,
        seq,
        title: fields.title,
        description: fields.description ?? null,
        owner: fields.owner?.name ?? null,
        owner_session_id: fields.owner?.sessionId ?? null,
        blocked_by: JSON.stringify(blockers),
        created_by: actor.sessionId,
        now: Date.now(),
      });
      return { ok: true, task: toTask(this.stmt.get.get(rootId, id)!), changed: true };
    });
  }

  reveal(rootId: string, id: string): TeamTask | undefined {
    return this.write(() => {
      this.stmt.reveal.run({ root_id: rootId, id, now: Date.now() });
      return this.get(rootId, id);
    });
  }

  abandon(rootId: string, id: string): void {
    this.write(() => this.stmt.drop.run(rootId, id));
  }

  /** A pending task at once (no hook in between). */
  create(rootId: string, actor: TaskActor, fields: NewTeamTask): TaskResult {
    const drafted = this.draft(rootId, actor, fields);
    if (!drafted.ok) return drafted;
    return { ok: true, task: this.reveal(rootId, drafted.task.id)!, changed: true };
  }

  /**
   * Makes the actor the task's owner and puts it in progress. Without an id: the first task
   * (in creation order) that is pending, unblocked and unowned or already given to the actor.
   * Claiming a task the actor already holds changes nothing and succeeds.
   */
  claim(rootId: string, actor: TaskActor, id?: string): TaskResult {
    return this.write((): TaskResult => {
      const task = id === undefined ? this.firstClaimable(rootId, actor) : this.get(rootId, id);
      if (typeof task === 'string') return { ok: false, error: task };
      if (!task) return { ok: false, error: this.unknown(rootId, id!) };
      if (task.status === 'completed') return { ok: false, error: `Task ${task.id} is already completed${task.owner ? ` (by ${task.owner})` : ''}.` };
      const mine = task.owner_session_id === actor.sessionId;
      if (task.status === 'in_progress' && mine) return { ok: true, task, changed: false };
      if (task.owner_session_id && !mine) {
        const what = task.status === 'in_progress' ? 'already claimed by' : 'assigned to';
        return { ok: false, error: `Task ${task.id} is ${what} ${task.owner}; claim another task or ask them.` };
      }
      const open = this.openBlockers(rootId, task);
      if (open.length) return { ok: false, error: `Task ${task.id} is blocked by ${describeIds(open)}, not completed yet; claim it once ${open.length === 1 ? 'it is' : 'they are'} done.` };
      return this.save(rootId, { ...task, status: 'in_progress', owner: actor.name, owner_session_id: actor.sessionId });
    });
  }

  /**
   * Refuses what `complete` would refuse, without changing anything: lets the caller run the
   * TaskCompleted hooks only for a completion that can happen.
   */
  checkComplete(rootId: string, id: string): TaskResult {
    const task = this.get(rootId, id);
    if (!task) return { ok: false, error: this.unknown(rootId, id) };
    return this.completable(rootId, task) ?? { ok: true, task, changed: false };
  }

  /** Marks the task completed with the actor's result; the tasks it blocked become claimable. */
  complete(rootId: string, actor: TaskActor, id: string, result?: string): TaskResult {
    return this.write((): TaskResult => {
      const task = this.get(rootId, id);
      if (!task) return { ok: false, error: this.unknown(rootId, id) };
      const refused = this.completable(rootId, task);
      if (refused) return refused;
      const owner = task.owner_session_id ? { owner: task.owner, owner_session_id: task.owner_session_id } : { owner: actor.name, owner_session_id: actor.sessionId };
      return this.save(rootId, { ...task, ...owner, status: 'completed', result: result ?? null });
    });
  }

  /**
   * Changes what the request names. Status `completed` goes through the same checks as
   * `complete`; `in_progress` needs the task unblocked and an owner (the actor, when it
   * names none); `pending` keeps the owner it was given. New dependencies must name other
   * existing tasks and must not close a cycle.
   */
  update(rootId: string, actor: TaskActor, id: string, changes: TeamTaskChanges): TaskResult {
    return this.write((): TaskResult => {
      const task = this.get(rootId, id);
      if (!task) return { ok: false, error: this.unknown(rootId, id) };
      const next: TeamTask = { ...task };
      if (changes.title !== undefined) next.title = changes.title;
      if (changes.description !== undefined) next.description = changes.description;
      if (changes.owner !== undefined) {
        next.owner = changes.owner?.name ?? null;
        next.owner_session_id = changes.owner?.sessionId ?? null;
      }
      if (changes.blocked_by !== undefined) {
        const blockers = this.checkBlockers(rootId, task.id, changes.blocked_by);
        if (typeof blockers === 'string') return { ok: false, error: blockers };
        next.blocked_by = blockers;
      }
      if (changes.status !== undefined && changes.status !== task.status) {
        next.status = changes.status;
        if (changes.status === 'completed') {
          const refused = this.completable(rootId, next);
          if (refused) return refused;
        } else {
          next.result = null;
        }
        if (changes.status === 'in_progress') {
          const open = this.openBlockers(rootId, next);
          if (open.length) return { ok: false, error: `Task ${task.id} is blocked by ${describeIds(open)}, not completed yet; it cannot be in progress before ${open.length === 1 ? 'it is' : 'they are'}.` };
          if (!next.owner_session_id) {
            next.owner = actor.name;
            next.owner_session_id = actor.sessionId;
          }
        }
      }
      if (next.status === 'in_progress' && !next.owner_session_id) {
        return { ok: false, error: `Task ${task.id} is in progress: it needs an owner; give one, or set its status to pending.` };
      }
      if (sameTask(task, next)) return { ok: true, task, changed: false };
      return this.save(rootId, next);
    });
  }

  /**
   * Puts the tasks this session holds in progress back to pending with no owner, so others
   * can claim them: what happens when their owner fails, is cancelled or is interrupted.
   * Returns them as they are now, with the root of each one's list.
   */
  releaseHeldBy(ownerSessionId: string): Array<{ rootId: string; task: TeamTask }> {
    return this.write(() =>
      this.stmt.heldBy.all(ownerSessionId).map((raw) => {
        const released = this.save(raw.root_id, { ...toTask(raw), status: 'pending', owner: null, owner_session_id: null });
        return { rootId: raw.root_id, task: released.ok ? released.task : toTask(raw) };
      }),
    );
  }

  private completable(rootId: string, task: TeamTask): { ok: false; error: string } | undefined {
    const current = this.get(rootId, task.id);
    if (current?.status === 'completed') return { ok: false, error: `Task ${task.id} is already completed${current.owner ? ` (by ${current.owner})` : ''}.` };
    const open = this.openBlockers(rootId, task);
    if (open.length) return { ok: false, error: `Task ${task.id} is blocked by ${describeIds(open)}, not completed yet; it cannot be completed before ${open.length === 1 ? 'it is' : 'they are'}.` };
    return undefined;
  }

  private firstClaimable(rootId: string, actor: TaskActor): TeamTask | string {
    const tasks = this.list(rootId);
    const free = tasks.find(
      (t) => t.status === 'pending' && (t.owner_session_id === null || t.owner_session_id === actor.sessionId) && this.openBlockers(rootId, t).length === 0,
    );
    if (free) return free;
    if (tasks.length === 0) return 'The task list is empty: there is nothing to claim.';
    const pending = tasks.filter((t) => t.status === 'pending');
    if (pending.length === 0) return `No task is pending: ${countOf(tasks, 'in_progress')} in progress, ${countOf(tasks, 'completed')} completed.`;
    const reasons = pending.map((t) => {
      const open = this.openBlockers(rootId, t);
      return open.length ? `${t.id} is blocked by ${describeIds(open)}` : `${t.id} is assigned to ${t.owner}`;
    });
    return `No pending task is free to claim: ${reasons.join('; ')}.`;
  }

  /** The dependencies as given, deduplicated, or why they cannot be: an unknown id, the task itself, a cycle. */
  private checkBlockers(rootId: string, taskId: string | undefined, ids: readonly string[]): string[] | string {
    const wanted = [...new Set(ids)];
    for (const id of wanted) {
      if (id === taskId) return `Task ${id} cannot be blocked by itself.`;
      if (!this.get(rootId, id)) return `blocked_by names task "${id}", which does not exist; ${this.known(rootId)}`;
    }
    if (taskId !== undefined) {
      // A cycle closes when the task is reachable from one of its new blockers.
      const cycle = this.pathTo(rootId, wanted, taskId);
      if (cycle) return `blocked_by would make a cycle: ${[taskId, ...cycle].join(' → ')}; no task of a cycle could ever start.`;
    }
    return wanted;
  }

  /** A chain of blocked_by links from one of `from` to `target`, if any (depth-first). */
  private pathTo(rootId: string, from: readonly string[], target: string): string[] | undefined {
    const seen = new Set<string>();
    const visit = (id: string): string[] | undefined => {
      if (id === target) return [id];
      if (seen.has(id)) return undefined;
      seen.add(id);
      for (const next of this.get(rootId, id)?.blocked_by ?? []) {
        const rest = visit(next);
        if (rest) return [id, ...rest];
      }
      return undefined;
    };
    for (const id of from) {
      const found = visit(id);
      if (found) return found;
    }
    return undefined;
  }

  private unknown(rootId: string, id: string): string {
    return `There is no task "${id}"; ${this.known(rootId)}`;
  }

  private known(rootId: string): string {
    const ids = this.list(rootId).map((t) => t.id);
    return ids.length ? `the tasks are ${describeIds(ids)} (task_list list shows them).` : 'the task list is empty.';
  }

  private save(rootId: string, task: TeamTask): TaskResult {
    this.stmt.write.run({
      root_id: rootId,
      id: task.id,
      title: task.title,
      description: task.description,
      status: task.status,
      owner: task.owner,
      owner_session_id: task.owner_session_id,
      blocked_by: JSON.stringify(task.blocked_by),
      result: task.result,
      now: Date.now(),
    });
    return { ok: true, task: this.get(rootId, task.id)!, changed: true };
  }

  /** One IMMEDIATE transaction: the write lock is held from the first read, across processes. */
  private write<T>(run: () => T): T {
    return this.db.transaction(run).immediate();
  }
}

function toTask(raw: RawTask): TeamTask {
  return {
    id: raw.id,
    title: raw.title,
    description: raw.description,
    status: raw.status === CREATING ? 'pending' : raw.status,
    owner: raw.owner,
    owner_session_id: raw.owner_session_id,
    blocked_by: parseIds(raw.blocked_by),
    result: raw.result,
    created_by: raw.created_by,
    created_at: raw.created_at,
    updated_at: raw.updated_at,
  };
}

function parseIds(json: string): string[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

function sameTask(a: TeamTask, b: TeamTask): boolean {
  return (
    a.title === b.title &&
    a.description === b.description &&
    a.status === b.status &&
    a.owner === b.owner &&
    a.owner_session_id === b.owner_session_id &&
    a.result === b.result &&
    a.blocked_by.join(',') === b.blocked_by.join(',')
  );
}

function countOf(tasks: readonly TeamTask[], status: TeamTaskStatus): number {
  return tasks.filter((t) => t.status === status).length;
}

/** `1`, `1 and 2`, `1, 2 and 3`. */
export function describeIds(ids: readonly string[]): string {
  if (ids.length <= 1) return ids.join('');
  return `${ids.slice(0, -1).join(', ')} and ${ids[ids.length - 1]}`;
}
