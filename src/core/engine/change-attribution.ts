/*
 * Which session changed which project file, and when (DESIGN §18).
 *
 * Sub-agents that run side by side in one tree share their snapshot windows: every change
 * between a child's start and end snapshots is not necessarily its own. These records let a
 * sub-agent's revert, diff and diff stat keep to its own files and leave its siblings' and
 * its parent's work alone.
 *
 * Contract
 * - `wrote(sessionId, realPath)`: a file tool of the session replaced that file; recorded at
 *   once (source `tool`) when it lies inside the project. A path outside it (an isolated
 *   child's worktree) is not the project's and is not recorded.
 * - `merged(sessionId, topLevel, files, fromAt)`: an isolated child's work was merged into the
 *   project (source `merge`); `files` are relative to the repository's top level.
 * - `around(session, run)`: runs a tool that may change files without saying which (a shell
 *   command, an MCP tool). When another session could be changing files at the same moment
 *   (the session is a sub-agent, or another session of this engine is running), the project
 *   is snapshotted before and after, and the paths that changed are recorded as the session's
 *   (source `command`), except those another session's file tools or merges reported in that
 *   interval. While it runs, the command counts as another session's activity of unknown
 *   extent. A session working outside the project (a worktree) is not watched: its changes
 *   reach the project through its merge. A failed snapshot is a warning, never a failed tool.
 * - `scope(row)`: what a session's revert, diff and stat keep to: the paths the session and
 *   its descendants recorded in its window `[snapshot_start_at, snapshot_end_at]`, less those
 *   another session also changed in it (`shared`, each named with who). So neither its
 *   siblings' and parent's work nor the user's own edits made meanwhile are counted as its
 *   changes. A session stored before these records existed (no `snapshot_start_at`) is
 *   `whole`: everything that changed in its window. `final` is false while the session runs
 *   or another session's command that overlapped it is still running: the answer may change.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { errorMessage } from '../errors.js';
import type { FileChangeRow, FileChangeSource, SessionRow, SessionStore } from '../store/index.js';

/** A file the session changed that another session also changed while it ran: left as it is. */
export interface SharedFile {
  path: string;
  /** The other sessions, by id. */
  also_changed_by: string[];
}

export type ChangeScope =
  | { kind: 'whole'; final: boolean }
  | { kind: 'own'; paths: ReadonlySet<string>; shared: SharedFile[]; final: boolean };

/** The session a watched tool runs in. */
export interface WatchedSession {
  id: string;
  cwd: string;
  /** A sub-agent: its siblings or its parent may change files at the same time. */
  isChild: boolean;
}

export interface ChangeAttributionDeps {
  store: SessionStore;
  /** The project's top folder (what snapshots cover). */
  projectRoot: string;
  /** The project's key in the store's records (`projectKey`). */
  projectKey: string;
  /** Whether snapshots are on; when off nothing is watched. */
  enabled: () => boolean;
  /** The project's files now, or null (never throws). */
  snapshot: () => Promise<string | null>;
  /** Paths that differ between two snapshots. */
  changedPaths: (from: string, to: string) => Promise<string[]>;
  /** Whether a session other than this one is running in this engine. */
  othersRunning: (sessionId: string) => boolean;
  warn: (line: string) => void;
}

interface OpenCommand {
  sessionId: string;
  fromAt: number;
}

export class ChangeAttribution {
  private readonly root: string;
  private readonly open = new Set<OpenCommand>();

  constructor(private readonly deps: ChangeAttributionDeps) {
    this.root = realRoot(deps.projectRoot);
  }

  wrote(sessionId: string, realPath: string): void {
    const path = this.projectPath(realPath);
    if (path === undefined) return;
    const at = Date.now();
    this.record(sessionId, [path], 'tool', at, at);
  }

  merged(sessionId: string, topLevel: string, files: readonly string[], fromAt: number): void {
    const paths = files.map((f) => this.projectPath(join(realRoot(topLevel), f))).filter((p): p is string => p !== undefined);
    this.record(sessionId, paths, 'merge', fromAt, Date.now());
  }

  async around<T>(session: WatchedSession, run: () => Promise<T>): Promise<T> {
    if (!this.watches(session)) return run();
    const command: OpenCommand = { sessionId: session.id, fromAt: Date.now() };
    this.open.add(command);
    const before = await this.deps.snapshot();
    try {
      return await run();
    } finally {
      try {
        if (before) await this.recordCommand(session.id, before, command.fromAt);
      } catch (err) {
        this.deps.warn(`Could not tell which files a command of session ${session.id} changed: ${errorMessage(err)}`);
      } finally {
        this.open.delete(command);
      }
    }
  }

  /** Whether a session working in `cwd` works on the project's files (not in a worktree outside it). */
  covers(cwd: string): boolean {
    return this.inside(realRoot(cwd));
  }

  scope(row: SessionRow): ChangeScope {
    const start = row.snapshot_start_at;
    // Stored before these records existed: all that changed in its window is counted as its own.
    if (start === null) return { kind: 'whole', final: true };
    const end = row.snapshot_end_at ?? Date.now();
    const subtree = new Set(this.deps.store.subtreeIds(row.id));
    const records = this.deps.store.fileChangesOverlapping(this.deps.projectKey, start, end);
    const byOthers = new Map<string, Set<string>>();
    for (const r of records) {
      if (subtree.has(r.session_id)) continue;
      const who = byOthers.get(r.path) ?? new Set<string>();
      who.add(r.session_id);
      byOthers.set(r.path, who);
    }
    const paths = new Set<string>();
    const shared = new Map<string, SharedFile>();
    for (const r of records) {
      if (!subtree.has(r.session_id)) continue;
      const who = byOthers.get(r.path);
      if (who) shared.set(r.path, { path: r.path, also_changed_by: [...who] });
      else paths.add(r.path);
    }
    const openElsewhere = [...this.open].some((c) => !subtree.has(c.sessionId) && c.fromAt <= end);
    return {
      kind: 'own',
      paths,
      shared: [...shared.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
      final: row.snapshot_end_at !== null && !openElsewhere,
    };
  }

  private watches(session: WatchedSession): boolean {
    if (!this.deps.enabled()) return false;
    if (!this.inside(realRoot(session.cwd))) return false;
    return session.isChild || this.deps.othersRunning(session.id);
  }

  private async recordCommand(sessionId: string, before: string, fromAt: number): Promise<void> {
    const after = await this.deps.snapshot();
    const toAt = Date.now();
    if (!after || after === before) return;
    const changed = await this.deps.changedPaths(before, after);
    // What another session's file tools or merge reported meanwhile is theirs, not this command's.
    const reported = new Set(
      this.deps.store
        .fileChangesOverlapping(this.deps.projectKey, fromAt, toAt)
        .filter((r) => r.session_id !== sessionId && r.source !== 'command')
        .map((r) => r.path),
    );
    this.record(
      sessionId,
      changed.filter((p) => !reported.has(p)),
      'command',
      fromAt,
      toAt,
    );
  }

  private record(sessionId: string, paths: readonly string[], source: FileChangeSource, fromAt: number, toAt: number): void {
    if (paths.length === 0) return;
    const change: Omit<FileChangeRow, 'path'> = { session_id: sessionId, project: this.deps.projectKey, from_at: fromAt, to_at: toAt, source };
    try {
      this.deps.store.recordFileChanges(change, paths);
    } catch (err) {
      this.deps.warn(`Could not record which files session ${sessionId} changed: ${errorMessage(err)}`);
    }
  }

  /** `/`-separated and relative to the project's top folder; undefined outside it (or the top folder itself). */
  private projectPath(realPath: string): string | undefined {
    const rel = relative(this.root, realPath);
    if (!rel || !this.inside(realPath)) return undefined;
    return rel.split(sep).join('/');
  }

  /** The project's top folder or anything under it. */
  private inside(realPath: string): boolean {
    const rel = relative(this.root, realPath);
    return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
  }
}

/** The folder with links resolved, as file tools report real paths; as given when it cannot be resolved. */
function realRoot(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
