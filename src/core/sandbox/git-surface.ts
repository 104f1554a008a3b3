// Git's control surface inside a writable work tree (DESIGN §19, round 4): the files git reads
// to decide what it *runs* — config (fsmonitor, pager, filters, hooksPath…), hooks, the
// `commondir`/`gitdir` indirections that point git at another config — and that a sandboxed
// command must therefore not change, because git runs them later outside the sandbox (the
// user's next `git status`, this program's own git calls).
//
// Contract of `gitSurface(root)`:
// - `gitDirs`: the git directories a command working in `root` writes to (objects, refs, index,
//   logs), only ever ones that check out: a `.git` directory, or for a `.git` *file* a linked
//   worktree's own directory `<common>/worktrees/<name>` whose `gitdir` file points back at that
//   `.git` file and whose `commondir` is `<common>` (a real git directory), or a submodule's
//   directory inside an enclosing repository's `.git/modules/`. A `.git` file naming anything
//   else (`gitdir: $HOME`) makes nothing writable: it is a lie, not a repository.
// - `pinned`: folders and files bound onto themselves, so that as mount points they can be
//   neither renamed, removed nor replaced (`mv .git .git-old; mkdir .git` fails with EBUSY):
//   `.git` itself, each worktree's and submodule's git directory, a worktree's `.git` file.
// - `protected`: the control files that exist, bound read-only: `config`, `config.worktree`,
//   `commondir`, `gitdir`, `hooks/`, `info/` of every git directory above (the main one, each
//   `worktrees/*`, each `modules/*`, a few levels deep), and a worktree's `.git` file.
// - `guarded`: the same names where they do not exist yet. A bind mount needs something to bind
//   onto, and creating a placeholder in the user's `.git` would change what git does, so these
//   are watched while a sandboxed command runs and removed the moment they appear (guard-watch.ts).
//   None of them is created by the git commands a sandboxed command normally runs (`add`,
//   `commit`, `status`, `log`, `checkout`, `merge`, `rebase`).
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';

/** What a git directory holds that decides what git runs. */
export const GIT_CONTROL_NAMES: readonly string[] = ['config', 'config.worktree', 'commondir', 'gitdir', 'hooks', 'info'];

/** Nested git directories (`worktrees/*`, `modules/*`) looked at, at most: beyond that nothing is pinned. */
const MAX_NESTED_GIT_DIRS = 200;
/** `modules/a/modules/b/…`: how deep submodules of submodules are followed. */
const MAX_MODULE_DEPTH = 3;

export interface GitSurface {
  /** The work tree's root (the folder holding `.git`), or the starting folder outside any repository. */
  root: string;
  gitDirs: string[];
  pinned: string[];
  protected: string[];
  guarded: string[];
}

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function kindOf(path: string): 'dir' | 'file' | 'link' | undefined {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return 'link';
    return stat.isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}

/** A folder git would accept as a repository: HEAD and objects in it. */
function looksLikeGitDir(dir: string): boolean {
  return existsSync(join(dir, 'HEAD')) && existsSync(join(dir, 'objects'));
}

function readPointer(file: string, pattern: RegExp): string | undefined {
  try {
    const text = readFileSync(file, 'utf8');
    return pattern.exec(text)?.[1]?.trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The git directories a `.git` file at `dotGit` may make writable, after checking it is what
 * git itself would have written: a linked worktree (back-pointer and common dir agree) or a
 * submodule under an enclosing repository's `.git/modules`.
 */
export function validatedLinkedGitDirs(root: string, dotGit: string): string[] {
  const pointer = readPointer(dotGit, /^gitdir:\s*(.+)$/m);
  if (!pointer) return [];
  const own = real(resolve(root, pointer));
  const realDotGit = real(dotGit);
  // A worktree's own folder has HEAD and index but no objects: those are the common dir's.
  if (!own || !realDotGit || !existsSync(join(own, 'HEAD'))) return [];
  const commonPointer = readPointer(join(own, 'commondir'), /^(.+)$/m);
  if (commonPointer) {
    const common = real(resolve(own, commonPointer));
    const back = readPointer(join(own, 'gitdir'), /^(.+)$/m);
    const backReal = back ? real(resolve(own, back)) : undefined;
    const isWorktreeDir = common !== undefined && dirname(own) === join(common, 'worktrees') && looksLikeGitDir(common);
    return isWorktreeDir && backReal === realDotGit ? [own, common] : [];
  }
  // A submodule: its git dir lives in `.git/modules/…` of a repository whose work tree holds it.
  const marker = `${sep}.git${sep}modules${sep}`;
  const at = own.indexOf(marker);
  if (at < 0) return [];
  const enclosingRoot = own.slice(0, at);
  return realDotGit.startsWith(enclosingRoot + sep) ? [own] : [];
}

/** The work tree around `cwd`: the nearest folder holding `.git`, and that `.git`'s kind. */
export function findWorkTree(cwd: string): { root: string; dotGit?: { path: string; kind: 'dir' | 'file' } } {
  let dir = resolve(cwd);
  for (;;) {
    const dotGit = join(dir, '.git');
    let stat;
    try {
      stat = statSync(dotGit);
    } catch {
      stat = undefined;
    }
    if (stat?.isDirectory()) return { root: dir, dotGit: { path: dotGit, kind: 'dir' } };
    if (stat?.isFile()) return { root: dir, dotGit: { path: dotGit, kind: 'file' } };
    const parent = dirname(dir);
    if (parent === dir) return { root: resolve(cwd) };
    dir = parent;
  }
}

/** Each git directory's control names, split into those to bind read-only and those to watch. */
function controlNamesOf(gitDir: string, into: { protected: string[]; guarded: string[] }): void {
  for (const name of GIT_CONTROL_NAMES) {
    const path = join(gitDir, name);
    if (kindOf(path) === undefined) into.guarded.push(path);
    else into.protected.push(path);
  }
}

/** `worktrees/*` and `modules/*` (submodules of submodules too) of a git directory. */
function nestedGitDirs(gitDir: string): string[] {
  const found: string[] = [];
  const visit = (dir: string, depth: number) => {
    for (const group of depth === 0 ? ['worktrees', 'modules'] : ['modules']) {
      let names: string[];
      try {
        names = readdirSync(join(dir, group));
      } catch {
        continue;
      }
      for (const name of names) {
        if (found.length >= MAX_NESTED_GIT_DIRS) return;
        const nested = join(dir, group, name);
        if (kindOf(nested) !== 'dir') continue;
        if (existsSync(join(nested, 'HEAD'))) {
          found.push(nested);
          if (group === 'modules' && depth + 1 < MAX_MODULE_DEPTH) visit(nested, depth + 1);
        } else if (group === 'modules' && depth + 1 < MAX_MODULE_DEPTH) {
          // A submodule named with a slash (`libs/x`) has its git dir one folder further down.
          visit(join(dir, group, name), depth + 1);
        }
      }
    }
  };
  visit(gitDir, 0);
  return found;
}

/** The git control surface of the work tree around `cwd` (see the contract above). */
export function gitSurface(cwd: string): GitSurface {
  const tree = findWorkTree(cwd);
  const surface: GitSurface = { root: tree.root, gitDirs: [], pinned: [], protected: [], guarded: [] };
  if (!tree.dotGit) return surface;
  const dotGit = tree.dotGit.path;
  if (tree.dotGit.kind === 'dir') {
    const gitDir = real(dotGit) ?? dotGit;
    surface.gitDirs.push(gitDir);
  } else {
    surface.gitDirs.push(...validatedLinkedGitDirs(tree.root, dotGit));
    // The `.git` file itself says where git looks: bound read-only, it may be neither
    // rewritten nor replaced.
    surface.protected.push(dotGit);
  }
  const seen = new Set<string>();
  for (const gitDir of surface.gitDirs) {
    for (const dir of [gitDir, ...nestedGitDirs(gitDir)]) {
      if (seen.has(dir)) continue;
      seen.add(dir);
      surface.pinned.push(dir);
      controlNamesOf(dir, surface);
    }
  }
  return surface;
}

/** For messages: `.git/config` rather than the whole path, when it is inside `root`. */
export function shortGitPath(path: string, root: string): string {
  return path.startsWith(root + sep) ? path.slice(root.length + 1) : path;
}

/** True for a path `gitSurface` guards by name (used to word what the watch removed). */
export function isGitControlName(path: string): boolean {
  return GIT_CONTROL_NAMES.includes(basename(path));
}
