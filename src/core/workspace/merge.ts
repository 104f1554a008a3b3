// Brings a sub-agent's work back into its parent's working tree (DESIGN §17). Contract:
// `mergeIntoWorkingTree(parent, base, childTree)` applies the change base → childTree onto the
// parent's working tree as it is now, as a three-way merge (git's merge-tree, renames
// detected), and writes only the files the merge changes, as uncommitted changes. Nothing is
// committed on the user's branch; the index and HEAD are not touched. A conflicting merge
// writes nothing and names the conflicting files. If the parent's tree changes between
// computing the merge and writing it, the merge is computed again (a few times); a path
// changed under a write is never overwritten and is reported as a conflict. Merges into one
// working tree are serialised within the process: each result is the same as if the merges had
// run one after another, in the order they were asked for.
//
// Why batches: ten children that end together used to wait for each other's merge, each reading
// the parent's whole tree again (a `git add -A` over every file) and running seven git commands
// in turn. Now the merges waiting for one working tree form a batch: one snapshot of the
// parent's tree, every merge-tree at once, one check of the parent's paths and one read of the
// new contents for all of them (tree-apply.ts), then the writes one at a time in the order asked. A
// merge whose paths meet those of a merge written earlier in the batch (the same path, a folder
// and a file inside it, or a folder another merge deletes from, where git's rename detection
// could see a moved folder) is computed again in the next batch against the tree as it is
// then, exactly as when merges ran one by one.
import { git } from './git.js';
import { commitTree, snapshotTree, type RepoInfo } from './repo.js';
import { prepareTreeDiffs, writePreparedDiff, type ApplyResult, type PreparedDiff } from './tree-apply.js';

export type MergeResult = { state: 'merged'; files: string[] } | { state: 'conflict'; files: string[]; reason: string } | { state: 'none'; files: [] };

/** Attempts when the parent's tree keeps changing under the merge. */
const MERGE_ATTEMPTS = 3;

interface MergeRequest {
  base: string;
  /** The child's tree as a commit on top of its base, made before the request waits its turn. */
  child: Promise<string>;
  /** Batches in which the parent's tree changed under this merge before anything was written. */
  stale: number;
  resolve: (result: MergeResult) => void;
  reject: (err: unknown) => void;
}

/** Merges waiting, and whether a batch is being worked on, per parent working tree. */
interface Queue {
  waiting: MergeRequest[];
  draining: boolean;
}

const queues = new Map<string, Queue>();

export function mergeIntoWorkingTree(parent: RepoInfo, base: string, childTree: string): Promise<MergeResult> {
  const cwd = parent.toplevel;
  // Both sides become children of the base, so the merge base is exactly the child's starting point.
  const child = commitTree(cwd, childTree, [base], 'opencode-ink: sub-agent result');
  // Awaited in its batch; a failure must not go unhandled while the request waits.
  child.catch(() => undefined);
  return new Promise<MergeResult>((resolve, reject) => {
    let queue = queues.get(cwd);
    if (!queue) {
      queue = { waiting: [], draining: false };
      queues.set(cwd, queue);
    }
    queue.waiting.push({ base, child, stale: 0, resolve, reject });
    if (!queue.draining) void drain(parent, queue);
  });
}

/** Works through the queue of one working tree, batch after batch, until nothing waits. */
async function drain(parent: RepoInfo, queue: Queue): Promise<void> {
  queue.draining = true;
  try {
    while (queue.waiting.length > 0) {
      const batch = queue.waiting.splice(0);
      let again: MergeRequest[];
      try {
        again = await mergeBatch(parent, batch);
      } catch (err) {
        // The parent's tree could not be read: every merge of the batch fails with it.
        for (const request of batch) request.reject(err);
        again = [];
      }
      // Merges to compute again go first: they were asked for before anything still waiting.
      queue.waiting.unshift(...again);
    }
  } finally {
    queue.draining = false;
    if (queues.get(parent.toplevel) === queue) queues.delete(parent.toplevel);
  }
}

type Merged = { kind: 'conflict'; files: string[] } | { kind: 'tree'; tree: string } | { kind: 'failed'; err: unknown };
type Plan = Exclude<Merged, { kind: 'tree' }> | { kind: 'ready'; diff: PreparedDiff };

/** The clean merges' diffs from the parent's tree, checked and read together (a failure fails each of them). */
async function prepareAll(cwd: string, parentTree: string, merges: readonly Merged[]): Promise<Plan[]> {
  const clean = merges.flatMap((m) => (m.kind === 'tree' ? [m.tree] : []));
  let diffs: PreparedDiff[] = [];
  let failure: { kind: 'failed'; err: unknown } | undefined;
  try {
    diffs = clean.length > 0 ? await prepareTreeDiffs(cwd, parentTree, clean) : [];
  } catch (err) {
    failure = { kind: 'failed', err };
  }
  let next = 0;
  return merges.map((m) => (m.kind !== 'tree' ? m : (failure ?? { kind: 'ready', diff: diffs[next++]! })));
}

/**
 * One snapshot, every merge computed at once, the writes in order. Settles each request it
 * finishes and returns those to compute again against the tree as it will be after this batch.
 */
async function mergeBatch(parent: RepoInfo, batch: readonly MergeRequest[]): Promise<MergeRequest[]> {
  const cwd = parent.toplevel;
  const parentTree = await snapshotTree(parent, []);
  // The parent's side as a child of each request's base (children started together share one).
  const parentCommits = new Map<string, Promise<string>>();
  const parentCommit = (base: string) => {
    let made = parentCommits.get(base);
    if (!made) {
      made = commitTree(cwd, parentTree, [base], 'opencode-ink: working tree');
      parentCommits.set(base, made);
    }
    return made;
  };
  const merges = await Promise.all(
    batch.map(async (request): Promise<Merged> => {
      try {
        const [parentNow, child] = await Promise.all([parentCommit(request.base), request.child]);
        const merged = await git(['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', parentNow, child], {
          cwd,
          okCodes: [1],
          doing: `merging a sub-agent's work into ${cwd}`,
        });
        const [tree = '', ...rest] = merged.stdout.toString('utf8').split('\0');
        if (merged.exitCode === 1) return { kind: 'conflict', files: [...new Set(rest.map((p) => p.trim()).filter(Boolean))] };
        return { kind: 'tree', tree: tree.trim() };
      } catch (err) {
        return { kind: 'failed', err };
      }
    }),
  );
  const plans = await prepareAll(cwd, parentTree, merges);
  const again: MergeRequest[] = [];
  const written = new TouchedPaths();
  for (const [i, request] of batch.entries()) {
    const plan = plans[i]!;
    // A merge asked for after one computed again must wait for it too: the order is kept.
    if (again.length > 0 && plan.kind !== 'failed') {
      again.push(request);
      continue;
    }
    if (plan.kind === 'failed') {
      request.reject(plan.err);
      continue;
    }
    if (plan.kind === 'conflict') {
      // Computed against a tree without the batch's earlier writes: those may have changed what conflicts.
      if (written.size > 0) {
        again.push(request);
        continue;
      }
      request.resolve({ state: 'conflict', files: plan.files, reason: 'both changed' });
      continue;
    }
    const { diff } = plan;
    if (written.meets(diff)) {
      again.push(request);
      continue;
    }
    if (diff.stale.length > 0) {
      // Something wrote to the parent's tree after the snapshot; nothing of this merge was written.
      if (++request.stale >= MERGE_ATTEMPTS) {
        request.resolve({ state: 'conflict', files: [...diff.stale], reason: 'changed in your tree while merging' });
      } else {
        again.push(request);
      }
      continue;
    }
    let result: ApplyResult;
    try {
      result = await writePreparedDiff(cwd, diff);
    } catch (err) {
      written.add(diff);
      request.reject(err);
      continue;
    }
    written.add(diff);
    if (result.changedMeanwhile.length === 0) {
      request.resolve(result.applied.length > 0 ? { state: 'merged', files: result.applied } : { state: 'none', files: [] });
      continue;
    }
    // Something wrote to the parent's tree under the write: what was applied is part of the tree now.
    const applied = result.applied.length > 0 ? `; already applied: ${result.applied.join(', ')}` : '';
    request.resolve({ state: 'conflict', files: result.changedMeanwhile, reason: `changed in your tree while merging${applied}` });
  }
  return again;
}

/**
 * The paths the batch's merges wrote so far, and whether a later merge computed without them
 * could have come out differently: it touches one of them, a folder holding one, a file inside
 * one, or either side deletes a file from a folder the other touches (git would see a folder
 * moved, or a folder emptied).
 */
class TouchedPaths {
  private readonly paths = new Set<string>();
  /** Every folder holding a written path. */
  private readonly folders = new Set<string>();
  /** Every folder holding a deleted path. */
  private readonly deletedFrom = new Set<string>();

  get size(): number {
    return this.paths.size;
  }

  add(diff: PreparedDiff): void {
    for (const path of diff.paths) {
      this.paths.add(path);
      for (const folder of foldersOf(path)) this.folders.add(folder);
    }
    for (const path of diff.deleted) for (const folder of foldersOf(path)) this.deletedFrom.add(folder);
  }

  meets(diff: PreparedDiff): boolean {
    if (this.paths.size === 0) return false;
    const deletedFromThere = new Set(diff.deleted.flatMap(foldersOf));
    for (const path of diff.paths) {
      if (this.paths.has(path) || this.folders.has(path)) return true;
      for (const folder of foldersOf(path)) {
        if (this.paths.has(folder) || this.deletedFrom.has(folder)) return true;
      }
    }
    for (const folder of deletedFromThere) if (this.folders.has(folder)) return true;
    return false;
  }
}

/** The folders holding a path, nearest last (`a/b/c` → `a`, `a/b`); the top level is left out. */
function foldersOf(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
}
