// An isolated child's commit is made from a refreshed copy of its worktree's index once the
// checkout is two seconds old: the copy must make git trust the stat data of unchanged files
// (so only changed files are read), and must never hide a change — an edit made after the
// refresh, or entries the child added to its own index with git.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { copyIndexFile } from '../../src/core/workspace/index-copy.js';
import { repoOf } from '../../src/core/workspace/repo.js';
import { WarmIndex } from '../../src/core/workspace/warm-index.js';
import { Workspaces } from '../../src/core/workspace/worktree.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const git = (cwd: string, args: string[], env: Record<string, string> = {}) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8', env: { ...process.env, ...env } }).trim();

function project(): { dir: string; root: string } {
  const dir = mkdtempSync(join(tmpdir(), 'oci-warm-'));
  dirs.push(dir);
  const root = join(dir, 'project');
  execFileSync('mkdir', ['-p', join(root, 'src')]);
  for (let i = 0; i < 20; i++) writeFileSync(join(root, 'src', `f${i}.txt`), `file ${i}\n`);
  writeFileSync(join(root, '.gitignore'), 'build/\n');
  git(root, ['init', '-q']);
  git(root, ['add', '-A']);
  git(root, ['commit', '-qm', 'init']);
  return { dir, root };
}

/** Entries git must re-read when committing through a copy of `index` (mtime not older than the copy). */
function racyEntries(cwd: string, index: string, into: string): Promise<number> {
  return copyIndexFile(index, into).then(() => {
    const copyTime = statSync(into).mtimeMs / 1000;
    const debug = git(cwd, ['ls-files', '--debug'], { GIT_INDEX_FILE: into });
    const mtimes = [...debug.matchAll(/^\s+mtime: (\d+):(\d+)$/gm)].map((m) => Number(m[1]) + Number(m[2]) / 1e9);
    expect(mtimes.length).toBeGreaterThan(0);
    return mtimes.filter((t) => t >= Math.floor(copyTime)).length;
  });
}

it('refreshes a private copy so no checked-out file has to be read again', async () => {
  const { dir, root } = project();
  const worktree = join(dir, 'wt');
  git(root, ['worktree', 'add', '-q', '--detach', worktree, 'HEAD']);
  const repo = await repoOf(worktree);
  if (!repo) throw new Error('no worktree');
  // Straight after a checkout, every entry is racy in the copy a commit is made from.
  expect(await racyEntries(worktree, repo.indexFile, join(dir, 'plain'))).toBe(21);

  const warm = WarmIndex.start(worktree);
  expect(await warm.refreshed()).toBe(true);
  const copy = await warm.take();
  if (!copy) throw new Error('no warm copy');
  expect(await racyEntries(worktree, copy, join(dir, 'warm'))).toBe(0);
  await warm.dispose();
  expect(() => statSync(copy)).toThrow();
});

it('gives no copy when asked before the refresh, and none once the worktree index changed', async () => {
  const { dir, root } = project();
  const worktree = join(dir, 'wt');
  git(root, ['worktree', 'add', '-q', '--detach', worktree, 'HEAD']);
  const early = WarmIndex.start(worktree);
  expect(await early.take()).toBeUndefined();
  expect(await early.refreshed()).toBe(false);

  const warm = WarmIndex.start(worktree);
  expect(await warm.refreshed()).toBe(true);
  writeFileSync(join(worktree, 'new.txt'), 'staged by the child\n');
  git(worktree, ['add', 'new.txt']);
  expect(await warm.take()).toBeUndefined();
  await warm.dispose();
});

it('brings back an edit made after the refresh and files the child committed itself', async () => {
  const { dir, root } = project();
  const workspaces = new Workspaces(join(dir, 'data'));
  const wt = await workspaces.create(root, 'ses_warm1', []);
  expect(await workspaces.indexWarmed(wt)).toBe(true);
  // Same size as before, written right after the refresh: only the content differs.
  writeFileSync(join(wt.path, 'src', 'f3.txt'), 'FILE 3\n');
  // An ignored file the child adds with git itself: only its own index knows it.
  execFileSync('mkdir', ['-p', join(wt.path, 'build')]);
  writeFileSync(join(wt.path, 'build', 'out.txt'), 'forced\n');
  git(wt.path, ['add', '-f', 'build/out.txt']);
  git(wt.path, ['commit', '-qm', 'child commit']);

  const outcome = await workspaces.finish(wt, 'merge');
  await workspaces.settled();
  expect(outcome.state).toBe('merged');
  expect(outcome.files.sort()).toEqual(['build/out.txt', 'src/f3.txt']);
  expect(readFileSync(join(root, 'src', 'f3.txt'), 'utf8')).toBe('FILE 3\n');
  expect(readFileSync(join(root, 'build', 'out.txt'), 'utf8')).toBe('forced\n');
});

it('brings back an edit made after the refresh through the warm copy', async () => {
  const { dir, root } = project();
  const workspaces = new Workspaces(join(dir, 'data'));
  const wt = await workspaces.create(root, 'ses_warm2', []);
  expect(await workspaces.indexWarmed(wt)).toBe(true);
  writeFileSync(join(wt.path, 'src', 'f4.txt'), 'FILE 4\n');
  writeFileSync(join(wt.path, 'src', 'added.txt'), 'new\n');
  rmSync(join(wt.path, 'src', 'f5.txt'));

  const outcome = await workspaces.finish(wt, 'merge');
  await workspaces.settled();
  expect(outcome.state).toBe('merged');
  expect(outcome.files.sort()).toEqual(['src/added.txt', 'src/f4.txt', 'src/f5.txt']);
  expect(readFileSync(join(root, 'src', 'f4.txt'), 'utf8')).toBe('FILE 4\n');
  expect(() => statSync(join(root, 'src', 'f5.txt'))).toThrow();
});
