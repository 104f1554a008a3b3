/*
 * A root session's own changes (DESIGN §18): `sessions diff <root>` and `sessions revert <root>`.
 *
 * A root session has no start and end snapshots of its own (a sub-agent has); what it changed
 * is the sum of its prompts' windows, each from the snapshot taken before the prompt to the one
 * taken when its turn ended. Its sub-agents ran inside those windows, so their changes are in.
 *
 * Contract
 * - The prompts counted are the session's prompts not undone that have a "before" snapshot
 *   (a turn that changed nothing has none: TURN_CHANGED_NOTHING marks it, and it is stepped over).
 *   A turn that never recorded its "after" (the process was killed) ends where the next prompt
 *   began; the newest one ends at the project's files as they are now.
 * - The product's paths are those that differ inside some window. A path that also changed
 *   between two windows (the user, another program, another session, between prompts) is in
 *   doubt: it is left out of the diff and the revert and named (`left_alone`, `also_changed_by`
 *   empty: nobody the store knows of).
 * - The diff and the revert run from the first window's start to the last window's end, kept to
 *   the product's paths. The revert is three-way against the disk (restore.ts): any overlap
 *   with a later change changes nothing and raises UndoConflictError naming the files.
 * - No snapshot at all: a ConfigError saying why, as for a sub-agent; only turns that changed
 *   nothing: an empty window.
 */
import { restoreFiles, type ShadowRepo } from '../checkpoints/index.js';
import { ConfigError } from '../errors.js';
import type { SessionRow, SessionStore } from '../store/index.js';
import { TURN_CHANGED_NOTHING, UNCHANGED_SNAPSHOT, UndoConflictError, type SharedFile } from './checkpoints.js';

export interface RootChangesDeps {
  store: SessionStore;
  repo: ShadowRepo;
  /** The project's files now, as a snapshot id; null when it cannot be taken. */
  snapshotNow: () => Promise<string | null>;
  /** Why snapshots are missing, for the error sentence. */
  whyNoSnapshots: () => string;
}

/** What a root session changed: its window, the paths kept to, and the paths left out. */
export interface RootWindow {
  from: string;
  to: string;
  paths: ReadonlySet<string>;
  leftAlone: SharedFile[];
}

export async function rootWindow(deps: RootChangesDeps, row: SessionRow): Promise<RootWindow> {
  const noted = deps.store.messageRows(row.id).filter((r) => r.prompt && !r.undone && r.snapshot_before !== null);
  if (noted.length === 0) throw new ConfigError(`Session ${row.id} has no snapshots of the files it changed (${deps.whyNoSnapshots()}).`);
  const prompts = noted.filter((r) => r.snapshot_before !== TURN_CHANGED_NOTHING);
  // Only turns that changed nothing: an empty window (git's empty tree at both ends).
  if (prompts.length === 0) return { from: UNCHANGED_SNAPSHOT, to: UNCHANGED_SNAPSHOT, paths: new Set(), leftAlone: [] };
  const windows: Array<{ from: string; to: string }> = [];
  for (const [i, prompt] of prompts.entries()) {
    const next = prompts[i + 1];
    const end = prompt.snapshot_after ?? next?.snapshot_before ?? (await deps.snapshotNow());
    if (!end) throw new ConfigError(`Session ${row.id}'s last turn has no snapshot of the files it left, and none can be taken now (${deps.whyNoSnapshots()}).`);
    windows.push({ from: prompt.snapshot_before!, to: end });
  }
  const product = new Set<string>();
  for (const w of windows) for (const change of await deps.repo.changes(w.from, w.to)) product.add(change.path);
  const between = new Set<string>();
  for (let i = 0; i + 1 < windows.length; i++) {
    for (const change of await deps.repo.changes(windows[i]!.to, windows[i + 1]!.from)) if (product.has(change.path)) between.add(change.path);
  }
  for (const path of between) product.delete(path);
  return {
    from: windows[0]!.from,
    to: windows.at(-1)!.to,
    paths: product,
    leftAlone: [...between].sort().map((path) => ({ path, also_changed_by: [] })),
  };
}

export async function rootDiff(deps: RootChangesDeps, row: SessionRow): Promise<{ diff: string; leftAlone: SharedFile[] }> {
  const window = await rootWindow(deps, row);
  if (window.paths.size === 0) return { diff: '', leftAlone: window.leftAlone };
  return { diff: await deps.repo.diff(window.from, window.to, window.paths), leftAlone: window.leftAlone };
}

export async function revertRoot(deps: RootChangesDeps, row: SessionRow): Promise<{ window: RootWindow; files: string[] }> {
  const window = await rootWindow(deps, row);
  if (window.paths.size === 0) return { window, files: [] };
  const result = await restoreFiles(deps.repo, window.to, window.from, window.paths);
  if (result.kind === 'conflict') throw new UndoConflictError(result.files);
  return { window, files: result.files };
}
