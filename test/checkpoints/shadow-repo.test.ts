import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NO_GIT_NOTICE, restoreFiles, ShadowRepo } from '../../src/core/checkpoints/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup(opts: { maxFileMb?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'oci-shadow-'));
  dirs.push(dir);
  const project = join(dir, 'project');
  mkdirSync(project);
  const skipped: string[] = [];
  const repo = new ShadowRepo({ root: join(dir, 'data', 'snapshots'), project, maxFileMb: opts.maxFileMb ?? 5, onSkipped: (l) => skipped.push(l) });
  const file = (name: string) => join(project, name);
  const write = (name: string, text: string) => {
    mkdirSync(join(file(name), '..'), { recursive: true });
    writeFileSync(file(name), text);
  };
  const read = (name: string) => (existsSync(file(name)) ? readFileSync(file(name), 'utf8') : undefined);
  return { project, repo, skipped, write, read };
}

describe('shadow repository snapshots (not a git project)', () => {
  it("answers a change another process's snapshot already stored, though its own walk then finds nothing new", async () => {
    const { project, repo, write } = setup();
    write('a.txt', 'one\n');
    const first = (await repo.snapshot())!;
    expect(await repo.snapshot()).toBe(first);
    // Another process (its own ShadowRepo over the same shadow repository) snapshots a change.
    const other = new ShadowRepo({ root: join(project, '..', 'data', 'snapshots'), project, maxFileMb: 5 });
    write('a.txt', 'two\n');
    const second = (await other.snapshot())!;
    expect(second).not.toBe(first);
    // The index now holds the change, so this walk finds nothing: the tree must still be the new one.
    expect(await repo.snapshot()).toBe(second);
  });

  it('goes on for a caller still waiting when another gives up, and stops once every caller has', async () => {
    const { project, repo, write } = setup();
    write('a.txt', 'one\n');
    await repo.snapshot(); // creates the shadow repository: the rounds below only snapshot
    write('a.txt', 'two\n');
    const quitter = new AbortController();
    const gaveUp = repo.snapshot(quitter.signal);
    const stays = repo.snapshot(new AbortController().signal);
    quitter.abort();
    await expect(gaveUp).rejects.toThrow(/cancelled/);
    const kept = await stays;
    expect(kept).toMatch(/^[0-9a-f]{40}$/);

    write('a.txt', 'three\n');
    const trace = join(project, '..', 'git-trace');
    process.env.GIT_TRACE = trace;
    const only = new AbortController();
    const stopped = repo.snapshot(only.signal);
    only.abort();
    await expect(stopped).rejects.toThrow(/cancelled/);
    await repo.idle();
    delete process.env.GIT_TRACE;
    // Given up before its walk began: no git ran for it.
    expect(existsSync(trace) ? readFileSync(trace, 'utf8') : '').not.toMatch(/ls-files|write-tree/);
    // The stopped round left the shadow index as the last finished snapshot wrote it.
    write('a.txt', 'two\n');
    expect(await repo.snapshot()).toBe(kept);
  });

  it('restores edits, new files and deleted files, and gives the same id for the same tree', async () => {
    const { repo, write, read } = setup();
    write('a.txt', 'one\n');
    write('gone.txt', 'will be deleted\n');
    const before = (await repo.snapshot())!;
    expect(await repo.snapshot()).toBe(before);
    write('a.txt', 'two\n');
    write('new/dir/b.txt', 'new\n');
    rmSync(join(repo.project, 'gone.txt'));
    const after = (await repo.snapshot())!;
    expect(after).not.toBe(before);
    expect(await repo.diff(before, after)).toContain('+two');

    expect(await restoreFiles(repo, after, before)).toEqual({ kind: 'restored', files: expect.arrayContaining(['a.txt', 'gone.txt', 'new/dir/b.txt']) });
    expect(read('a.txt')).toBe('one\n');
    expect(read('gone.txt')).toBe('will be deleted\n');
    expect(read('new/dir/b.txt')).toBeUndefined();
    expect(existsSync(join(repo.project, 'new'))).toBe(false);
    expect(await repo.snapshot()).toBe(before);
  });

  it('honours nested .gitignore files and skips large files, naming each once', async () => {
    const { repo, write, skipped } = setup({ maxFileMb: 0.001 });
    write('.gitignore', 'build/\n');
    write('sub/.gitignore', '*.log\n');
    write('build/out.js', 'x');
    write('sub/debug.log', 'x');
    write('sub/keep.txt', 'x');
    write('big.bin', 'x'.repeat(5000));
    const tree = (await repo.snapshot())!;
    await repo.snapshot();
    const empty = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
    const paths = (await repo.changes(empty, tree)).map((c) => c.path).sort();
    expect(paths).toEqual(['.gitignore', 'sub/.gitignore', 'sub/keep.txt']);
    expect(skipped).toEqual([expect.stringContaining('big.bin is left out of undo snapshots')]);
  });

  it('keeps a later non-overlapping change and refuses an overlapping one without writing anything', async () => {
    const { repo, write, read } = setup();
    const lines = (n: number, mark = '') => Array.from({ length: n }, (_, i) => `line ${i}${i === 0 ? mark : ''}`).join('\n') + '\n';
    write('f.txt', lines(20));
    write('g.txt', 'g\n');
    const before = (await repo.snapshot())!;
    write('f.txt', lines(20, ' agent'));
    write('g.txt', 'g agent\n');
    const after = (await repo.snapshot())!;
    // The user changes the end of f.txt: no overlap with the agent's change at the top.
    write('f.txt', lines(20, ' agent').replace('line 19', 'line 19 user'));
    expect(await restoreFiles(repo, after, before)).toMatchObject({ kind: 'restored' });
    expect(read('f.txt')).toBe(lines(20).replace('line 19', 'line 19 user'));
    expect(read('g.txt')).toBe('g\n');

    // Redo, then an overlapping user change to g.txt: nothing is written, g.txt named.
    expect(await restoreFiles(repo, before, after)).toMatchObject({ kind: 'restored' });
    write('g.txt', 'g user\n');
    const fBefore = read('f.txt');
    expect(await restoreFiles(repo, after, before)).toEqual({ kind: 'conflict', files: ['g.txt'] });
    expect(read('g.txt')).toBe('g user\n');
    expect(read('f.txt')).toBe(fBefore);
  });

  it('says once that undo is unavailable when git is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oci-shadow-'));
    dirs.push(dir);
    const notices: string[] = [];
    const repo = new ShadowRepo({ root: join(dir, 'snapshots'), project: dir, maxFileMb: 5, onUnavailable: (l) => notices.push(l) });
    const path = process.env.PATH;
    process.env.PATH = join(dir, 'no-bin');
    try {
      expect(await repo.snapshot()).toBeUndefined();
      expect(await repo.snapshot()).toBeUndefined();
    } finally {
      process.env.PATH = path;
    }
    expect(notices).toEqual([NO_GIT_NOTICE]);
  });
});
