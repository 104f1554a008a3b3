// Restoring snapshots in a tree someone changed afterwards: a folder the agent worked in is
// replaced by a symbolic link to somewhere outside the project. Undo, redo and revert must
// never write, overwrite or delete through that link (DESIGN §18: never destroy the user's
// work; restore never writes outside the project).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { restoreFiles, ShadowRepo } from '../../src/core/checkpoints/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'oci-hostile-restore-'));
  dirs.push(dir);
  const project = join(dir, 'project');
  const outside = join(dir, 'home');
  mkdirSync(project);
  mkdirSync(outside);
  const repo = new ShadowRepo({ root: join(dir, 'data', 'snapshots'), project, maxFileMb: 5 });
  const write = (path: string, text: string) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  };
  /** Replaces the project's folder `name` with a link to the outside folder. */
  const linkOut = (name: string) => {
    renameSync(join(project, name), join(dir, `${name}.moved`));
    symlinkSync(outside, join(project, name));
  };
  return { project, outside, repo, write, linkOut };
}

describe('restoring through a folder replaced by a symbolic link', () => {
  it('does not recreate a deleted file outside the project', async () => {
    const { project, outside, repo, write, linkOut } = setup();
    write(join(project, 'conf', '.bashrc'), 'echo project\n');
    const before = (await repo.snapshot())!;
    rmSync(join(project, 'conf', '.bashrc'));
    const after = (await repo.snapshot())!;
    linkOut('conf');

    expect(await restoreFiles(repo, after, before)).toEqual({ kind: 'conflict', files: ['conf/.bashrc'] });
    expect(existsSync(join(outside, '.bashrc'))).toBe(false);
  });

  it('does not overwrite a file outside the project that looks like the agent\'s version', async () => {
    const { project, outside, repo, write, linkOut } = setup();
    write(join(project, 'conf', 'a.txt'), 'before\n');
    const before = (await repo.snapshot())!;
    write(join(project, 'conf', 'a.txt'), 'after\n');
    const after = (await repo.snapshot())!;
    linkOut('conf');
    write(join(outside, 'a.txt'), 'after\n');

    expect(await restoreFiles(repo, after, before)).toEqual({ kind: 'conflict', files: ['conf/a.txt'] });
    expect(readFileSync(join(outside, 'a.txt'), 'utf8')).toBe('after\n');
  });

  it('does not delete a file outside the project when undoing a created one', async () => {
    const { project, outside, repo, write, linkOut } = setup();
    mkdirSync(join(project, 'conf'));
    write(join(project, 'keep.txt'), 'x\n');
    const before = (await repo.snapshot())!;
    write(join(project, 'conf', 'new.txt'), 'created\n');
    const after = (await repo.snapshot())!;
    linkOut('conf');
    write(join(outside, 'new.txt'), 'created\n');

    expect(await restoreFiles(repo, after, before)).toEqual({ kind: 'conflict', files: ['conf/new.txt'] });
    expect(readFileSync(join(outside, 'new.txt'), 'utf8')).toBe('created\n');
  });

  it('does not follow a link two levels up either, and still restores the paths that are safe', async () => {
    const { project, outside, repo, write, linkOut } = setup();
    write(join(project, 'a', 'b', 'c.txt'), 'before\n');
    write(join(project, 'plain.txt'), 'before\n');
    const before = (await repo.snapshot())!;
    rmSync(join(project, 'a', 'b', 'c.txt'));
    write(join(project, 'plain.txt'), 'after\n');
    const after = (await repo.snapshot())!;
    linkOut('a');
    mkdirSync(join(outside, 'b'));

    expect(await restoreFiles(repo, after, before)).toEqual({ kind: 'conflict', files: ['a/b/c.txt'] });
    expect(existsSync(join(outside, 'b', 'c.txt'))).toBe(false);
    // Nothing is half-applied: the safe path waits too.
    expect(readFileSync(join(project, 'plain.txt'), 'utf8')).toBe('after\n');
  });
});

describe('a project holding a nested git repository', () => {
  it('restores the project\'s files and leaves the nested repository as it is', async () => {
    const { project, repo, write } = setup();
    const nested = join(project, 'vendor', 'lib');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: nested });
    write(join(nested, 'f.txt'), 'one\n');
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'one');
    write(join(project, 'top.txt'), 'one\n');
    const before = (await repo.snapshot())!;
    write(join(nested, 'f.txt'), 'two\n');
    git('commit', '-qam', 'two');
    write(join(project, 'top.txt'), 'two\n');
    const after = (await repo.snapshot())!;

    expect(await restoreFiles(repo, after, before)).toEqual({ kind: 'restored', files: ['top.txt'] });
    expect(readFileSync(join(project, 'top.txt'), 'utf8')).toBe('one\n');
    expect(readFileSync(join(nested, 'f.txt'), 'utf8')).toBe('two\n');
  });
});
