// After a sandboxed command: submodule entries it added to git's index whose folder holds a
// repository of its own (DESIGN §19). `git status` — the user's, on the host — recurses into
// every submodule entry and runs git there with *that* repository's config, so a command that
// runs `git init sub`, sets `core.fsmonitor` in `sub/.git/config` and `git add sub` would have
// the user's next `git status` run its command outside the sandbox. Such entries are taken out
// of the index again (`git rm --cached`: the folder's files are not touched) and named.
//
// Contract: `takeOutPlantedRepos(index, root)` compares the index's submodule entries now with
// those recorded before the command (`index.gitlinks`), removes the new ones whose folder has a
// `.git` (folder or file), and resolves with their paths; it never rejects (a failure is named
// as such in the returned sentence's place: the path stays listed with `failed`).
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '../workspace/git.js';
import { gitlinksOf } from './git-index.js';
import type { WorkTreeIndex } from './git-surface.js';

export interface PlantedRepos {
  paths: string[];
  /** Set when git could not take them out: the user must, before running git status. */
  failed?: string;
}

function hasOwnRepository(folder: string): boolean {
  try {
    lstatSync(join(folder, '.git'));
    return true;
  } catch {
    return false;
  }
}

export async function takeOutPlantedRepos(index: WorkTreeIndex, root: string): Promise<PlantedRepos> {
  const before = new Set(index.gitlinks);
  const planted = gitlinksOf(index.file, index.hashBytes).filter((path) => !before.has(path) && hasOwnRepository(join(root, path)));
  if (planted.length === 0) return { paths: [] };
  try {
    await git(['--literal-pathspecs', 'rm', '--cached', '-f', '-q', '--ignore-unmatch', '--', ...planted], {
      cwd: root,
      timeoutMs: 10_000,
      doing: 'taking a repository a sandboxed command planted out of the index',
    });
    return { paths: planted };
  } catch (err) {
    return { paths: planted, failed: err instanceof Error ? err.message : String(err) };
  }
}
