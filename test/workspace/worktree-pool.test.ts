// The pool of finished children's trees (DESIGN §17, worktree-pool.ts): the next isolated
// child's worktree is made from them, writing only the files that differ from its base — and
// nothing a previous child left (files, index bits, HEAD, its git directory) reaches it.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { Workspaces, type ChildWorktree } from '../../src/core/workspace/worktree.js';
import { WorktreePool } from '../../src/core/workspace/worktree-pool.js';
import { REPO_ROOT } from '../support/repo-root.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

function project(): { dir: string; root: string; data: string } {
  const dir = mkdtempSync(join(tmpdir(), 'oci-pool-'));
  dirs.push(dir);
  const root = join(dir, 'project');
  mkdirSync(join(root, 'src'), { recursive: true });
  for (let i = 0; i < 20; i++) writeFileSync(join(root, 'src', `f${i}.txt`), `file ${i}\n`);
  writeFileSync(join(root, '.gitignore'), 'build/\n');
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'init');
  return { dir, root, data: join(dir, 'data', 'worktrees') };
}

const poolRoot = (data: string) => join(data, '..', 'worktree-pool');

/** The free entries of every project in the pool. */
function freeEntries(data: string): string[] {
  const root = poolRoot(data);
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((key) => readdirSync(join(root, key)).filter((e) => e.startsWith('free-')).map((e) => join(root, key, e)));
}

const ino = (file: string) => statSync(file).ino;

/** What `git status` says in a child's worktree: empty when it holds exactly its base. */
const status = (wt: ChildWorktree) => git(wt.path, 'status', '--porcelain', '--ignored', '--untracked-files=all');

describe('the worktree pool', () => {
  it("makes the next child's worktree from a finished one: unchanged files are not written again, the live tree is its base", async () => {
    const { root, data } = project();
    const workspaces = new Workspaces(data);
    const first = await workspaces.create(root, 'ses_pool1', []);
    const kept = ino(join(first.path, 'src', 'f1.txt'));
    expect((await workspaces.finish(first, 'merge')).state).toBe('none');
    await workspaces.settled();
    expect(freeEntries(data)).toHaveLength(1);
    // Nothing left in git's view: no worktree, no branch.
    expect(git(root, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(git(root, 'branch', '--list', 'opencode/*')).toBe('');

    // The user works on: a committed change, an uncommitted one, a new file.
    writeFileSync(join(root, 'src', 'f2.txt'), 'committed change\n');
    git(root, 'commit', '-qam', 'two');
    writeFileSync(join(root, 'src', 'f3.txt'), 'uncommitted change\n');
    writeFileSync(join(root, 'new.txt'), 'untracked\n');
    const second = await workspaces.create(root, 'ses_pool2', []);
    expect(freeEntries(data)).toHaveLength(0);
    expect(ino(join(second.path, 'src', 'f1.txt'))).toBe(kept);
    expect(readFileSync(join(second.path, 'src', 'f2.txt'), 'utf8')).toBe('committed change\n');
    expect(readFileSync(join(second.path, 'src', 'f3.txt'), 'utf8')).toBe('uncommitted change\n');
    expect(readFileSync(join(second.path, 'new.txt'), 'utf8')).toBe('untracked\n');
    expect(status(second)).toBe('');
    expect(git(second.path, 'symbolic-ref', 'HEAD')).toBe('refs/heads/opencode/ses_pool2');

    writeFileSync(join(second.path, 'src', 'f4.txt'), 'from the child\n');
    const outcome = await workspaces.finish(second, 'merge');
    expect(outcome).toMatchObject({ state: 'merged', files: ['src/f4.txt'] });
    expect(readFileSync(join(root, 'src', 'f4.txt'), 'utf8')).toBe('from the child\n');
    expect(readFileSync(join(root, 'src', 'f3.txt'), 'utf8')).toBe('uncommitted change\n');
    await workspaces.settled();
    expect(freeEntries(data)).toHaveLength(1);
  });

  it("never hands a previous child's leftovers to the next one", async () => {
    const { root, data } = project();
    const workspaces = new Workspaces(data);
    const first = await workspaces.create(root, 'ses_dirty', []);
    const kept = ino(join(first.path, 'src', 'f1.txt'));
    const gitDir = git(first.path, 'rev-parse', '--absolute-git-dir');
    writeFileSync(join(first.path, 'src', 'f5.txt'), 'modified by the first child\n');
    unlinkSync(join(first.path, 'src', 'f6.txt'));
    writeFileSync(join(first.path, 'untracked.txt'), 'left behind\n');
    mkdirSync(join(first.path, 'build'));
    writeFileSync(join(first.path, 'build', 'out.js'), 'ignored output\n');
    // Hidden from git: a later change to f7 would not be seen if this bit survived.
    git(first.path, 'update-index', '--assume-unchanged', 'src/f7.txt');
    // A commit of its own and a detached HEAD.
    writeFileSync(join(first.path, 'src', 'f8.txt'), 'committed by the first child\n');
    git(first.path, 'commit', '-qam', 'child commit');
    git(first.path, 'checkout', '-q', '--detach');
    // Planted in its git directory: configuration, a hook, refs.
    writeFileSync(join(gitDir, 'config.worktree'), '[core]\n\tfsmonitor = touch /tmp/oci-pool-pwned\n');
    mkdirSync(join(gitDir, 'hooks'));
    writeFileSync(join(gitDir, 'hooks', 'pre-commit'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    mkdirSync(join(gitDir, 'refs', 'bisect'), { recursive: true });
    writeFileSync(join(gitDir, 'refs', 'bisect', 'bad'), `${first.base.commit}\n`);
    // A cancelled child: its work stays on its branch, nothing reaches the user's tree.
    const outcome = await workspaces.finish(first, 'keep');
    expect(outcome.state).toBe('none');
    expect(outcome.branch).toBe('opencode/ses_dirty');
    await workspaces.settled();
    const [pooled] = freeEntries(data);
    if (!pooled) throw new Error('no pooled tree');
    // Whatever else the kept files hold when the next child takes them is not the base either.
    writeFileSync(join(pooled, 'tree', 'planted.txt'), 'planted in the pool\n');
    mkdirSync(join(pooled, 'tree', 'build'), { recursive: true });
    writeFileSync(join(pooled, 'tree', 'build', 'cache'), 'ignored, planted in the pool\n');
    writeFileSync(join(pooled, 'tree', 'src', 'f9.txt'), 'edited in the pool\n');

    const second = await workspaces.create(root, 'ses_clean', []);
    // The pooled tree was used (an untouched file was not written again)…
    expect(ino(join(second.path, 'src', 'f1.txt'))).toBe(kept);
    // …and holds exactly the base.
    expect(status(second)).toBe('');
    expect(readFileSync(join(second.path, 'src', 'f5.txt'), 'utf8')).toBe('file 5\n');
    expect(readFileSync(join(second.path, 'src', 'f6.txt'), 'utf8')).toBe('file 6\n');
    expect(readFileSync(join(second.path, 'src', 'f8.txt'), 'utf8')).toBe('file 8\n');
    expect(readFileSync(join(second.path, 'src', 'f9.txt'), 'utf8')).toBe('file 9\n');
    expect(existsSync(join(second.path, 'untracked.txt'))).toBe(false);
    expect(existsSync(join(second.path, 'planted.txt'))).toBe(false);
    expect(existsSync(join(second.path, 'build'))).toBe(false);
    expect(git(second.path, 'rev-parse', 'HEAD')).toBe(second.base.commit);
    expect(git(second.path, 'symbolic-ref', 'HEAD')).toBe('refs/heads/opencode/ses_clean');
    expect(git(second.path, 'ls-files', '-v').split('\n').filter((l) => !l.startsWith('H '))).toEqual([]);
    const secondGitDir = git(second.path, 'rev-parse', '--absolute-git-dir');
    expect(readdirSync(secondGitDir).sort()).not.toContain('config.worktree');
    expect(readdirSync(secondGitDir)).not.toContain('hooks');
    expect(existsSync(join(secondGitDir, 'refs', 'bisect'))).toBe(false);

    // A change to the file that was marked assume-unchanged is seen and merged back.
    writeFileSync(join(second.path, 'src', 'f7.txt'), 'changed by the second child\n');
    expect((await workspaces.finish(second, 'merge')).files).toEqual(['src/f7.txt']);
    expect(readFileSync(join(root, 'src', 'f7.txt'), 'utf8')).toBe('changed by the second child\n');
    expect(readFileSync(join(root, 'src', 'f5.txt'), 'utf8')).toBe('file 5\n');
    // The cancelled child's branch is not checked out anywhere: the user can switch to it.
    await workspaces.settled();
    expect(git(root, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(git(root, 'show', 'opencode/ses_dirty:src/f5.txt')).toBe('modified by the first child');
  });

  it('discards a damaged pooled tree and still gives the child its worktree', async () => {
    const { root, data } = project();
    const workspaces = new Workspaces(data);
    for (const damage of ['index', 'tree'] as const) {
      const first = await workspaces.create(root, `ses_damage_${damage}`, []);
      await workspaces.finish(first, 'merge');
      await workspaces.settled();
      const [entry] = freeEntries(data);
      if (!entry) throw new Error('no pooled tree');
      if (damage === 'index') writeFileSync(join(entry, 'index'), 'not an index');
      else {
        rmSync(join(entry, 'tree'), { recursive: true });
        writeFileSync(join(entry, 'tree'), 'not a folder');
      }
      const second = await workspaces.create(root, `ses_after_${damage}`, []);
      expect(status(second)).toBe('');
      expect(readFileSync(join(second.path, 'src', 'f9.txt'), 'utf8')).toBe('file 9\n');
      writeFileSync(join(second.path, `${damage}.txt`), 'still works\n');
      expect((await workspaces.finish(second, 'merge')).state).toBe('merged');
      expect(readFileSync(join(root, `${damage}.txt`), 'utf8')).toBe('still works\n');
      await workspaces.settled();
    }
    expect(git(root, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  });

  it('keeps at most the configured number of trees, none with a pool of 0', async () => {
    const { root, data } = project();
    const workspaces = new Workspaces(data);
    const children = await Promise.all([1, 2, 3].map((n) => workspaces.create(root, `ses_bound${n}`, [], 2)));
    await Promise.all(children.map((c) => workspaces.finish(c, 'merge')));
    await workspaces.settled();
    expect(freeEntries(data)).toHaveLength(2);

    const unpooled = new Workspaces(join(project().data));
    const { root: other } = project();
    const child = await unpooled.create(other, 'ses_nopool', [], 0);
    await unpooled.finish(child, 'merge');
    await unpooled.settled();
    expect(existsSync(child.path)).toBe(false);
    expect(freeEntries(unpooled.root)).toEqual([]);
  });

  it('drops pooled trees whose repository is gone at the next start', async () => {
    const { dir, root, data } = project();
    const workspaces = new Workspaces(data);
    const child = await workspaces.create(root, 'ses_gone', []);
    await workspaces.finish(child, 'merge');
    await workspaces.settled();
    expect(freeEntries(data)).toHaveLength(1);
    rmSync(root, { recursive: true, force: true });
    const next = new Workspaces(data);
    await next.cleanupStale();
    expect(freeEntries(data)).toEqual([]);
    expect(readdirSync(join(dir, 'data', 'worktree-pool')).flatMap((key) => readdirSync(join(dir, 'data', 'worktree-pool', key)))).toEqual([]);
  });

  it('never gives one pooled tree to two processes', async () => {
    const { dir } = project();
    const pool = join(dir, 'pool');
    const TREES = 40;
    for (let i = 0; i < TREES; i++) {
      mkdirSync(join(pool, 'key', `free-${i}`, 'tree'), { recursive: true });
      writeFileSync(join(pool, 'key', `free-${i}`, 'tree', 'id'), String(i));
      writeFileSync(join(pool, 'key', `free-${i}`, 'meta.json'), JSON.stringify({ commonDir: '/repo/.git', at: Date.now() }));
    }
    const script = join(dir, 'claimer.mjs');
    // Each process claims until the pool is empty and prints the trees it got.
    const entry = join(dir, 'claimer.ts');
    writeFileSync(
      entry,
      [
        `import { readFileSync } from 'node:fs';`,
        `import { join } from 'node:path';`,
        `import { WorktreePool } from ${JSON.stringify(join(REPO_ROOT, 'src/core/workspace/worktree-pool.ts'))};`,
        `const pool = new WorktreePool(process.argv[2]);`,
        `const got = [];`,
        `for (;;) { const c = await pool.claim('key', '/repo/.git'); if (!c) break; got.push(readFileSync(join(c.dir, 'tree', 'id'), 'utf8')); }`,
        `process.stdout.write(JSON.stringify(got));`,
      ].join('\n'),
    );
    await build({ entryPoints: [entry], outfile: script, bundle: true, format: 'esm', platform: 'node', packages: 'external', logLevel: 'silent' });
    const run = () =>
      new Promise<string[]>((resolve, reject) => {
        const child = spawn(process.execPath, [script, pool], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as string[]) : reject(new Error(`claimer exited ${code}`))));
      });
    const [a, b] = await Promise.all([run(), run()]);
    expect([...a, ...b].sort()).toEqual(Array.from({ length: TREES }, (_, i) => String(i)).sort());
    // The claim itself is what is tested: an in-process pool agrees nothing is left.
    expect(await new WorktreePool(pool).claim('key', '/repo/.git')).toBeUndefined();
  });
});
