/*
 * A refreshed private copy of a new worktree's index (DESIGN §17).
 *
 * Why: `git worktree add` writes the index in the same second as the files it checks out, so
 * every entry is "racily clean" and the commit of the child's work (`git add -A` through a copy
 * of that index) reads and hashes every file of the tree again — 5,000 files for 5,000 files,
 * though the child changed one. Once the wall clock has moved two seconds past the checkout,
 * `git update-index --refresh` on a private copy re-checks those entries and records stat data
 * git can trust afterwards; a child runs far longer than that (every model reply takes seconds),
 * so the work is done while the child runs, not while the parent waits for its result.
 *
 * Contract
 * - `WarmIndex.start(worktree)` schedules the refresh; it never touches the
 *   worktree's own index (the child may run git itself) and never fails: any problem only means
 *   there is no warm copy.
 * - `take()` stops a refresh not yet started, waits for one under way, and gives the copy's
 *   path only while the worktree's own index is unchanged since it was copied (same inode, size
 *   and modification time): if the child ran `git add` or `git commit`, its index holds entries
 *   the copy lacks, and the caller must use the worktree's index as before. Git's own checks
 *   still compare every file's stat data with the copy, so a file changed after the refresh is
 *   read again: the copy only saves work, it never decides content.
 * - `refreshed()` resolves once the refresh has run (or will not run), with whether the copy
 *   exists; `dispose()` removes the copy.
 */
import { randomBytes } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from './git.js';
import { copyIndexFile } from './index-copy.js';
import { inspectRepo } from './repo.js';

/**
 * How long after the checkout to refresh: past the next second boundary, plus one second
 * because the copy the commit is later made from is dated a second before its original
 * (index-copy.ts). Only then are the checked-out files older than that copy in git's eyes.
 */
function refreshDelay(now: number): number {
  return 2000 - (now % 1000) + 50;
}

interface IndexIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

async function identify(file: string): Promise<IndexIdentity | undefined> {
  const st = await stat(file).catch(() => undefined);
  return st ? { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs } : undefined;
}

export class WarmIndex {
  private timer: NodeJS.Timeout | undefined;
  private refresh: Promise<IndexIdentity | undefined> | undefined;
  private readonly done: Promise<boolean>;
  private finished: (made: boolean) => void = () => undefined;
  private readonly copy = join(tmpdir(), `opencode-ink-warm-index-${process.pid}-${randomBytes(6).toString('hex')}`);

  /** The worktree's own index, found when the refresh runs. */
  private indexFile: string | undefined;

  private constructor(private readonly worktree: string) {
    this.done = new Promise((resolve) => (this.finished = resolve));
  }

  static start(worktree: string): WarmIndex {
    const warm = new WarmIndex(worktree);
    warm.timer = setTimeout(() => {
      warm.timer = undefined;
      warm.refresh = warm.run();
      void warm.refresh.then((copied) => warm.finished(copied !== undefined));
    }, refreshDelay(Date.now()));
    // A pending refresh must never keep the program alive.
    warm.timer.unref();
    return warm;
  }

  /** Copies the worktree's index and refreshes the copy; resolves with the original's identity when the copy is usable. */
  private async run(): Promise<IndexIdentity | undefined> {
    try {
      this.indexFile = (await inspectRepo(this.worktree))?.repo.indexFile;
      const before = this.indexFile ? await identify(this.indexFile) : undefined;
      if (!this.indexFile || !before || !(await copyIndexFile(this.indexFile, this.copy))) return undefined;
      // Exit code 1 only says some files differ from the index (the child's edits): the copy is refreshed all the same.
      await git(['update-index', '-q', '--refresh', '--force-write-index'], { cwd: this.worktree, env: { GIT_INDEX_FILE: this.copy }, okCodes: [1] });
      return before;
    } catch {
      return undefined;
    }
  }

  /** Resolves when the refresh has run (true: the copy exists) or was called off (false). */
  refreshed(): Promise<boolean> {
    return this.done;
  }

  /** Calls off a refresh that has not started yet. */
  private callOff(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.finished(false);
  }

  /** The refreshed copy's path, or undefined when there is none or the worktree's index has changed since. */
  async take(): Promise<string | undefined> {
    this.callOff();
    const copied = await this.refresh;
    if (!copied || !this.indexFile) return undefined;
    const now = await identify(this.indexFile);
    const same = now !== undefined && now.ino === copied.ino && now.size === copied.size && now.mtimeMs === copied.mtimeMs;
    return same ? this.copy : undefined;
  }

  async dispose(): Promise<void> {
    this.callOff();
    await this.refresh;
    await rm(this.copy, { force: true });
    await rm(`${this.copy}.lock`, { force: true });
  }
}
