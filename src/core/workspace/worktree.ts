/*
 * Git worktrees for isolated sub-agents (DESIGN §17).
 *
 * Contract
 * - `create(parentCwd, childId, link, poolSize)` gives a child its own working tree: a git
 *   worktree at `<root>/<project key>/<child id>` (the data dir, never inside the project) on branch
 *   `opencode/<child id>`, holding a commit of the parent's tree as it is now
 *   (uncommitted and untracked-but-not-ignored files included; see repo.ts), plus symlinks to
 *   the parent's `link` folders that exist there and are not part of the tree. The parent's tree
 *   is the one holding `parentCwd` (a worktree itself for a grandchild). The child's cwd is
 *   the same folder relative to the top level. Outside a repository, or without git, it throws
 *   a WorkspaceError with one sentence. A repository with no commits works: the base commit
 *   then has no parent.
 * - `finish(worktree, how)` commits the child's final tree (every change, whoever made it;
 *   linked folders left out) on its branch, then: `merge` applies it to the parent's tree
 *   (merge.ts) — merged or nothing to merge: branch deleted; conflict: branch kept — and
 *   `keep` (a cancelled child) keeps the branch when it holds changes. The worktree is removed
 *   either way (in the background; `settled()` waits for it): its files are first moved into
 *   the project's pool (worktree-pool.ts, at most `poolSize` trees), from which `create` makes
 *   the next child's worktree writing only the files that differ from its base; with a pool
 *   size of 0, or when the pool is full or unusable, the folder is deleted and checked out
 *   anew as before.
 * - Every worktree has an owner record (`<child id>.json` beside it: pid, host, repository,
 *   branch, base). `cleanupStale()` (run at start) finishes the worktrees whose owner process
 *   is gone: their work, if any, is committed on their branch (kept), the folder removed, git's
 *   worktree list pruned; branches with nothing on them are deleted. It also sweeps the pool.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readFile, readdir, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { processAlive } from '../store/lease.js';
import { git, GitError, requireGit } from './git.js';
import { locateRepository } from './git-repository.js';
import { mergeIntoWorkingTree } from './merge.js';
import { changedPaths, inspectRepo, snapshotCommit, type RepoInfo, type Snapshot } from './repo.js';
import { WarmIndex } from './warm-index.js';
import { WorktreePool, type ClaimedTree } from './worktree-pool.js';

/** How many finished children's trees a project keeps for the next ones (`subagents.worktree.pool`). */
export const DEFAULT_POOL_SIZE = 10;

export type MergeState = 'merged' | 'conflict' | 'none';

/** How a child's work came back (or did not): what the task result and its metadata report. */
export interface MergeOutcome {
  state: MergeState;
  /** merged: files changed in the parent's tree; conflict: the conflicting files; none: files kept on the branch, if any. */
  files: string[];
  /** The branch holding the child's work, when it was kept. */
  branch?: string;
  /** The commit the child started from (compare the branch with it to see the child's changes). */
  base?: string;
  /** Why the work was not merged: a conflict, a cancel, an error. */
  reason?: string;
}

export interface ChildWorktree {
  childId: string;
  /** The worktree's folder. */
  path: string;
  /** The child's working directory inside it. */
  cwd: string;
  branch: string;
  base: Snapshot;
  /** The parent's working tree, where the work is merged back. */
  parent: RepoInfo;
  /** Linked folders, relative to the top level. */
  links: string[];
  record: string;
  /** How many trees the project's pool may hold when this one is released (0: none, the folder is deleted). */
  poolSize: number;
}

interface OwnerRecord {
  pid: number;
  host: string;
  commonDir: string;
  path: string;
  branch: string;
  base: string;
  /** Folders linked in, left out of its commits. */
  links: string[];
}

/** A problem the model should read as the task's result (no repository, no git). */
export class WorkspaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkspaceError';
  }
}

export const BRANCH_PREFIX = 'opencode/';

/** Tries of `git worktree add` before a child's start fails (see register()). */
const REGISTER_ATTEMPTS = 3;

export class Workspaces {
  private readonly pending = new Set<Promise<unknown>>();
  /** Removal of a finished child's folder, by child id: a resume waits for it. */
  private readonly removing = new Map<string, Promise<void>>();
  /** Parent working trees being inspected, by folder: children started together share one look. */
  private readonly inspecting = new Map<string, Promise<{ repo: RepoInfo; head: string | undefined }>>();
  /** Base commits being made, by parent top level: children started together share one. */
  private readonly bases = new Map<string, Promise<Snapshot>>();
  private readonly active = new Set<string>();
  /** Refreshed index copies of live worktrees, by folder: they make the commit of a child's work cheap. */
  private readonly warm = new Map<string, WarmIndex>();

  private readonly pool: WorktreePool;

  /** `root` holds the live worktrees; the pool of finished children's trees is its sibling `worktree-pool`. */
  constructor(readonly root: string) {
    this.pool = new WorktreePool(join(dirname(root), 'worktree-pool'));
  }

  /** Resolves when every removal and cleanup started so far has ended. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.pending.add(work);
    void work.then(
      () => this.pending.delete(work),
      () => this.pending.delete(work),
    );
    return work;
  }

  /** Checks that `cwd` can host isolated children, so a refusal comes before a child session exists. */
  async check(cwd: string): Promise<RepoInfo> {
    return (await this.inspect(cwd)).repo;
  }

  private async inspect(cwd: string): Promise<{ repo: RepoInfo; head: string | undefined }> {
    try {
      await requireGit();
    } catch (err) {
      throw new WorkspaceError(err instanceof Error ? err.message : String(err));
    }
    const found = await inspectRepo(cwd);
    if (!found) {
      throw new WorkspaceError(
        `isolation "worktree" needs a git repository, and ${cwd} is not inside one; run the task without isolation, or run \`git init\` there first.`,
      );
    }
    return found;
  }

  async create(parentCwd: string, childId: string, link: readonly string[], poolSize = DEFAULT_POOL_SIZE): Promise<ChildWorktree> {
    const { repo: parent, head } = await this.inspectShared(parentCwd);
    await this.removing.get(childId);
    const key = projectKey(parent);
    const [base, pooled] = await Promise.all([this.baseFor(parent, head, childId), poolSize > 0 ? this.pool.claim(key, parent.commonDir) : undefined]);
    const path = join(this.root, key, childId);
    const record = `${path}.json`;
    await mkdir(dirname(path), { recursive: true });
    // A folder left from an earlier run of this child (its removal failed) would stop `worktree add`.
    await rm(path, { recursive: true, force: true });
    const wanted = `${BRANCH_PREFIX}${childId}`;
    let owner: OwnerRecord = { pid: process.pid, host: hostname(), commonDir: parent.commonDir, path, branch: wanted, base: base.commit, links: [] };
    await writeRecord(record, owner);
    this.active.add(path);
    // Only a branch made here is deleted when the start fails: `wanted` may hold an earlier run's work.
    let made: string | undefined;
    try {
      const branch = await createBranch(parent.toplevel, wanted, base.commit, childId);
      made = branch;
      if (branch !== wanted) {
        owner = { ...owner, branch };
        await writeRecord(record, owner);
      }
      await this.register(parent, branch, path, childId);
      if (!pooled || !(await this.fillFromPool(pooled, path))) {
        // No index yet: every file of the base is written, as `git worktree add` would.
        await git(['read-tree', '--reset', '-u', 'HEAD'], { cwd: path, doing: `checking out the worktree of sub-agent ${childId}` });
      }
      const links = await linkFolders(parent.toplevel, path, link);
      if (links.length > 0) await writeRecord(record, { ...owner, links });
      const cwd = join(path, relative(parent.toplevel, parentCwd));
      await mkdir(cwd, { recursive: true });
      this.warm.set(path, WarmIndex.start(path));
      return { childId, path, cwd, branch, base, parent, links, record, poolSize };
    } catch (err) {
      await this.remove(owner, record).catch(() => undefined);
      if (made) await deleteBranch(parent.toplevel, made).catch(() => undefined);
      throw new WorkspaceError(`Could not create the worktree for the task: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** One look at the parent's working tree for the children that start together (see inspect()). */
  private inspectShared(cwd: string): Promise<{ repo: RepoInfo; head: string | undefined }> {
    const inFlight = this.inspecting.get(cwd);
    if (inFlight) return inFlight;
    const made = this.inspect(cwd);
    this.inspecting.set(cwd, made);
    const forget = () => {
      if (this.inspecting.get(cwd) === made) this.inspecting.delete(cwd);
    };
    made.then(forget, forget);
    return made;
  }

  /**
   * `git worktree add --no-checkout` on the child's new branch: git's record of the worktree, its
   * `.git` file and HEAD, no files. The add is tried up to three times: git reads the other worktrees' records while it adds one and fails
   * on a record another add (this process's or another's) is half-way through writing
   * ("failed to read …/commondir"), and removes its own half-made one when it fails.
   */
  private async register(parent: RepoInfo, branch: string, path: string, childId: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await git(['worktree', 'add', '--quiet', '--no-checkout', path, branch], { cwd: parent.toplevel, doing: `adding the worktree of sub-agent ${childId}` });
        return;
      } catch (err) {
        if (attempt >= REGISTER_ATTEMPTS || (err instanceof GitError && err.failure !== 'failed')) throw err;
        await rm(path, { recursive: true, force: true });
      }
    }
  }

  /**
   * Fills the new worktree at `path` from a pooled tree: only files that differ from the base
   * are written. False, with the folder emptied again, when anything went wrong: the caller
   * checks out every file, so a damaged pool never fails a child.
   */
  private async fillFromPool(pooled: ClaimedTree, path: string): Promise<boolean> {
    try {
      await this.pool.fill(pooled, path);
      return true;
    } catch {
      for (const entry of await readdir(path)) {
        if (entry !== '.git') await rm(join(path, entry), { recursive: true, force: true });
      }
      const dirs = await locateRepository(path);
      if (dirs) await rm(join(dirs.gitDir, 'index'), { force: true });
      return false;
    }
  }

  /** One base commit for children that start from the same tree at the same moment. */
  private baseFor(parent: RepoInfo, head: string | undefined, childId: string): Promise<Snapshot> {
    const inFlight = this.bases.get(parent.toplevel);
    if (inFlight) return inFlight;
    const made = snapshotCommit(parent, { parents: head ? [head] : [], message: `opencode-ink: working tree when sub-agent ${childId} started` });
    this.bases.set(parent.toplevel, made);
    const forget = () => {
      if (this.bases.get(parent.toplevel) === made) this.bases.delete(parent.toplevel);
    };
    made.then(forget, forget);
    return made;
  }

  /**
   * Resolves when the child's index refresh has run (true) or will not (false): from then on,
   * committing its work reads only the files that changed.
   */
  indexWarmed(wt: ChildWorktree): Promise<boolean> {
    return this.warm.get(wt.path)?.refreshed() ?? Promise.resolve(false);
  }

  /** Commits the child's work on its branch, merges it back (`merge`) or keeps it (`keep`), and removes the folder. */
  async finish(wt: ChildWorktree, how: 'merge' | 'keep'): Promise<MergeOutcome> {
    let outcome: MergeOutcome;
    const warm = this.warm.get(wt.path);
    this.warm.delete(wt.path);
    try {
      outcome = await this.bringBack(wt, how, warm);
    } catch (err) {
      // The folder stays: its work is not safe anywhere else yet. The next start commits it on its branch.
      this.active.delete(wt.path);
      const message = err instanceof Error ? err.message : String(err);
      return { state: 'none', files: [], branch: wt.branch, base: wt.base.commit, reason: `its work could not be brought back (${message}); it is left in ${wt.path}` };
    } finally {
      if (warm) void this.track(warm.dispose());
    }
    const owner: OwnerRecord = {
      pid: process.pid,
      host: hostname(),
      commonDir: wt.parent.commonDir,
      path: wt.path,
      branch: wt.branch,
      base: wt.base.commit,
      links: wt.links,
    };
    const removal = this.track(
      this.release(wt)
        .then(() => this.remove(owner, wt.record))
        .then(() => (outcome.branch ? undefined : deleteBranch(wt.parent.toplevel, wt.branch)))
        .catch(() => undefined)
        .finally(() => {
          this.active.delete(wt.path);
          if (this.removing.get(wt.childId) === removal) this.removing.delete(wt.childId);
        }),
    );
    this.removing.set(wt.childId, removal);
    return outcome;
  }

  private async bringBack(wt: ChildWorktree, how: 'merge' | 'keep', warm: WarmIndex | undefined): Promise<MergeOutcome> {
    await unlinkFolders(wt.path, wt.links);
    const final = await commitWorktree(wt, warm);
    // The same tree as it started from: nothing to bring back, nothing to keep.
    if (final.tree === wt.base.tree) return { state: 'none', files: [] };
    const moveBranch = () => git(['update-ref', `refs/heads/${wt.branch}`, final.commit], { cwd: wt.parent.toplevel });
    const kept = { branch: wt.branch, base: wt.base.commit };
    if (how === 'keep') {
      await moveBranch();
      return { state: 'none', files: await changedPaths(wt.parent.toplevel, wt.base.commit, final.commit), ...kept, reason: 'cancelled before it finished' };
    }
    const merged = await mergeIntoWorkingTree(wt.parent, wt.base.commit, final.tree).catch(async (err: unknown) => {
      // The work stays in the folder (finish()), and on its branch too when it can be moved there.
      await moveBranch().catch(() => undefined);
      throw err;
    });
    if (merged.state === 'conflict') {
      // Only work that stays on the branch needs it moved; a merged child's branch is deleted.
      // If it cannot be moved, the work stays in the folder (finish()).
      await moveBranch();
      return { state: 'conflict', files: merged.files, ...kept, reason: merged.reason };
    }
    return { state: merged.state, files: merged.files };
  }

  /** Moves a finished worktree's files into the project's pool, when it has room, for the next child. */
  private async release(wt: ChildWorktree): Promise<void> {
    if (wt.poolSize <= 0) return;
    await this.pool.keep(projectKey(wt.parent), wt.parent.commonDir, wt.path, wt.poolSize).catch(() => false);
  }

  /** Removes a worktree's folder and git's record of it; the owner record last, so a failure is retried at the next start. */
  private async remove(owner: OwnerRecord, record: string): Promise<void> {
    await git(['worktree', 'remove', '--force', '--force', owner.path], { cwd: owner.commonDir }).catch(async () => {
      // The repository moved or the folder is half gone: delete the folder and let git forget it.
      await rm(owner.path, { recursive: true, force: true });
      await git(['worktree', 'prune'], { cwd: owner.commonDir }).catch(() => undefined);
    });
    await rm(record, { force: true });
  }

  /** Finishes worktrees left by processes that are gone (a crash): work kept on their branches, folders removed. */
  cleanupStale(): Promise<void> {
    return this.track(this.sweep());
  }

  private async sweep(): Promise<void> {
    await this.pool.sweep().catch(() => undefined);
    // Most starts find no worktree left: they need not load the asynchronous file system module to see that.
    if (!existsSync(this.root)) return;
    const projects = await readdir(this.root).catch(() => [] as string[]);
    for (const project of projects) {
      const dir = join(this.root, project);
      const entries = await readdir(dir).catch(() => [] as string[]);
      for (const entry of entries.filter((e) => e.endsWith('.json'))) {
        const record = join(dir, entry);
        const owner = await readRecord(record);
        if (!owner) {
          await rm(record, { force: true });
          continue;
        }
        if (this.active.has(owner.path) || (owner.host === hostname() && owner.pid !== process.pid && processAlive(owner.pid))) continue;
        if (owner.host !== hostname()) continue;
        await this.salvage(owner, record).catch(() => undefined);
      }
      // Folders with no record: a removal that failed half-way (records being written are skipped).
      for (const entry of entries.filter((e) => !e.endsWith('.json') && !e.endsWith(RECORD_TEMP) && !entries.includes(`${e}.json`))) {
        await rm(join(dir, entry), { recursive: true, force: true });
      }
    }
  }

  private async salvage(owner: OwnerRecord, record: string): Promise<void> {
    let keep = false;
    const exists = await lstat(join(owner.path, '.git')).then(
      () => true,
      () => false,
    );
    if (exists) {
      await unlinkFolders(owner.path, owner.links);
      const final = await commitWork(owner.path, owner.base, owner.links, 'opencode-ink: work of an interrupted sub-agent');
      keep = (await changedPaths(owner.path, owner.base, final.commit)).length > 0;
      if (keep) await git(['update-ref', `refs/heads/${owner.branch}`, final.commit], { cwd: owner.commonDir });
    }
    await this.remove(owner, record);
    if (!keep) await deleteBranchIfAt(owner.commonDir, owner.branch, owner.base);
  }
}

/**
 * A live child's tree as a commit on top of its worktree's HEAD (its own commits kept). The
 * worktree's paths are known, so git resolves HEAD itself: three git calls, through the warm
 * index copy when there is one (only the files that changed are read), else through a copy of
 * the worktree's own index. Should HEAD not name a commit (the child left an unborn branch),
 * it is done as commitWork does.
 */
async function commitWorktree(wt: ChildWorktree, warm: WarmIndex | undefined): Promise<Snapshot> {
  const message = `opencode-ink: work of sub-agent ${wt.childId}`;
  const indexFile = (await warm?.take()) ?? (await ownIndex(wt.path));
  if (indexFile) {
    const repo: RepoInfo = { toplevel: wt.path, commonDir: wt.parent.commonDir, indexFile };
    try {
      return await snapshotCommit(repo, { parents: ['HEAD'], exclude: wt.links, message });
    } catch (err) {
      if (!(err instanceof GitError) || err.failure !== 'failed') throw err;
    }
  }
  return commitWork(wt.path, wt.base.commit, wt.links, message);
}

/** A linked worktree's own index file, found from its validated `.git` file without running git. */
async function ownIndex(path: string): Promise<string | undefined> {
  const dirs = await locateRepository(path).catch(() => undefined);
  return dirs && dirs.gitDir !== dirs.commonDir ? join(dirs.gitDir, 'index') : undefined;
}

/** The child's tree as a commit on top of what its worktree's HEAD is now (its own commits kept). */
async function commitWork(path: string, base: string, links: readonly string[], message: string): Promise<Snapshot> {
  const found = await inspectRepo(path);
  if (!found) throw new WorkspaceError(`${path} is no longer a git worktree.`);
  return snapshotCommit(found.repo, { parents: [found.head ?? base], exclude: links, message });
}

/** `<repository name>-<hash of its git dir>`: readable, and distinct for two clones of the same name. */
function projectKey(repo: RepoInfo): string {
  const name = basename(repo.commonDir) === '.git' ? basename(dirname(repo.commonDir)) : basename(repo.commonDir);
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'repo';
  return `${safe}-${createHash('sha1').update(repo.commonDir).digest('hex').slice(0, 10)}`;
}

/**
 * Makes the child's branch at `commit`: `opencode/<id>`, or `-2`, `-3`… when an earlier run's
 * branch is kept. `update-ref` with an empty old value makes a branch only where none exists,
 * so the name is free exactly when it succeeds; only a failure asks whether the name was taken.
 */
async function createBranch(cwd: string, wanted: string, commit: string, childId: string): Promise<string> {
  for (let n = 1; ; n++) {
    const name = n === 1 ? wanted : `${wanted}-${n}`;
    try {
      await git(['update-ref', `refs/heads/${name}`, commit, ''], { cwd, doing: `making the branch of sub-agent ${childId}` });
      return name;
    } catch (err) {
      const taken = await git(['show-ref', '--verify', '--quiet', `refs/heads/${name}`], { cwd, okCodes: [1] });
      if (taken.exitCode === 1) throw err;
    }
  }
}

async function deleteBranch(cwd: string, branch: string): Promise<void> {
  await git(['update-ref', '-d', `refs/heads/${branch}`], { cwd });
}

async function deleteBranchIfAt(cwd: string, branch: string, commit: string): Promise<void> {
  // update-ref with an old value deletes only if the branch still points there.
  await git(['update-ref', '-d', `refs/heads/${branch}`, commit], { cwd }).catch((err: unknown) => {
    if (!(err instanceof GitError)) throw err;
  });
}

/** Links the parent's folders (e.g. node_modules) that exist there and that the checkout does not have. */
async function linkFolders(parentTop: string, path: string, link: readonly string[]): Promise<string[]> {
  const linked: string[] = [];
  for (const rel of link) {
    const source = join(parentTop, rel);
    const target = join(path, rel);
    const there = await lstat(source).then(
      () => true,
      () => false,
    );
    const already = await lstat(target).then(
      () => true,
      () => false,
    );
    if (!there || already) continue;
    await mkdir(dirname(target), { recursive: true });
    await symlink(source, target);
    linked.push(rel);
  }
  return linked;
}

/** Removes the links this code made (only while they are still links: a child may have replaced one with a real folder). */
async function unlinkFolders(path: string, links: readonly string[]): Promise<void> {
  for (const rel of links) {
    const target = join(path, rel);
    const st = await lstat(target).catch(() => undefined);
    if (st?.isSymbolicLink()) await unlink(target);
  }
}

async function readRecord(file: string): Promise<OwnerRecord | undefined> {
  try {
    const data: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (!isRecord(data)) return undefined;
    const { pid, host, commonDir, path, branch, base, links } = data;
    if (typeof pid !== 'number' || typeof host !== 'string' || typeof commonDir !== 'string') return undefined;
    if (typeof path !== 'string' || typeof branch !== 'string' || typeof base !== 'string') return undefined;
    const linked = Array.isArray(links) ? links.filter((l): l is string => typeof l === 'string') : [];
    return { pid, host, commonDir, path, branch, base, links: linked };
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Suffix of a record being written: never read as a record, never swept as a folder. */
const RECORD_TEMP = '.tmp';

/**
 * Writes an owner record whole (temp file + rename): a sweep in another process starting at
 * the same moment must never read half a record, take it for garbage and remove a live worktree.
 */
async function writeRecord(record: string, owner: OwnerRecord): Promise<void> {
  const temp = `${record}.${process.pid}${RECORD_TEMP}`;
  await writeFile(temp, JSON.stringify(owner), { mode: 0o600 });
  await rename(temp, record);
}
