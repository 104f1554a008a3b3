// A commit made from the working tree through a copy of the index (the base of an isolated
// child) must see a same-size edit made in the second the index was last written: git
// re-reads such "racy" entries only while the index is not newer than them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { repoOf, snapshotCommit } from '../../src/core/workspace/repo.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

it('records a same-size edit made in the second the index was written', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'oci-racy-'));
  dirs.push(dir);
  git(dir, 'init', '-q');
  const file = join(dir, 'a.txt');
  writeFileSync(file, 'aaaa\n');
  // The index and the file share one second, a minute ago: the entry is racy.
  const then = new Date(Date.now() - 60_000);
  utimesSync(file, then, then);
  git(dir, 'add', 'a.txt');
  const index = join(dir, '.git', 'index');
  utimesSync(index, then, then);
  // Same size, same time: only the content tells the edit apart.
  writeFileSync(file, 'bbbb\n');
  utimesSync(file, then, then);
  expect(statSync(file).mtimeMs).toBe(statSync(index).mtimeMs);

  const repo = await repoOf(dir);
  if (!repo) throw new Error('not a repository');
  const snap = await snapshotCommit(repo, { parents: [], message: 'base' });
  expect(git(dir, 'show', `${snap.tree}:a.txt`)).toBe('bbbb');
});
