/*
 * Prepared trees for isolated sub-agents (DESIGN §17): why a child's worktree costs the same
 * for a 50-file and a 50,000-file repository.
 *
 * `git worktree add` writes every file of the tree. Most of those files are the same from one
 * child to the next, so a finished child's files are kept (moved, not copied) with their index
 * in a per-project pool, and the next child's new worktree takes them: git then writes only the
 * files that differ between the two trees (`read-tree --reset -u`, which checks each file's
 * stat data against the kept index). The pooled files are plain folders, not git worktrees:
 * nothing shows in `git worktree list`, no branch stays checked out, and each child gets a new
 * worktree git directory from `git worktree add --no-checkout`, so nothing a child planted in
 * its git directory (hooks, config, refs, HEAD, rebase state) reaches the next one.
 *
 * Contract
 * - Layout: `<pool root>/<project key>/free-<id>/` holds `tree/` (the files), `index` and
 *   `meta.json` (`{ commonDir, at }`); `busy-<host>-<pid>-<id>/` is one a process is moving.
 * - `claim(key, commonDir)` takes a free entry whose repository is `commonDir` by renaming it
 *   to a busy name: a rename succeeds for one caller only, across processes too. Undefined when
 *   there is none.
 * - `fill(claimed, worktree)` moves the claimed files into a worktree made with
 *   `git worktree add --no-checkout` (only its `.git` file in it), and brings them to the
 *   worktree's HEAD tree: every tracked file the previous child modified or deleted is written
 *   again, untracked and ignored files are deleted (`clean -ffdx`), submodule folders emptied,
 *   assume-unchanged and skip-worktree bits cleared (git would not see changes to those
 *   files), a kept index with unmerged entries dropped. It throws on any problem; the caller
 *   removes the worktree and makes a fresh one. The claimed entry is gone afterwards either way.
 * - `keep(key, commonDir, worktree, size)` moves a finished worktree's files (all but `.git`)
 *   and its index into the pool when fewer than `size` entries are free, and says whether it
 *   did; the caller then removes the (nearly empty) worktree as before. The pool never holds
 *   more than `size` free entries once the children ending together have all been kept.
 * - `sweep()` removes busy entries of processes that are gone, free entries idle for more than
 *   a day or whose repository no longer exists, and anything else in the pool folders.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../store/lease.js';
import { git } from './git.js';
import { locateRepository } from './git-repository.js';

/** Free entries unused for this long are removed at the next start: the repository has likely moved far on. */
export const POOL_IDLE_MS = 24 * 60 * 60_000;

const FREE = 'free-';
const BUSY = 'busy-';

export interface ClaimedTree {
  /** The busy entry's folder (`tree/`, `index`, `meta.json`). */
  dir: string;
}

interface PoolMeta {
  commonDir: string;
  at: number;
}

export class WorktreePool {
  /** The last admission queued per project folder (see admit()). */
  private readonly admitting = new Map<string, Promise<void>>();

  constructor(readonly root: string) {}

  async claim(key: string, commonDir: string): Promise<ClaimedTree | undefined> {
    const dir = join(this.root, key);
    const entries = await readdir(dir).catch(() => [] as string[]);
    for (const entry of entries.filter((e) => e.startsWith(FREE))) {
      const busy = join(dir, busyName());
      try {
        await rename(join(dir, entry), busy);
      } catch {
        continue; // another process took it first
      }
      const meta = await readMeta(busy);
      if (meta?.commonDir === commonDir) return { dir: busy };
      await rm(busy, { recursive: true, force: true });
    }
    return undefined;
  }

  async fill(claimed: ClaimedTree, worktree: string): Promise<void> {
    try {
      const dirs = await locateRepository(worktree);
      if (!dirs || dirs.gitDir === dirs.commonDir) throw new Error(`${worktree} is not a linked worktree`);
      const tree = join(claimed.dir, 'tree');
      for (const entry of await readdir(tree)) {
        if (entry === '.git') continue;
        await rename(join(tree, entry), join(worktree, entry));
      }
      const index = join(dirs.gitDir, 'index');
      await rename(join(claimed.dir, 'index'), index).catch(() => undefined);
      const gitlinks = await this.checkIndex(worktree, index);
      // One-way merge with the HEAD tree: entries whose stat data still matches are left alone,
      // every other tracked file is written, files of the old tree not in the new one deleted.
      await git(['read-tree', '--reset', '-u', 'HEAD'], { cwd: worktree, doing: `bringing a pooled tree to the base of ${worktree}` });
      await git(['clean', '-ffdxq'], { cwd: worktree, doing: `removing a previous sub-agent's untracked files from ${worktree}` });
      for (const link of gitlinks) await emptyFolder(join(worktree, link));
    } finally {
      await rm(claimed.dir, { recursive: true, force: true });
    }
  }

  /**
   * Clears the assume-unchanged and skip-worktree bits a child set with `update-index` (git
   * would not see changes to those files, nor write them), drops a kept index with any other
   * oddity (unmerged entries), and returns the submodule entries (their folders may hold a clone).
   */
  private async checkIndex(worktree: string, index: string): Promise<string[]> {
    const present = await stat(index).then(
      () => true,
      () => false,
    );
    if (!present) return [];
    const listed = await git(['ls-files', '-s', '-v', '-z'], { cwd: worktree }).catch(() => undefined);
    const gitlinks: string[] = [];
    const flagged: string[] = [];
    for (const line of listed ? listed.stdout.toString('utf8').split('\0') : []) {
      if (!line) continue;
      const path = line.slice(line.indexOf('\t') + 1);
      const tag = line.slice(0, 2);
      if (tag === 'h ' || tag === 'S ' || tag === 's ') flagged.push(path);
      else if (tag !== 'H ') {
        await rm(index, { force: true });
        return [];
      }
      if (line.slice(2).startsWith('160000 ')) gitlinks.push(path);
    }
    if (!listed) await rm(index, { force: true });
    else if (flagged.length > 0) {
      await git(['update-index', '--no-assume-unchanged', '--no-skip-worktree', '-z', '--stdin'], { cwd: worktree, input: flagged.map((p) => `${p}\0`).join('') });
    }
    return gitlinks;
  }

  async keep(key: string, commonDir: string, worktree: string, size: number): Promise<boolean> {
    const dir = join(this.root, key);
    if ((await this.freeCount(dir)) >= size) return false;
    const dirs = await locateRepository(worktree).catch(() => undefined);
    if (!dirs || dirs.gitDir === dirs.commonDir || dirs.commonDir !== commonDir) return false;
    const busy = join(dir, busyName());
    const tree = join(busy, 'tree');
    try {
      // Untracked and ignored files go with the rest: the next claim deletes them (`fill`).
      await mkdir(tree, { recursive: true });
      const meta: PoolMeta = { commonDir, at: Date.now() };
      await writeFile(join(busy, 'meta.json'), JSON.stringify(meta), { mode: 0o600 });
      await rename(join(dirs.gitDir, 'index'), join(busy, 'index')).catch(() => undefined);
      for (const entry of await readdir(worktree)) {
        if (entry === '.git') continue;
        await rename(join(worktree, entry), join(tree, entry));
      }
      if (await this.admit(dir, busy, size)) return true;
    } catch {
      // Not kept: removed below.
    }
    await rm(busy, { recursive: true, force: true });
    return false;
  }

  /**
   * Makes a busy entry free when the bound allows it. Children of this process ending together
   * take turns here, so the pool fills to exactly `size`; across processes it may stay below.
   */
  private admit(dir: string, busy: string, size: number): Promise<boolean> {
    const turn = (this.admitting.get(dir) ?? Promise.resolve()).then(async () => {
      if ((await this.freeCount(dir)) >= size) return false;
      const free = join(dir, `${FREE}${randomBytes(6).toString('hex')}`);
      await rename(busy, free);
      // Another process admitted one at the same moment: the entries over the bound go again.
      if ((await this.freeCount(dir)) <= size) return true;
      await rename(free, busy);
      return false;
    });
    const next = turn.then(
      () => undefined,
      () => undefined,
    );
    this.admitting.set(dir, next);
    void next.then(() => {
      if (this.admitting.get(dir) === next) this.admitting.delete(dir);
    });
    return turn;
  }

  private async freeCount(dir: string): Promise<number> {
    return (await readdir(dir).catch(() => [] as string[])).filter((e) => e.startsWith(FREE)).length;
  }

  async sweep(): Promise<void> {
    // Most starts find no pool: they need not load the asynchronous file system module to see that.
    if (!existsSync(this.root)) return;
    const keys = await readdir(this.root).catch(() => [] as string[]);
    for (const key of keys) {
      const dir = join(this.root, key);
      const entries = await readdir(dir).catch(() => [] as string[]);
      for (const entry of entries) {
        const path = join(dir, entry);
        if (entry.startsWith(BUSY)) {
          if (!busyOwnerGone(entry)) continue;
          await rm(path, { recursive: true, force: true });
        } else if (entry.startsWith(FREE)) {
          const meta = await readMeta(path);
          const repoThere = meta
            ? await stat(meta.commonDir).then(
                (s) => s.isDirectory(),
                () => false,
              )
            : false;
          if (meta && repoThere && Date.now() - meta.at < POOL_IDLE_MS) continue;
          // Claimed first, so no other process hands it out while it is removed.
          const doomed = join(dir, busyName());
          if (await rename(path, doomed).then(() => true, () => false)) await rm(doomed, { recursive: true, force: true });
        } else {
          await rm(path, { recursive: true, force: true });
        }
      }
    }
  }
}

function hostTag(): string {
  return hostname().replace(/[^A-Za-z0-9]/g, '').slice(0, 20) || 'host';
}

function busyName(): string {
  return `${BUSY}${hostTag()}-${process.pid}-${randomBytes(6).toString('hex')}`;
}

/** A busy entry of this host whose process is gone (another host's entries are left to it). */
function busyOwnerGone(entry: string): boolean {
  const [host, pid] = entry.slice(BUSY.length).split('-');
  if (host !== hostTag()) return false;
  const owner = Number(pid);
  return Number.isInteger(owner) && owner !== process.pid && !processAlive(owner);
}

async function readMeta(dir: string): Promise<PoolMeta | undefined> {
  try {
    const data: unknown = JSON.parse(await readFile(join(dir, 'meta.json'), 'utf8'));
    if (typeof data !== 'object' || data === null) return undefined;
    const { commonDir, at } = data as Record<string, unknown>;
    return typeof commonDir === 'string' && typeof at === 'number' ? { commonDir, at } : undefined;
  } catch {
    return undefined;
  }
}

/** Deletes what a folder holds (a submodule clone a child made) and leaves it empty, as a checkout does. */
async function emptyFolder(path: string): Promise<void> {
  const entries = await readdir(path).catch(() => [] as string[]);
  for (const entry of entries) await rm(join(path, entry), { recursive: true, force: true });
}
