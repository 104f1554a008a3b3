// Sessions and their messages in SQLite. Every finished message is written in its own
// transaction together with the session's running totals, so a crash loses at most the
// message being streamed and totals never disagree with the messages they count.
//
// Several processes (TUIs, `run`s, their sub-agents) share one file. Every write is an
// IMMEDIATE transaction (it takes the write lock up front, so the busy timeout applies;
// a deferred read that upgrades to a write fails at once in WAL mode), opening retries
// while another process holds the lock, and a session is written by one process at a
// time (lease.ts).
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { RunError, errorMessage } from '../errors.js';
import { securePrivateDataDir, SESSIONS_DB } from '../private-files.js';
import type { SessionStatus } from '../events.js';
import { newId } from '../ids.js';
import { interruptedResult, unansweredToolUses } from '../agent/history.js';
import { totalInputTokens, type Message, type Usage } from '../messages.js';
import type { Todo } from '../tools/types.js';
import { processAlive, SessionLeases } from './lease.js';
import { migrate } from './schema.js';
import { BlobStore } from './blobs.js';
import { sqliteAddonFile } from './native-addon.js';
import { TeamTaskStore } from '../team/task-store.js';
import { TeamMemberStore } from '../team/member-store.js';

export { busyMessage, LEASE_TTL_MS, SessionBusyError, SessionLeases, type LeaseHolder } from './lease.js';

/** Half of SQLite's auto-checkpoint size (1,000 pages of 4 KiB): see releaseForExit. */
const EXIT_CHECKPOINT_WAL_BYTES = 2 * 1024 * 1024;

/**
 * An object whose every property is made by its function on first read and kept: the
 * values of `makers`, each computed at most once.
 */
function lazily<T extends Record<string, () => unknown>>(makers: T): { readonly [K in keyof T]: ReturnType<T[K]> } {
  const made: Partial<Record<keyof T, unknown>> = {};
  const out = {} as { [K in keyof T]: ReturnType<T[K]> };
  for (const key of Object.keys(makers) as (keyof T)[]) {
    Object.defineProperty(out, key, {
      enumerable: true,
      get: () => {
        if (!(key in made)) made[key] = makers[key]!();
        return made[key];
      },
    });
  }
  return out;
}

/** How long one statement waits for another process's write lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 10_000;
/** How long opening keeps retrying while another process holds the file (e.g. migrating). */
const OPEN_DEADLINE_MS = 30_000;

export interface SessionRow {
  id: string;
  parent_id: string | null;
  agent: string;
  title: string;
  task_description: string | null;
  tool_call_id: string | null;
  status: SessionStatus;
  model: string;
  cwd: string;
  depth: number;
  /** Every input token the model read for this session: uncached, cache writes and cache reads. */
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost: number;
  error: string | null;
  owner_pid: number | null;
  created_at: number;
  updated_at: number;
  /** A sub-agent's ad-hoc identity (`task.system_prompt`) in place of its agent's prompt. */
  system_prompt: string | null;
  /** Snapshots of the project's files when the session first started and when it last ended (DESIGN §18). */
  snapshot_start: string | null;
  snapshot_end: string | null;
  /** When the start snapshot began and the end snapshot was done (ms): the window other sessions' changes are checked against. */
  snapshot_start_at: number | null;
  snapshot_end_at: number | null;
}

/** How a session changed a file: a file tool's write, a command (snapshots around it), or its worktree merged back. */
export type FileChangeSource = 'tool' | 'command' | 'merge';

/** One record of a session changing a project file, at a moment (tool, merge) or during an interval (command). */
export interface FileChangeRow {
  session_id: string;
  /** The project's key (checkpoints/shadow-repo.ts `projectKey`): records of other projects never mix. */
  project: string;
  /** Relative to the project's top folder, `/`-separated. */
  path: string;
  from_at: number;
  to_at: number;
  source: FileChangeSource;
}

/** A session with its totals including every descendant sub-agent session. */
export interface SessionSummary extends SessionRow {
  total_cost: number;
  total_tokens: number;
}

export interface SessionTotals {
  total_cost: number;
  total_tokens: number;
  input_tokens: number;
  output_tokens: number;
}

export interface SessionTree {
  session: SessionSummary;
  children: SessionTree[];
}

export interface MessageRow {
  id: string;
  session_id: string;
  seq: number;
  role: Message['role'];
  content: Message['content'];
  input_tokens: number | null;
  output_tokens: number | null;
  cost: number | null;
  created_at: number;
  /** A prompt the user sent (what undo and rewind step back over), not a tool result or a background report. */
  prompt: boolean;
  /** A prompt's snapshots of the project's files: before it was sent, and when its turn ended. */
  snapshot_before: string | null;
  snapshot_after: string | null;
  /** Undone (undo, rewind): kept and shown, but no longer part of the conversation the model sees. */
  undone: boolean;
  /** Undone, and no prompt sent since: redo can still bring it back. */
  redoable: boolean;
}

/** How a message is recorded besides its content: a user's prompt and the snapshot taken before it. */
export interface MessageMarks {
  prompt?: { snapshot: string | null };
}

export interface NewSession {
  agent: string;
  title: string;
  status: SessionStatus;
  model: string;
  cwd: string;
  depth: number;
  parent_id?: string | null;
  task_description?: string | null;
  tool_call_id?: string | null;
  system_prompt?: string | null;
}

export type SessionUpdate = Partial<Pick<SessionRow, 'status' | 'title' | 'model' | 'error' | 'agent' | 'system_prompt'>>;

interface RawMessageRow extends Omit<MessageRow, 'content' | 'prompt' | 'undone' | 'redoable'> {
  content: string;
  prompt: number;
  undone: number;
}

const DESCENDANTS = `
  WITH RECURSIVE sub(id) AS (
    SELECT id FROM sessions WHERE id = @id
    UNION ALL
    SELECT s.id FROM sessions s JOIN sub ON s.parent_id = sub.id
  )`;

/** A request a permission mode or a skill's `allowed-tools` let run without asking anyone (`permission.auto`). */
export interface AutoApprovalRow {
  session_id: string;
  at: number;
  mode: string;
  tool: string;
  permission: string;
  /** The first line of what the request would have shown: the command, the file, the URL. */
  subject: string;
  call_id: string | null;
  /** The skill whose `allowed-tools` let it run; null when the mode did. */
  skill: string | null;
}

export type SessionIdMatch = { kind: 'found'; id: string } | { kind: 'ambiguous'; ids: string[] } | { kind: 'none' };

export class SessionStore {
  readonly file: string;
  /** This store's writer leases on sessions (one owner per store instance). */
  readonly leases: SessionLeases;
  /** The images messages refer to, beside the database (an in-memory store's in a per-user temp folder). */
  readonly blobs: BlobStore;
  private readonly db: Database.Database;
  private readonly stmt: ReturnType<SessionStore['prepare']>;
  /** updateSession's statements, one per set of columns (a handful in all), prepared once each. */
  private readonly updates = new Map<string, Database.Statement>();
  private tasks: TeamTaskStore | undefined;
  private members: TeamMemberStore | undefined;

  /**
   * Runs `body` in an IMMEDIATE transaction (see the top of this file). One transaction
   * function for every write: better-sqlite3 builds five wrappers at each `transaction()`
   * call, ~40 µs a write early in a process, and a fan-out writes a few hundred times.
   */
  private readonly immediate: <T>(body: () => T) => T;

  private constructor(file: string, db: Database.Database) {
    this.file = file;
    this.db = db;
    const transaction = db.transaction((body: () => unknown) => body());
    // The wrapper returns what `body` returns.
    this.immediate = <T>(body: () => T) => transaction.immediate(body) as T;
    this.stmt = this.prepare();
    this.leases = new SessionLeases(db);
    this.blobs = new BlobStore(
      file === ':memory:' ? join(tmpdir(), `opencode-ink-${process.getuid?.() ?? 'user'}`, 'blobs') : join(dirname(file), 'blobs'),
    );
  }

  /**
   * Opens (creating if needed) `<dataDir>/sessions.db`, or `:memory:` for throwaway stores.
   * While another process holds the file's lock (creating it, migrating), this waits and
   * retries rather than failing.
   */
  static open(dataDir: string | ':memory:'): SessionStore {
    const file = dataDir === ':memory:' ? ':memory:' : join(dataDir, SESSIONS_DB);
    const deadline = Date.now() + OPEN_DEADLINE_MS;
    for (let attempt = 0; ; attempt++) {
      let db: Database.Database | undefined;
      try {
        // Every conversation is in there: 0700 and 0600 whatever the umask (private-files.ts).
        if (dataDir !== ':memory:') securePrivateDataDir(dataDir);
        // The busy timeout is set by the constructor, before any statement runs.
        const nativeBinding = sqliteAddonFile();
        db = new Database(file, { timeout: BUSY_TIMEOUT_MS, ...(nativeBinding ? { nativeBinding } : {}) });
        // Switching to WAL needs an exclusive lock: only ask when the file is not in WAL yet.
        if (file !== ':memory:' && String(db.pragma('journal_mode', { simple: true })) !== 'wal') db.pragma('journal_mode = WAL');
        // One call for both (each pragma() call prepares a statement of its own).
        db.exec('PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;');
        migrate(db, file);
        return new SessionStore(file, db);
      } catch (err) {
        db?.close();
        if (isBusy(err) && Date.now() < deadline) {
          sleepSync(Math.min(25 * 2 ** attempt, 500));
          continue;
        }
        throw new RunError(`Cannot open the session store ${file}: ${errorMessage(err)}`);
      }
    }
  }

  private lastNow = 0;

  /** Strictly increasing timestamps, so "most recent" is never a tie within one process. */
  private now(): number {
    this.lastNow = Math.max(Date.now(), this.lastNow + 1);
    return this.lastNow;
  }

  private prepare() {
    const db = this.db;
    // Prepared on first use: a command runs a few of these, and each costs a parse by SQLite.
    return lazily({
      insertSession: () => db.prepare(`
        INSERT INTO sessions (id, parent_id, agent, title, task_description, tool_call_id, status, model, cwd, depth, owner_pid, system_prompt, created_at, updated_at)
        VALUES (@id, @parent_id, @agent, @title, @task_description, @tool_call_id, @status, @model, @cwd, @depth, @owner_pid, @system_prompt, @now, @now)`),
      getSession: () => db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE id = ?'),
      // Ids sharing a prefix sort together right after it, so two rows from the index decide uniqueness.
      idsFrom: () => db.prepare<[string], { id: string }>('SELECT id FROM sessions WHERE id >= ? ORDER BY id LIMIT 2'),
      children: () => db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE parent_id = ? ORDER BY id'),
      nextSeq: () => db.prepare<[string], { next: number }>('SELECT COALESCE(MAX(seq), -1) + 1 AS next FROM messages WHERE session_id = ?'),
      insertMessage: () => db.prepare(`
        INSERT INTO messages (id, session_id, seq, role, content, input_tokens, output_tokens, cost, created_at, prompt, snapshot_before, snapshot_after, undone)
        VALUES (@id, @session_id, @seq, @role, @content, @input_tokens, @output_tokens, @cost, @created_at, @prompt, @snapshot_before, @snapshot_after, @undone)`),
      // A new prompt after an undo: what was undone can no longer be redone, and stays undone for good.
      dropRedo: () => db.prepare("UPDATE messages SET undone = 2 WHERE session_id = ? AND undone = 1"),
      setAfter: () => db.prepare('UPDATE messages SET snapshot_after = @snapshot WHERE id = @id'),
      setBefore: () => db.prepare('UPDATE messages SET snapshot_before = @snapshot WHERE id = @id'),
      clearSnapshots: () => db.prepare('UPDATE sessions SET snapshot_start = NULL, snapshot_start_at = NULL, snapshot_end = NULL, snapshot_end_at = NULL WHERE id = @id'),
      setUndone: () => db.prepare('UPDATE messages SET undone = @undone WHERE session_id = @session_id AND seq >= @from AND seq < @to AND undone != 2'),
      // The first start and its moment stay together: a resumed session keeps both.
      setStart: () => db.prepare(`
        UPDATE sessions SET snapshot_start_at = CASE WHEN snapshot_start IS NULL THEN @at ELSE snapshot_start_at END,
          snapshot_start = COALESCE(snapshot_start, @snapshot) WHERE id = @id`),
      setEnd: () => db.prepare('UPDATE sessions SET snapshot_end = @snapshot, snapshot_end_at = @at WHERE id = @id'),
      insertFileChange: () => db.prepare(
        'INSERT INTO file_changes (session_id, project, path, from_at, to_at, source) VALUES (@session_id, @project, @path, @from_at, @to_at, @source)',
      ),
      fileChangesOverlapping: () => db.prepare<{ project: string; from: number; to: number }, FileChangeRow>(
        'SELECT * FROM file_changes WHERE project = @project AND to_at >= @from AND from_at <= @to ORDER BY from_at, rowid',
      ),
      descendants: () => db.prepare<{ id: string }, { id: string }>(`${DESCENDANTS} SELECT id FROM sub`),
      deleteFileChanges: () => db.prepare('DELETE FROM file_changes WHERE session_id = ?'),
      addUsage: () => db.prepare(`
        UPDATE sessions SET input_tokens = input_tokens + @input, output_tokens = output_tokens + @output,
          cache_read_tokens = cache_read_tokens + @cache_read, cache_write_tokens = cache_write_tokens + @cache_write,
          cost = cost + @cost, updated_at = @now WHERE id = @id`),
      touch: () => db.prepare('UPDATE sessions SET updated_at = @now WHERE id = @id'),
      messages: () => db.prepare<[string], RawMessageRow>('SELECT * FROM messages WHERE session_id = ? ORDER BY seq'),
      totals: () => db.prepare<{ id: string }, SessionTotals>(`${DESCENDANTS}
        SELECT COALESCE(SUM(cost), 0) AS total_cost, COALESCE(SUM(input_tokens + output_tokens), 0) AS total_tokens,
               COALESCE(SUM(input_tokens), 0) AS input_tokens, COALESCE(SUM(output_tokens), 0) AS output_tokens
        FROM sessions WHERE id IN (SELECT id FROM sub)`),
      roots: () => db.prepare<[], SessionRow>('SELECT * FROM sessions WHERE parent_id IS NULL ORDER BY updated_at DESC, id DESC'),
      mostRecentRoot: () => db.prepare<[string], SessionRow>(
        'SELECT * FROM sessions WHERE parent_id IS NULL AND cwd = ? ORDER BY updated_at DESC, id DESC LIMIT 1',
      ),
      // Totals of every session over its whole subtree, in one pass, for listings.
      allTotals: () => db.prepare<[], { id: string; total_cost: number; total_tokens: number }>(`
        WITH RECURSIVE anc(id, sid) AS (
          SELECT id, id FROM sessions
          UNION ALL
          SELECT s.parent_id, anc.sid FROM anc JOIN sessions s ON s.id = anc.id WHERE s.parent_id IS NOT NULL
        )
        SELECT anc.id AS id, SUM(s.cost) AS total_cost, SUM(s.input_tokens + s.output_tokens) AS total_tokens
        FROM anc JOIN sessions s ON s.id = anc.sid GROUP BY anc.id`),
      all: () => db.prepare<[], SessionRow>('SELECT * FROM sessions ORDER BY id'),
      running: () => db.prepare<[], Pick<SessionRow, 'id' | 'owner_pid'>>(
        "SELECT id, owner_pid FROM sessions WHERE status IN ('running', 'queued')",
      ),
      // A root nobody ever prompted: no message and no sub-agent session under it.
      emptyRoots: () => db.prepare<[], Pick<SessionRow, 'id'>>(`
        SELECT id FROM sessions s WHERE parent_id IS NULL
          AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id)
          AND NOT EXISTS (SELECT 1 FROM sessions c WHERE c.parent_id = s.id)`),
      insertAuto: () => db.prepare(
        'INSERT INTO permission_auto (session_id, at, mode, tool, permission, subject, call_id, skill) VALUES (@session_id, @at, @mode, @tool, @permission, @subject, @call_id, @skill)',
      ),
      autos: () => db.prepare<[string], AutoApprovalRow>('SELECT session_id, at, mode, tool, permission, subject, call_id, skill FROM permission_auto WHERE session_id = ? ORDER BY at, rowid'),
      insertSkill: () => db.prepare('INSERT OR IGNORE INTO session_skills (session_id, name, started_at) VALUES (@session_id, @name, @at)'),
      skills: () => db.prepare<[string], { name: string }>('SELECT name FROM session_skills WHERE session_id = ? ORDER BY started_at, rowid'),
      deleteTodos: () => db.prepare('DELETE FROM todos WHERE session_id = ?'),
      deleteLease: () => db.prepare('DELETE FROM leases WHERE session_id = ?'),
      deleteSession: () => db.prepare('DELETE FROM sessions WHERE id = ?'),
      interrupt: () => db.prepare("UPDATE sessions SET status = 'interrupted', owner_pid = NULL, updated_at = @now WHERE id = @id"),
      getTodos: () => db.prepare<[string], { items: string }>('SELECT items FROM todos WHERE session_id = ?'),
      setTodos: () => db.prepare(`
        INSERT INTO todos (session_id, items, updated_at) VALUES (@id, @items, @now)
        ON CONFLICT(session_id) DO UPDATE SET items = excluded.items, updated_at = excluded.updated_at`),
    });
  }

  /** Creates a session leased by this store: no other process writes it while this one runs. */
  createSession(fields: NewSession): SessionRow {
    const id = newId('ses');
    this.immediate(() => this.insertSession(id, fields));
    return this.getSession(id)!;
  }

  private insertSession(id: string, fields: NewSession): void {
    this.stmt.insertSession.run({
      id,
      parent_id: fields.parent_id ?? null,
      agent: fields.agent,
      title: fields.title,
      task_description: fields.task_description ?? null,
      tool_call_id: fields.tool_call_id ?? null,
      status: fields.status,
      model: fields.model,
      cwd: fields.cwd,
      depth: fields.depth,
      owner_pid: isLive(fields.status) ? process.pid : null,
      system_prompt: fields.system_prompt ?? null,
      now: this.now(),
    });
    this.leases.take(id);
  }

  getSession(id: string): SessionRow | undefined {
    return this.stmt.getSession.get(id);
  }

  /**
   * A session named by its full id or a unique prefix of it (like git), with or without the
   * `ses_` prefix: `found`, `ambiguous` (two of the matches named) or `none`.
   */
  resolveSessionId(text: string): SessionIdMatch {
    if (text === '') return { kind: 'none' };
    if (this.getSession(text)) return { kind: 'found', id: text };
    for (const prefix of text.includes('_') ? [text] : [text, `ses_${text}`]) {
      const ids = this.stmt.idsFrom.all(prefix).map((row) => row.id).filter((id) => id.startsWith(prefix));
      if (ids.length === 1) return { kind: 'found', id: ids[0]! };
      if (ids.length > 1) return { kind: 'ambiguous', ids };
    }
    return { kind: 'none' };
  }

  updateSession(id: string, update: SessionUpdate): void {
    const sets: string[] = ['updated_at = @now'];
    const params: Record<string, unknown> = { id, now: this.now() };
    for (const key of ['status', 'title', 'model', 'error', 'agent', 'system_prompt'] as const) {
      if (update[key] !== undefined) {
        sets.push(`${key} = @${key}`);
        params[key] = update[key];
      }
    }
    // The owner pid is what lets the next start tell a crashed run from a live one.
    if (update.status !== undefined) {
      sets.push('owner_pid = @owner_pid');
      params.owner_pid = isLive(update.status) ? process.pid : null;
    }
    const sql = `UPDATE sessions SET ${sets.join(', ')} WHERE id = @id`;
    let statement = this.updates.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.updates.set(sql, statement);
    }
    this.immediate(() => statement.run(params));
  }

  /**
   * Appends a finished message and adds its usage to the session, atomically. Refuses a
   * session another live process holds the lease on, so two writers never interleave.
   */
  appendMessage(sessionId: string, message: Message, usage?: { usage: Usage; cost: number }, marks?: MessageMarks): MessageRow {
    return this.immediate((): MessageRow => {
      this.leases.assertWritable(sessionId);
      // A new prompt ends what redo could bring back, in the same transaction.
      if (marks?.prompt) this.stmt.dropRedo.run(sessionId);
      return this.insertMessage(sessionId, message, usage, marks);
    });
  }

  private insertMessage(sessionId: string, message: Message, usage?: { usage: Usage; cost: number }, marks?: MessageMarks): MessageRow {
    const now = this.now();
    const row: RawMessageRow = {
      prompt: marks?.prompt ? 1 : 0,
      snapshot_before: marks?.prompt?.snapshot ?? null,
      snapshot_after: null,
      undone: 0,
      id: newId('msg'),
      session_id: sessionId,
      seq: this.stmt.nextSeq.get(sessionId)!.next,
      role: message.role,
      content: JSON.stringify(message.content),
      input_tokens: usage ? totalInputTokens(usage.usage) : null,
      output_tokens: usage ? usage.usage.output_tokens : null,
      cost: usage ? usage.cost : null,
      created_at: now,
    };
    this.stmt.insertMessage.run(row);
    if (usage) {
      this.stmt.addUsage.run({
        id: sessionId,
        input: totalInputTokens(usage.usage),
        output: usage.usage.output_tokens,
        cache_read: usage.usage.cache_read_input_tokens,
        cache_write: usage.usage.cache_creation_input_tokens,
        cost: usage.cost,
        now,
      });
    } else {
      this.stmt.touch.run({ id: sessionId, now });
    }
    return toMessageRow(row, message.content);
  }

  /** The conversation as the model sees it: undone messages left out. */
  loadMessages(sessionId: string): Message[] {
    return this.messageRows(sessionId)
      .filter((r) => !r.undone)
      .map((r) => ({ role: r.role, content: r.content }));
  }

  /** Every stored message, undone ones included (marked). */
  messageRows(sessionId: string): MessageRow[] {
    return this.stmt.messages.all(sessionId).map((r) => toMessageRow(r, parseContent(r.content)));
  }

  /** Records the snapshot taken when a prompt's turn ended. */
  setPromptAfter(messageId: string, snapshot: string): void {
    this.immediate(() => this.stmt.setAfter.run({ id: messageId, snapshot }));
  }

  /** Records the snapshot taken before a prompt, when it finished after the prompt was stored. */
  setPromptBefore(messageId: string, snapshot: string): void {
    this.immediate(() => this.stmt.setBefore.run({ id: messageId, snapshot }));
  }

  /**
   * Marks the messages with `from <= seq < to` undone (or brings them back). Messages a new
   * prompt has made final are left as they are.
   */
  setUndone(sessionId: string, range: { from: number; to?: number }, undone: boolean): void {
    const params = { session_id: sessionId, from: range.from, to: range.to ?? Number.MAX_SAFE_INTEGER, undone: undone ? 1 : 0 };
    this.immediate(() => this.stmt.setUndone.run(params));
  }

  /**
   * Records a session's snapshot at its start (the first one only: a resume keeps it) or end,
   * with its moment: for a start, when taking it began; for an end, when it was done.
   */
  setSessionSnapshot(sessionId: string, phase: 'start' | 'end', snapshot: string, at: number): void {
    const statement = phase === 'start' ? this.stmt.setStart : this.stmt.setEnd;
    this.immediate(() => statement.run({ id: sessionId, snapshot, at }));
  }

  /** Forgets a session's start and end snapshots, so the next start recorded is kept. */
  clearSessionSnapshots(sessionId: string): void {
    this.immediate(() => this.stmt.clearSnapshots.run({ id: sessionId }));
  }

  /** Records that a session changed these project files (one row per path). */
  recordFileChanges(change: Omit<FileChangeRow, 'path'>, paths: readonly string[]): void {
    if (paths.length === 0) return;
    this.immediate(() => {
      for (const path of new Set(paths)) this.stmt.insertFileChange.run({ ...change, path });
    });
  }

  /** Records a request a permission mode (DESIGN §26) or a skill's `allowed-tools` let run without asking. */
  recordAutoApproval(row: Omit<AutoApprovalRow, 'at' | 'skill'> & { skill?: string | undefined }): void {
    this.stmt.insertAuto.run({ ...row, skill: row.skill ?? null, at: this.now() });
  }

  /** Records that a skill's `allowed-tools` apply in a session from now on (once per skill). */
  recordSessionSkill(sessionId: string, name: string): void {
    this.stmt.insertSkill.run({ session_id: sessionId, name, at: this.now() });
  }

  /** The skills made active in a session, first started first. */
  sessionSkills(sessionId: string): string[] {
    return this.stmt.skills.all(sessionId).map((row) => row.name);
  }

  /** What ran unasked in a session, oldest first. */
  autoApprovals(sessionId: string): AutoApprovalRow[] {
    return this.stmt.autos.all(sessionId);
  }

  /** Every recorded change to the project's files whose moment or interval overlaps [from, to], oldest first. */
  fileChangesOverlapping(project: string, from: number, to: number): FileChangeRow[] {
    return this.stmt.fileChangesOverlapping.all({ project, from, to });
  }

  /** The session's id and the ids of every session under it. */
  subtreeIds(sessionId: string): string[] {
    return this.stmt.descendants.all({ id: sessionId }).map((r) => r.id);
  }

  children(sessionId: string): SessionRow[] {
    return this.stmt.children.all(sessionId);
  }

  totals(sessionId: string): SessionTotals {
    return this.stmt.totals.get({ id: sessionId })!;
  }

  /** Root sessions, most recently updated first, with totals that include their sub-agents. */
  listRoots(): SessionSummary[] {
    const totals = this.totalsById();
    return this.stmt.roots.all().map((r) => withTotals(r, totals));
  }

  /** Every session: each root (most recent first) followed by its descendants depth-first. */
  listAll(): SessionSummary[] {
    const totals = this.totalsById();
    const byParent = new Map<string, SessionRow[]>();
    for (const row of this.stmt.all.all()) {
      if (!row.parent_id) continue;
      const list = byParent.get(row.parent_id) ?? [];
      list.push(row);
      byParent.set(row.parent_id, list);
    }
    const out: SessionSummary[] = [];
    const visit = (row: SessionRow) => {
      out.push(withTotals(row, totals));
      for (const child of byParent.get(row.id) ?? []) visit(child);
    };
    for (const root of this.stmt.roots.all()) visit(root);
    return out;
  }

  private totalsById(): Map<string, Pick<SessionSummary, 'total_cost' | 'total_tokens'>> {
    return new Map(this.stmt.allTotals.all().map((t) => [t.id, { total_cost: t.total_cost, total_tokens: t.total_tokens }]));
  }

  tree(sessionId: string): SessionTree {
    const root = this.getSession(sessionId);
    if (!root) throw new Error(`No session with id "${sessionId}".`);
    const build = (row: SessionRow): SessionTree => ({
      session: { ...row, ...pickTotals(this.totals(row.id)) },
      children: this.children(row.id).map(build),
    });
    return build(root);
  }

  mostRecentRoot(cwd: string): SessionRow | undefined {
    return this.stmt.mostRecentRoot.get(cwd);
  }

  /**
   * Marks sessions left running or queued by a process that no longer exists as interrupted,
   * and answers the tool calls they left in flight, so the stored history says what happened:
   * an interrupted `task` call names its child session, which the model can resume. Sessions
   * owned or leased by a live process (another window running right now) are left alone.
   */
  markInterrupted(): string[] {
    const marked: string[] = [];
    this.immediate(() => {
      for (const row of this.stmt.running.all()) {
        if (row.owner_pid !== null && row.owner_pid !== process.pid && processAlive(row.owner_pid)) continue;
        if (row.owner_pid === process.pid) continue;
        if (this.leases.otherHolder(row.id)) continue;
        this.stmt.interrupt.run({ id: row.id, now: this.now() });
        this.answerInterruptedCalls(row.id);
        // What it had claimed of its team's task list goes back to pending (DESIGN §24).
        this.teamTasks.releaseHeldBy(row.id);
        // A teammate that was working is failed, not resumed: its turn was cut mid-way (DESIGN §24).
        this.teamMembers.failIfWorking(row.id);
        marked.push(row.id);
      }
    });
    return marked;
  }

  /**
   * Deletes root sessions that were opened and never prompted (the TUI started and quit, a
   * crash before the first message), so they top no listing and `-c` skips them. A session
   * another live process holds (a window open right now, about to be prompted) is left alone.
   * Returns the ids removed.
   */
  removeEmptyRoots(): string[] {
    const removed: string[] = [];
    this.immediate(() => {
      for (const { id } of this.stmt.emptyRoots.all()) {
        if (this.leases.otherHolder(id)) continue;
        this.stmt.deleteTodos.run(id);
        this.stmt.deleteFileChanges.run(id);
        this.stmt.deleteLease.run(id);
        this.stmt.deleteSession.run(id);
        removed.push(id);
      }
    });
    return removed;
  }

  private answerInterruptedCalls(sessionId: string): void {
    const missing = unansweredToolUses(this.loadMessages(sessionId));
    if (missing.length === 0) return;
    const children = new Map(this.children(sessionId).map((c) => [c.tool_call_id, c.id]));
    this.insertMessage(sessionId, { role: 'user', content: missing.map((use) => interruptedResult(use, children.get(use.id))) });
  }

  getTodos(sessionId: string): Todo[] {
    const row = this.stmt.getTodos.get(sessionId);
    if (!row) return [];
    try {
      return JSON.parse(row.items) as Todo[];
    } catch {
      return [];
    }
  }

  setTodos(sessionId: string, todos: Todo[]): void {
    const params = { id: sessionId, items: JSON.stringify(todos), now: this.now() };
    this.immediate(() => this.stmt.setTodos.run(params));
  }

  /** The teams' shared task lists (DESIGN §24), in this file; prepared the first time a list is used. */
  get teamTasks(): TeamTaskStore {
    this.tasks ??= new TeamTaskStore(this.db);
    return this.tasks;
  }

  /** Teammates and their messages (DESIGN §24); prepared the first time a team is used. */
  get teamMembers(): TeamMemberStore {
    this.members ??= new TeamMemberStore(this.db);
    return this.members;
  }

  /** Releases this store's leases and closes the file. */
  close(): void {
    if (!this.db.open) return;
    this.leases.releaseAll();
    this.db.close();
  }

  /**
   * close() for a process that exits next (the CLI once its command is done): releases this
   * store's leases, as close() does, and leaves the file's handle to the exit. Closing the last
   * connection to the file makes SQLite copy the WAL into the database and fsync both (2–9 ms
   * on every exit, the slowest step after the answer); without it the WAL stays beside the
   * database, as after any exit without a close, and the next process to open the file reads
   * it back (~1 ms for a full WAL). Nothing committed is lost: every transaction is in the WAL
   * when its commit returns.
   *
   * A WAL past half of SQLite's auto-checkpoint size (1,000 pages) is copied all the same: left
   * to grow, it would be copied by whichever later commit took it past that size, a pause in
   * the middle of a run (10–20 ms while a fan-out's children start) instead of at an exit,
   * and every start would read more of it back. So a one-reply run (~110 KB of WAL) checkpoints
   * at one exit in about eighteen, a fan-out of ten sub-agents (~1 MB) at one in three.
   */
  releaseForExit(): void {
    if (!this.db.open) return;
    if (this.walBytes() >= EXIT_CHECKPOINT_WAL_BYTES) {
      this.close();
      return;
    }
    this.leases.releaseAll();
  }

  /**
   * The WAL file's size: what was written since the last checkpoint when the last close
   * removed the file, more when SQLite reused a longer one (then the exit checkpoints, as
   * before). Zero when there is none.
   */
  private walBytes(): number {
    if (this.file === ':memory:') return 0;
    try {
      return statSync(`${this.file}-wal`).size;
    } catch {
      return 0;
    }
  }

}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** Opening is synchronous (the CLI needs the store before anything else), so is its back-off. */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function isLive(status: SessionStatus): boolean {
  return status === 'running' || status === 'queued';
}

function parseContent(json: string): Message['content'] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? (parsed as Message['content']) : [];
  } catch {
    return [{ type: 'text', text: '[unreadable message]' }];
  }
}

function toMessageRow(raw: RawMessageRow, content: Message['content']): MessageRow {
  return { ...raw, content, prompt: raw.prompt === 1, undone: raw.undone !== 0, redoable: raw.undone === 1 };
}

function pickTotals(t: SessionTotals): Pick<SessionSummary, 'total_cost' | 'total_tokens'> {
  return { total_cost: t.total_cost, total_tokens: t.total_tokens };
}

function withTotals(row: SessionRow, totals: Map<string, Pick<SessionSummary, 'total_cost' | 'total_tokens'>>): SessionSummary {
  return { ...row, ...(totals.get(row.id) ?? { total_cost: row.cost, total_tokens: row.input_tokens + row.output_tokens }) };
}
