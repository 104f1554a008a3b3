// Brings a sub-agent's work back into its parent's working tree (DESIGN §17). Contract:
// `mergeIntoWorkingTree(parent, base, childTree)` applies the change base → childTree onto the
// parent's working tree as it is now, as a three-way merge (git's merge-tree, renames
// detected), and writes only the files the merge changes, as uncommitted changes. Nothing is
// committed on the user's branch; the index and HEAD are not touched. A conflicting merge
// writes nothing and names the conflicting files. If the parent's tree changes between
// computing the merge and writing it, the merge is computed again (a few times); a path
// changed under a write is never overwritten and is reported as a conflict. Merges into one
// working tree are serialised within the process.
import { git } from './git.js';
import { commitTree, snapshotTree, type RepoInfo } from './repo.js';
import { applyTreeDiff } from './tree-apply.js';

export type MergeResult = { state: 'merged'; files: string[] } | { state: 'conflict'; files: string[]; reason: string } | { state: 'none'; files: [] };

/** Attempts when the parent's tree keeps changing under the merge. */
const MERGE_ATTEMPTS = 3;

const queues = new Map<string, Promise<unknown>>();

/** Runs `work` after every earlier call with the same key has finished. */
function serialised<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  const next = previous.then(work, work);
  const settled = next.catch(() => undefined);
  queues.set(key, settled);
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return next;
}

export function mergeIntoWorkingTree(parent: RepoInfo, base: string, childTree: string): Promise<MergeResult> {
  return serialised(parent.toplevel, async () => {
    const cwd = parent.toplevel;
    // Both sides become children of the base, so the merge base is exactly the child's starting
    // point. The child's side is made while the parent's tree is read: two git calls at once.
    const childCommit = commitTree(cwd, childTree, [base], 'opencode-ink: sub-agent result');
    // Awaited below; a failure here must not go unhandled while the parent's tree is read.
    childCommit.catch(() => undefined);
    for (let attempt = 1; ; attempt++) {
      const parentTree = await snapshotTree(parent, []);
      const [parentNow, child] = await Promise.all([commitTree(cwd, parentTree, [base], 'opencode-ink: working tree'), childCommit]);
      const merged = await git(['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', parentNow, child], {
        cwd,
        okCodes: [1],
        doing: `merging a sub-agent's work into ${cwd}`,
      });
      const [tree = '', ...rest] = merged.stdout.toString('utf8').split('\0');
      if (merged.exitCode === 1) {
        const files = [...new Set(rest.map((p) => p.trim()).filter(Boolean))];
        return { state: 'conflict', files, reason: 'both changed' };
      }
      const result = await applyTreeDiff(cwd, parentTree, tree.trim());
      if (result.changedMeanwhile.length === 0) {
        return result.applied.length > 0 ? { state: 'merged', files: result.applied } : { state: 'none', files: [] };
      }
      // Something wrote to the parent's tree meanwhile: anything applied so far is part of the tree now.
      if (result.applied.length > 0 || attempt >= MERGE_ATTEMPTS) {
        const applied = result.applied.length > 0 ? `; already applied: ${result.applied.join(', ')}` : '';
        return { state: 'conflict', files: result.changedMeanwhile, reason: `changed in your tree while merging${applied}` };
      }
    }
  });
}
