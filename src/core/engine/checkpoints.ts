/*
 * Undo, redo, rewind and per-session revert (DESIGN §18), on top of the shadow repository.
 *
 * Contract
 * - `snapshot()` records the project's files and answers the snapshot id, or null when
 *   checkpoints are off or cannot be taken (no git: told once through `onWarning`). It never
 *   throws: a snapshot that fails is a warning, not a failed prompt. A snapshot past its
 *   deadline (shadow-repo.ts) is skipped: the prompt's own snapshot (`{ prompt: true }`) says
 *   "Undo is not available for this prompt: <why>" once for that prompt; other snapshots say
 *   it once per cause. A snapshot cancelled through `signal` (Esc while a prompt is being
 *   prepared) answers null and says nothing.
 * - A prompt's snapshot "before" is stored with its message (the engine passes it to the turn);
 *   `promptEnded` stores the snapshot "after" on the newest prompt once its turn is over. A
 *   sub-agent's start and end snapshots are stored on its session (`sessionSnapshot`).
 * - `undo` = `rewind(last prompt not undone, 'both')`. `rewind` restores the files from the
 *   state the last turn left (its "after") to the chosen prompt's "before", three-way against
 *   the disk (restore.ts), and/or marks that prompt and everything after it undone. `redo`
 *   brings back the earliest prompt the last undos took (files from its "before" to its
 *   "after", three-way), until a new prompt is sent. `revertSession` moves the files from a
 *   session's end snapshot to its start snapshot; `sessionDiff` prints that change, and
 *   `sessionChanges` gives it as typed per-file hunks.
 * - Per session, what it changed is its window between the two snapshots, kept to the files
 *   it (or a descendant) recorded changing (./change-attribution.ts): a revert leaves the
 *   files of other sessions and of the user alone, and a file another session changed too in
 *   that window is left as it is and named (`left_alone`).
 * - A sub-agent's diff stat is computed when its end snapshot is stored, and announced with
 *   `session.diff_stat`; `sessionDiffStat` answers it from a cache once it can no longer
 *   change, computing it the first time for a session loaded from the store (`-c`, `-r`).
 * - With any overlap nothing changes (files or conversation) and an UndoConflictError names
 *   the files (exit code 1). Every change emits `session.reverted`.
 */
import { join } from 'node:path';
import { diffBetween, diffStat, NO_GIT_NOTICE, projectKey, restoreFiles, ShadowRepo, SnapshotTimeout, type DiffStat, type FileDiff } from '../checkpoints/index.js';
import { GitError } from '../workspace/git.js';
import type { CheckpointSettings } from '../config/schema.js';
import { ConfigError, errorMessage, UserFacingError } from '../errors.js';
import type { EventPayloads, EventType } from '../events.js';
import { textOf } from '../messages.js';
import type { MessageRow, SessionRow, SessionStore } from '../store/index.js';
import { ChangeAttribution, type ChangeScope, type SharedFile, type WatchedSession } from './change-attribution.js';
import { SnapshotTiming } from './snapshot-timing.js';

export type { SharedFile, WatchedSession };

/**
 * Git's empty tree: a sub-agent that changed nothing has it as both its start and its end
 * snapshot, so its diff is empty without a snapshot having been taken.
 */
export const UNCHANGED_SNAPSHOT = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/**
 * A prompt's "before" and "after" when its turn could change no file, so no snapshot was taken:
 * undo and the session's diff step over it. Not a git object id, so no real snapshot (not even
 * an empty project's, which is git's empty tree) is ever taken for it.
 */
export const TURN_CHANGED_NOTHING = 'unchanged';

/** Restoring would overwrite changes made since: nothing was changed (exit code 1). */
export class UndoConflictError extends UserFacingError {
  constructor(readonly files: readonly string[]) {
    super(
      `Nothing was restored: ${files.join(', ')} changed since the agent changed ${files.length === 1 ? 'it' : 'them'}, and the changes overlap. Resolve it by hand, or undo those edits first.`,
      1,
    );
  }
}

/** One prompt of a session, for `/rewind` and ACP clients. */
export interface PromptEntry {
  message_id: string;
  seq: number;
  text: string;
  created_at: number;
  undone: boolean;
  redoable: boolean;
  /** Whether its files can be restored (a snapshot was taken before it). */
  has_snapshot: boolean;
}

export type RewindMode = 'both' | 'conversation' | 'code';

/** What an undo, redo, rewind or revert did. */
export interface RevertOutcome {
  /** Project files written or removed. */
  files: string[];
  hidden_message_ids: string[];
  restored_message_ids: string[];
  /** The prompt stepped back over (undo, rewind) or re-applied (redo): its text goes back in the input. */
  prompt?: PromptEntry;
  /** A sub-agent's revert: files it changed that another session also changed while it ran, left as they are. */
  left_alone?: SharedFile[];
}

export interface CheckpointDeps {
  store: SessionStore;
  settings: CheckpointSettings;
  /** The project's top folder: what is snapshotted. */
  projectRoot: string;
  /** Where the shadow repositories live (`<data dir>/snapshots`). */
  snapshotsRoot: string;
  isRunning: (sessionId: string) => boolean;
  /** Whether a session other than this one is running a turn in this engine. */
  othersRunning: (sessionId: string) => boolean;
  /** Drops a session's in-memory history so its next turn reads the store again. */
  forget: (sessionId: string) => void;
  warn: (line: string) => void;
  emitFor: <K extends EventType>(sessionId: string, agent: string, path: readonly string[], type: K, payload: EventPayloads[K]) => void;
}

export class Checkpoints {
  private readonly repo: ShadowRepo;
  private unavailable: string | undefined;
  /** Deadline notices already given (see the module comment). */
  private readonly toldTimeouts = new Set<string>();
  /** Diff stats by `start..end` snapshot pair: a finished session's never changes. */
  private readonly stats = new Map<string, Promise<DiffStat>>();
  private readonly attribution: ChangeAttribution;
  private readonly timing: SnapshotTiming;

  constructor(private readonly deps: CheckpointDeps) {
    this.repo = new ShadowRepo({
      root: deps.snapshotsRoot,
      project: deps.projectRoot,
      maxFileMb: deps.settings.max_file_mb,
      onSkipped: deps.warn,
      onUnavailable: (line) => {
        this.unavailable = line;
        deps.warn(line);
      },
    });
    this.attribution = new ChangeAttribution({
      store: deps.store,
      projectRoot: deps.projectRoot,
      projectKey: projectKey(this.repo.project),
      enabled: () => deps.settings.enabled && this.unavailable === undefined,
      snapshot: () => this.snapshot(),
      changedPaths: async (from, to) => (await this.repo.changes(from, to)).map((c) => c.path),
      othersRunning: deps.othersRunning,
      warn: deps.warn,
    });
    this.timing = new SnapshotTiming({
      snapshot: (opts) => this.snapshot(opts),
      setPromptBefore: (messageId, snapshot) => deps.store.setPromptBefore(messageId, snapshot),
      setSessionStart: (sessionId, snapshot, at) => deps.store.setSessionSnapshot(sessionId, 'start', snapshot, at),
      warn: deps.warn,
    });
  }

  private get active(): boolean {
    return this.deps.settings.enabled && this.unavailable === undefined;
  }

  /** Notes a prompt about to be sent; its "before" snapshot waits until a change may follow (snapshot-timing.ts). */
  promptStarted(sessionId: string): void {
    if (this.active) this.timing.promptStarted(sessionId);
  }

  /** The model began writing a call to a tool that can change files: the root prompt's "before" snapshot starts now. */
  mayChange(session: { id: string; cwd: string }): void {
    if (!this.active || !this.attribution.covers(session.cwd)) return;
    let root: string | undefined;
    try {
      root = this.pathOf(this.session(session.id))[0];
    } catch {
      return; // The change itself (beforeChange) says what is wrong.
    }
    if (root !== undefined) this.timing.promptMayChange(root);
  }

  /** The prompt's message is stored: its "before" snapshot is written on it once taken. */
  promptStored(sessionId: string, messageId: string): void {
    this.timing.promptStored(sessionId, messageId);
  }

  /** Esc: a prompt's "before" snapshot still being taken is given up. */
  cancelPrompt(sessionId: string): void {
    this.timing.cancelPrompt(sessionId);
  }

  cancelAll(): void {
    this.timing.cancelAll();
  }

  /** Resolves once no snapshot is being taken, cancelled ones included (see ShadowRepo.idle). */
  settled(): Promise<void> {
    return this.repo.idle();
  }

  /**
   * Resolves once the snapshots that must exist before this session changes the project's
   * files do (its prompt's "before", its and its running ancestors' start). A session working
   * outside the project (an isolated child's worktree) needs none. Never rejects.
   */
  async beforeChange(session: { id: string; cwd: string }): Promise<void> {
    if (!this.deps.settings.enabled || !this.attribution.covers(session.cwd)) return;
    await this.beforeProjectChange(session.id);
  }

  /** As `beforeChange`, for a change of the project's files made on the session's behalf (an isolated child's merge). */
  async beforeProjectChange(sessionId: string): Promise<void> {
    if (!this.deps.settings.enabled) return;
    let path: string[];
    try {
      path = this.pathOf(this.session(sessionId));
    } catch (err) {
      this.deps.warn(`Could not snapshot the project's files before session ${sessionId} changed them: ${errorMessage(err)}`);
      return;
    }
    await this.timing.beforeChange(path);
  }

  /** A file tool of the session replaced this file (its real path). */
  wrote(sessionId: string, realPath: string): void {
    this.attribution.wrote(sessionId, realPath);
  }

  /** An isolated child's work was merged into the project: `files` relative to the repository's top level. */
  merged(sessionId: string, topLevel: string, files: readonly string[], fromAt: number): void {
    this.attribution.merged(sessionId, topLevel, files, fromAt);
  }

  /** Runs a tool that may change files without saying which, noting which ones it did when others may be changing files too. */
  watch<T>(session: WatchedSession, run: () => Promise<T>): Promise<T> {
    return this.attribution.around(session, run);
  }

  /** The project's files now, as a snapshot id; null when checkpoints are off, unavailable, too slow or cancelled. */
  async snapshot(opts: { signal?: AbortSignal; prompt?: boolean } = {}): Promise<string | null> {
    if (!this.deps.settings.enabled) return null;
    try {
      return (await this.repo.snapshot(opts.signal)) ?? null;
    } catch (err) {
      if (err instanceof GitError && err.failure === 'aborted') return null;
      if (err instanceof SnapshotTimeout) {
        if (opts.prompt) this.deps.warn(`Undo is not available for this prompt: ${err.message}.`);
        else if (!this.toldTimeouts.has(err.message)) this.deps.warn(`Undo may miss changes: ${err.message}.`);
        this.toldTimeouts.add(err.message);
        return null;
      }
      this.deps.warn(`Could not snapshot the project's files for undo: ${errorMessage(err)}`);
      return null;
    }
  }

  /**
   * Stores the snapshot "after" on the newest prompt of a session whose turn has ended, once its
   * "before" is written; when no change was prepared while it ran, the "before" serves as both.
   */
  async promptEnded(sessionId: string): Promise<void> {
    const ended = await this.timing.promptEnded(sessionId);
    const prompt = this.deps.store.messageRows(sessionId).filter((r) => r.prompt && !r.undone).at(-1);
    if (ended?.skipped) {
      // Nothing in the turn could change a file, so no snapshot was needed: the prompt is marked
      // as having changed nothing, which undo and the session's diff step over.
      if (prompt && prompt.snapshot_before === null) {
        this.deps.store.setPromptBefore(prompt.id, TURN_CHANGED_NOTHING);
        this.deps.store.setPromptAfter(prompt.id, TURN_CHANGED_NOTHING);
      }
      return;
    }
    if (!prompt?.snapshot_before) return;
    const snapshot = ended && !ended.changed && ended.before === prompt.snapshot_before ? ended.before : await this.snapshot();
    if (snapshot) this.deps.store.setPromptAfter(prompt.id, snapshot);
  }

  /**
   * Notes a sub-agent's start (its start snapshot is taken before the first change it or a
   * descendant makes), or records its end: a snapshot when a change was made in its run, else
   * the start and end "unchanged" (when it has no start yet).
   */
  async sessionSnapshot(sessionId: string, phase: 'start' | 'end'): Promise<void> {
    if (!this.active) return;
    const row = this.session(sessionId);
    if (phase === 'start') {
      // An earlier run that changed nothing leaves no real start: this run's first change takes one.
      if (row.snapshot_start === UNCHANGED_SNAPSHOT) this.deps.store.clearSessionSnapshots(sessionId);
      this.timing.childStarted(sessionId, row.snapshot_start !== null && row.snapshot_start !== UNCHANGED_SNAPSHOT);
      return;
    }
    const run = this.timing.childEnded(sessionId);
    if (run && !run.changed) {
      if (row.snapshot_start !== null) return;
      this.deps.store.setSessionSnapshot(sessionId, 'start', UNCHANGED_SNAPSHOT, run.startedAt);
      this.deps.store.setSessionSnapshot(sessionId, 'end', UNCHANGED_SNAPSHOT, Date.now());
      await this.announceDiffStat(sessionId);
      return;
    }
    // The window ends after the end snapshot is done: a change made while it was being taken counts as inside it.
    const snapshot = await this.snapshot();
    if (!snapshot) return;
    this.deps.store.setSessionSnapshot(sessionId, 'end', snapshot, Date.now());
    await this.announceDiffStat(sessionId);
  }

  /** What a finished session changed, its descendants included; undefined while it runs or without snapshots. */
  async sessionDiffStat(sessionId: string): Promise<DiffStat | undefined> {
    const row = this.session(sessionId);
    if (!row.snapshot_start || !row.snapshot_end) return undefined;
    return this.statBetween(row.snapshot_start, row.snapshot_end, this.attribution.scope(row));
  }

  /** A session's changes (its descendants' included) as typed per-file hunks; so far, for one still running. */
  async sessionChanges(sessionId: string): Promise<FileDiff[]> {
    const row = this.session(sessionId);
    if (!row.snapshot_start && this.timing.awaitingStart(sessionId)) return [];
    if (!row.snapshot_start) throw new ConfigError(this.noSnapshots(row));
    const end = row.snapshot_end ?? (await this.snapshot());
    if (!end) throw new ConfigError(this.noSnapshots(row));
    return diffBetween(this.repo, row.snapshot_start, end, only(this.attribution.scope(row)));
  }

  private statBetween(start: string, end: string, scope: ChangeScope): Promise<DiffStat> {
    const compute = () => diffBetween(this.repo, start, end, only(scope)).then(diffStat);
    // Kept to its own files, the answer may still shrink while another session's command that overlapped runs.
    if (!scope.final) return compute();
    const key = scope.kind === 'whole' ? `${start}..${end}` : `${start}..${end}:${[...scope.paths].sort().join('\0')}`;
    let stat = this.stats.get(key);
    if (!stat) {
      stat = compute();
      // A failure is not remembered: the next ask tries again.
      stat.catch(() => this.stats.delete(key));
      this.stats.set(key, stat);
    }
    return stat;
  }

  /** Sends `session.diff_stat` for a session whose end snapshot was just stored; a failure is a warning. */
  private async announceDiffStat(sessionId: string): Promise<void> {
    try {
      const stat = await this.sessionDiffStat(sessionId);
      const row = this.session(sessionId);
      if (stat) this.deps.emitFor(row.id, row.agent, this.pathOf(row), 'session.diff_stat', { stat });
    } catch (err) {
      this.deps.warn(`Could not work out what session ${sessionId} changed: ${errorMessage(err)}`);
    }
  }

  prompts(sessionId: string): PromptEntry[] {
    this.session(sessionId);
    return this.deps.store
      .messageRows(sessionId)
      .filter((r) => r.prompt)
      .map(promptEntry);
  }

  async undo(sessionId: string): Promise<RevertOutcome> {
    const last = this.activePrompts(sessionId).at(-1);
    if (!last) throw new ConfigError(`Nothing to undo in session ${sessionId}: no prompt left to step back over.`);
    return this.rewindTo(sessionId, last, 'both', 'undo');
  }

  async rewind(sessionId: string, messageId: string, mode: RewindMode): Promise<RevertOutcome> {
    const prompt = this.activePrompts(sessionId).find((r) => r.id === messageId);
    if (!prompt) throw new ConfigError(`Message ${messageId} is not a prompt of session ${sessionId} that can be rewound to.`);
    return this.rewindTo(sessionId, prompt, mode, 'rewind');
  }

  async redo(sessionId: string): Promise<RevertOutcome> {
    const row = this.idle(sessionId);
    const rows = this.deps.store.messageRows(sessionId);
    const prompt = rows.find((r) => r.prompt && r.redoable);
    if (!prompt) throw new ConfigError(`Nothing to redo in session ${sessionId}: no undo since the last prompt.`);
    const next = rows.find((r) => r.prompt && r.seq > prompt.seq);
    let files: string[] = [];
    if (prompt.snapshot_before && prompt.snapshot_after && prompt.snapshot_before !== prompt.snapshot_after) {
      files = await this.restore(prompt.snapshot_before, prompt.snapshot_after);
    }
    const restored = rows.filter((r) => r.seq >= prompt.seq && (!next || r.seq < next.seq) && r.redoable).map((r) => r.id);
    this.deps.store.setUndone(sessionId, { from: prompt.seq, ...(next ? { to: next.seq } : {}) }, false);
    this.deps.forget(sessionId);
    this.emit(row, 'redo', { files, from_snapshot: prompt.snapshot_before, to_snapshot: prompt.snapshot_after, hidden_message_ids: [], restored_message_ids: restored });
    return { files, hidden_message_ids: [], restored_message_ids: restored, prompt: promptEntry(prompt) };
  }

  /** Undoes one session's changes (its descendants' included), keeping everything since. */
  async revertSession(sessionId: string): Promise<RevertOutcome> {
    const row = this.idle(sessionId);
    if (!row.snapshot_start || !row.snapshot_end) throw new ConfigError(this.noSnapshots(row));
    const scope = this.attribution.scope(row);
    const files = await this.restore(row.snapshot_end, row.snapshot_start, only(scope));
    const leftAlone = scope.kind === 'own' ? scope.shared : [];
    this.emit(row, 'revert', {
      files,
      from_snapshot: row.snapshot_end,
      to_snapshot: row.snapshot_start,
      hidden_message_ids: [],
      restored_message_ids: [],
      ...(leftAlone.length ? { left_alone: leftAlone } : {}),
    });
    return { files, hidden_message_ids: [], restored_message_ids: [], ...(leftAlone.length ? { left_alone: leftAlone } : {}) };
  }

  /** Files the session changed that another session also changed in its window (left out of its diff, stat and revert). */
  sharedFiles(sessionId: string): SharedFile[] {
    const scope = this.attribution.scope(this.session(sessionId));
    return scope.kind === 'own' ? scope.shared : [];
  }

  /** The unified diff a session made, its descendants' changes included. */
  async sessionDiff(sessionId: string): Promise<string> {
    const row = this.session(sessionId);
    if (!row.snapshot_start && this.timing.awaitingStart(sessionId)) return '';
    if (!row.snapshot_start) throw new ConfigError(this.noSnapshots(row));
    // A session still under way: what it changed so far.
    const end = row.snapshot_end ?? (await this.snapshot());
    if (!end) throw new ConfigError(this.noSnapshots(row));
    if (end === row.snapshot_start) return '';
    return this.repo.diff(row.snapshot_start, end, only(this.attribution.scope(row)));
  }

  private async rewindTo(sessionId: string, prompt: MessageRow, mode: RewindMode, action: 'undo' | 'rewind'): Promise<RevertOutcome> {
    const row = this.idle(sessionId);
    const rows = this.deps.store.messageRows(sessionId);
    let files: string[] = [];
    let from: string | null = null;
    let to: string | null = null;
    if (mode !== 'conversation') {
      // Turns that changed nothing took no snapshot: the files go back to before the first turn
      // from this prompt on that took one; when none did, nothing of the files is to be undone.
      const active = rows.filter((r) => r.prompt && !r.undone && r.seq >= prompt.seq);
      const target = active.find((r) => r.snapshot_before !== TURN_CHANGED_NOTHING)?.snapshot_before;
      if (target === null || prompt.snapshot_before === null) {
        throw new ConfigError(
          `The files cannot be put back: no snapshot was taken before that prompt (${this.unavailable ?? (this.deps.settings.enabled ? 'it was sent before checkpoints existed' : 'checkpoints.enabled is false')}).`,
        );
      }
      if (target !== undefined) {
        // From the state the last turn that changed files left; when it never recorded one (a crash), from the disk as it is.
        const latest = active.filter((r) => r.snapshot_after !== TURN_CHANGED_NOTHING).at(-1);
        from = latest?.snapshot_after ?? (await this.snapshot());
        if (!from) throw new ConfigError(`The files cannot be put back: ${this.unavailable ?? 'no snapshot of them could be taken now'}.`);
        files = await this.restore(from, target);
        to = target;
      }
    }
    const hidden = mode === 'code' ? [] : rows.filter((r) => r.seq >= prompt.seq && !r.undone).map((r) => r.id);
    if (mode !== 'code') {
      this.deps.store.setUndone(sessionId, { from: prompt.seq }, true);
      this.deps.forget(sessionId);
    }
    this.emit(row, action, {
      files,
      from_snapshot: from,
      to_snapshot: to,
      hidden_message_ids: hidden,
      restored_message_ids: [],
    });
    return { files, hidden_message_ids: hidden, restored_message_ids: [], prompt: promptEntry(prompt) };
  }

  private async restore(base: string, target: string, paths?: ReadonlySet<string>): Promise<string[]> {
    const result = await restoreFiles(this.repo, base, target, paths);
    if (result.kind === 'conflict') throw new UndoConflictError(result.files);
    return result.files;
  }

  private activePrompts(sessionId: string): MessageRow[] {
    return this.deps.store.messageRows(sessionId).filter((r) => r.prompt && !r.undone);
  }

  private session(sessionId: string): SessionRow {
    const row = this.deps.store.getSession(sessionId);
    if (!row) throw new ConfigError(`No session with id "${sessionId}".`);
    return row;
  }

  private idle(sessionId: string): SessionRow {
    const row = this.session(sessionId);
    if (this.deps.isRunning(sessionId) || row.status === 'running' || row.status === 'queued') {
      throw new ConfigError(`Session ${sessionId} is running; wait for it to finish (or press Esc) first.`);
    }
    return row;
  }

  private noSnapshots(row: SessionRow): string {
    const why = this.unavailable ?? (this.deps.settings.enabled ? 'it ran before checkpoints existed, or has not started' : 'checkpoints.enabled is false');
    return `Session ${row.id} has no snapshots of the files it changed (${why}).`;
  }

  private emit(row: SessionRow, action: EventPayloads['session.reverted']['action'], payload: Omit<EventPayloads['session.reverted'], 'action'>): void {
    this.deps.emitFor(row.id, row.agent, this.pathOf(row), 'session.reverted', { action, ...payload });
  }

  /** Session ids from the root down to this one. */
  private pathOf(row: SessionRow): string[] {
    const path = [row.id];
    let parent = row.parent_id;
    while (parent) {
      path.unshift(parent);
      parent = this.deps.store.getSession(parent)?.parent_id ?? null;
    }
    return path;
  }
}

/** The paths a session's diff keeps to: all of its window's (undefined), or its own. */
function only(scope: ChangeScope): ReadonlySet<string> | undefined {
  return scope.kind === 'own' ? scope.paths : undefined;
}

function promptEntry(row: MessageRow): PromptEntry {
  return {
    message_id: row.id,
    seq: row.seq,
    text: textOf(row),
    created_at: row.created_at,
    undone: row.undone,
    redoable: row.redoable,
    has_snapshot: row.snapshot_before !== null,
  };
}

/** Shadow repositories live in the data dir beside the session store. */
export function snapshotsRoot(dataDir: string): string {
  return join(dataDir, 'snapshots');
}

export { NO_GIT_NOTICE };
