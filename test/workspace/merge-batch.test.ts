// Merges of children that end together (merge.ts): they share one read of the parent's tree
// and are computed at once, yet every result is the one the merges would have had run one
// after another, in the order asked — the same line changed twice, a file added to a folder
// another child moves, a user's edit meanwhile. Real git; the git on PATH is wrapped only to
// count what the program runs.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mergeIntoWorkingTree } from '../../src/core/workspace/merge.js';
import { repoOf, type RepoInfo } from '../../src/core/workspace/repo.js';

const dirs: string[] = [];
let log = '';
const savedPath = process.env.PATH;

beforeEach(() => {
  // A `git` first on PATH that notes its arguments, then runs the real one.
  const bin = mkdtempSync(join(tmpdir(), 'oci-merge-batch-bin-'));
  dirs.push(bin);
  log = join(bin, 'calls.log');
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realGit}' "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  process.env.PATH = `${bin}:${savedPath ?? ''}`;
});

afterEach(() => {
  process.env.PATH = savedPath;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const git = (cwd: string, args: string[], env: Record<string, string> = {}, input?: string) =>
  execFileSync('/usr/bin/env', ['git', '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8', env: { ...process.env, ...env }, input }).trim();

/** A repository with `files` committed and checked out; returns it and its commit (the children's base). */
function project(files: Record<string, string>): { dir: string; repo: Promise<RepoInfo | undefined>; base: string } {
  const dir = mkdtempSync(join(tmpdir(), 'oci-merge-batch-'));
  dirs.push(dir);
  git(dir, ['init', '-q']);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-qm', 'init']);
  return { dir, repo: repoOf(dir), base: git(dir, ['rev-parse', 'HEAD']) };
}

/** A child's final tree: the base with `changes` made (null deletes a path). */
function childTree(dir: string, base: string, changes: Record<string, string | null>): string {
  const env = { GIT_INDEX_FILE: join(dir, '.git', `child-index-${Math.random().toString(36).slice(2)}`) };
  git(dir, ['read-tree', base], env);
  for (const [path, content] of Object.entries(changes)) {
    if (content === null) {
      git(dir, ['update-index', '--force-remove', path], env);
    } else {
      const blob = git(dir, ['hash-object', '-w', '--stdin'], env, content);
      git(dir, ['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], env);
    }
  }
  const tree = git(dir, ['write-tree'], env);
  rmSync(env.GIT_INDEX_FILE, { force: true });
  return tree;
}

/** How many times the parent's working tree was read whole (`git add -A` through an index copy). */
function treeReads(): number {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => /(^| )add -A( |$)/.test(line)).length;
}

/** A child that adds a file of its own: merged first and alone, while the next ones wait together. */
const lead = (dir: string, base: string) => childTree(dir, base, { 'lead.txt': 'the lead child\n' });

const lines = (n: number, tag = '') => Array.from({ length: n }, (_, i) => `line ${i}${tag}\n`).join('');

describe('merges that wait together', () => {
  it("share one read of the parent's tree, and every child's change lands", async () => {
    const files = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`src/d${i}/f${i}.ts`, lines(5)]));
    const { dir, repo, base } = project(files);
    const parent = (await repo)!;
    const trees = Array.from({ length: 10 }, (_, i) => childTree(dir, base, { [`src/d${i}/f${i}.ts`]: `${lines(5)}// child ${i}\n` }));
    writeFileSync(log, '');

    const results = await Promise.all(trees.map((tree) => mergeIntoWorkingTree(parent, base, tree)));

    results.forEach((result, i) => expect(result).toEqual({ state: 'merged', files: [`src/d${i}/f${i}.ts`] }));
    for (let i = 0; i < 10; i++) expect(readFileSync(join(dir, `src/d${i}/f${i}.ts`), 'utf8')).toBe(`${lines(5)}// child ${i}\n`);
    // The first merge starts alone; the nine that waited for it share the next read.
    expect(treeReads()).toBeLessThanOrEqual(2);
    expect(git(dir, ['status', '--porcelain']).split('\n')).toHaveLength(10);
  });

  it('land the first of two changes to the same line and report the second as a conflict, as one after another would', async () => {
    const { dir, repo, base } = project({ 'shared.txt': lines(10), 'other.txt': lines(3) });
    const parent = (await repo)!;
    const first = childTree(dir, base, { 'shared.txt': lines(10).replace('line 5\n', 'line 5 by the first\n') });
    const second = childTree(dir, base, { 'shared.txt': lines(10).replace('line 5\n', 'line 5 by the second\n') });
    const third = childTree(dir, base, { 'other.txt': lines(3, ' third') });

    // The lead merge runs alone; the three asked for meanwhile form one batch.
    const results = await Promise.all([lead(dir, base), first, second, third].map((tree) => mergeIntoWorkingTree(parent, base, tree)));

    expect(results[1]).toEqual({ state: 'merged', files: ['shared.txt'] });
    expect(results[2]).toMatchObject({ state: 'conflict', files: ['shared.txt'] });
    expect(results[3]).toEqual({ state: 'merged', files: ['other.txt'] });
    expect(readFileSync(join(dir, 'shared.txt'), 'utf8')).toContain('line 5 by the first\n');
    expect(readFileSync(join(dir, 'other.txt'), 'utf8')).toBe(lines(3, ' third'));
    expect(readFileSync(join(dir, 'shared.txt'), 'utf8')).not.toContain('<<<<<<<');
  });

  it('give a file added to a folder another child moved away the result git gives one after another', async () => {
    const { dir, repo, base } = project({ 'old/a.txt': lines(4, ' a'), 'old/b.txt': lines(4, ' b'), 'keep.txt': 'keep\n' });
    const parent = (await repo)!;
    const mover = childTree(dir, base, { 'old/a.txt': null, 'old/b.txt': null, 'new/a.txt': lines(4, ' a'), 'new/b.txt': lines(4, ' b') });
    const adder = childTree(dir, base, { 'old/c.txt': 'added by the second child\n' });

    const [, moved, added] = await Promise.all([lead(dir, base), mover, adder].map((tree) => mergeIntoWorkingTree(parent, base, tree)));

    expect(moved).toEqual({ state: 'merged', files: expect.arrayContaining(['old/a.txt', 'old/b.txt', 'new/a.txt', 'new/b.txt']) });
    // Once the folder has moved, git sees the new file as belonging in the moved folder: a conflict.
    expect(added).toMatchObject({ state: 'conflict', files: ['new/c.txt'] });
    expect(existsSync(join(dir, 'old'))).toBe(false);
    expect(existsSync(join(dir, 'new/c.txt'))).toBe(false);
  });

  it("keep a user's edit that meets one child's change, and merge the others", async () => {
    const files = Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`f${i}.txt`, lines(3)]));
    const { dir, repo, base } = project(files);
    const parent = (await repo)!;
    const trees = Array.from({ length: 4 }, (_, i) => childTree(dir, base, { [`f${i}.txt`]: lines(3, ` child ${i}`) }));
    writeFileSync(join(dir, 'f3.txt'), lines(3, ' user'));

    const [, ...results] = await Promise.all([lead(dir, base), ...trees].map((tree) => mergeIntoWorkingTree(parent, base, tree)));

    for (let i = 0; i < 3; i++) expect(results[i]).toEqual({ state: 'merged', files: [`f${i}.txt`] });
    expect(results[3]).toMatchObject({ state: 'conflict', files: ['f3.txt'] });
    expect(readFileSync(join(dir, 'f3.txt'), 'utf8')).toBe(lines(3, ' user'));
  });
});
