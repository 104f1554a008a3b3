// Facts about a git working tree and commits made from it without touching it. Contract:
// `repoOf(cwd)` names the working tree holding `cwd` (its top level, shared git dir and its own
// index file), or undefined outside a repository. `snapshotCommit` records the working tree as
// it is now — tracked changes, and untracked files that are not ignored — as a commit object,
// through a copy of its index: the user's index, HEAD, branches and stash are never written.
// Works in a repository with no commits (the commit then has no parent).
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { git, gitText } from './git.js';
import { copyIndexFile } from './index-copy.js';

export interface RepoInfo {
  /** The working tree's top folder (a linked worktree's own folder for one). */
  toplevel: string;
  /** The repository's shared git dir (`.git` of the main working tree). */
  commonDir: string;
  /** This working tree's index file. */
  indexFile: string;
}

/** git's "not a git repository" exit code. */
const NOT_A_REPOSITORY = 128;

export async function repoOf(cwd: string): Promise<RepoInfo | undefined> {
  return (await inspectRepo(cwd))?.repo;
}

/** The working tree holding `cwd` and its HEAD commit (undefined before the first commit), in one git call. */
export async function inspectRepo(cwd: string): Promise<{ repo: RepoInfo; head: string | undefined } | undefined> {
  const result = await git(['rev-parse', '--show-toplevel', '--git-common-dir', '--git-path', 'index', '-q', '--verify', 'HEAD^{commit}'], {
    cwd,
    // 1: no commit yet (the three paths are printed all the same); 128: not a repository.
    okCodes: [1, NOT_A_REPOSITORY],
  });
  if (result.exitCode === NOT_A_REPOSITORY) return undefined;
  const [toplevel, commonDir, indexFile, head] = result.stdout.toString('utf8').split('\n');
  if (!toplevel || !commonDir || !indexFile) return undefined;
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(cwd, p));
  return { repo: { toplevel, commonDir: abs(commonDir), indexFile: abs(indexFile) }, head: result.exitCode === 0 && head ? head : undefined };
}

/** HEAD's commit, or undefined on a branch with no commits yet. */
export async function headCommit(cwd: string): Promise<string | undefined> {
  const result = await git(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd, okCodes: [1] });
  const sha = result.stdout.toString('utf8').trim();
  return result.exitCode === 0 && sha ? sha : undefined;
}

export interface SnapshotOptions {
  /** Parent commits of the snapshot; none for a first commit. */
  parents: readonly string[];
  message: string;
  /** Paths (relative to the top level) left out, e.g. folders linked in from elsewhere. */
  exclude?: readonly string[];
}

export interface Snapshot {
  commit: string;
  tree: string;
}

/** Records the working tree at `repo` as a commit, without writing its index or any ref. */
export async function snapshotCommit(repo: RepoInfo, opts: SnapshotOptions): Promise<Snapshot> {
  const tree = await snapshotTree(repo, opts.exclude ?? []);
  const commit = await commitTree(repo.toplevel, tree, opts.parents, opts.message);
  return { commit, tree };
}

/** The working tree as a tree object. A copy of the index keeps git's stat cache, so only changed files are read. */
export async function snapshotTree(repo: RepoInfo, exclude: readonly string[]): Promise<string> {
  const temp = join(tmpdir(), `opencode-ink-index-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    await copyIndexFile(repo.indexFile, temp);
    const env = { GIT_INDEX_FILE: temp };
    const pathspec = ['.', ...exclude.map((p) => `:(exclude,literal)${p}`)];
    await git(['add', '-A', '--', ...pathspec], { cwd: repo.toplevel, env, doing: `recording the working tree of ${repo.toplevel}` });
    return await gitText(['write-tree'], { cwd: repo.toplevel, env });
  } finally {
    await rm(temp, { force: true });
    await rm(`${temp}.lock`, { force: true });
  }
}

export function commitTree(cwd: string, tree: string, parents: readonly string[], message: string): Promise<string> {
  return gitText(['commit-tree', '--no-gpg-sign', ...parents.flatMap((p) => ['-p', p]), '-m', message, tree], { cwd });
}

/** Paths that differ between two trees or commits, NUL-safe. */
export async function changedPaths(cwd: string, from: string, to: string): Promise<string[]> {
  const out = await git(['diff-tree', '-r', '-z', '--name-only', '--no-renames', from, to], { cwd });
  return out.stdout.toString('utf8').split('\0').filter(Boolean);
}
