// Reading the submodule entries of git's index without git: compared with what git itself
// lists, for index versions 2, 3 (an entry with extended flags) and 4 (compressed paths), and a
// sha256 repository.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitlinksOf, hashBytesOf, parseGitlinks } from '../../src/core/sandbox/git-index.js';
import { removeDir } from '../tools/context.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8', stdio: 'pipe' });
}

function repoWithLinks(format: 'sha1' | 'sha256' = 'sha1'): { dir: string; links: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'oci-index-'));
  dirs.push(dir);
  git(dir, 'init', '-q', `--object-format=${format}`);
  mkdirSync(join(dir, 'deep', 'er'), { recursive: true });
  for (const name of ['a.txt', 'deep/b.txt', 'deep/er/c.txt', 'deep/er/d.txt', 'z.txt']) writeFileSync(join(dir, name), name);
  git(dir, 'add', '-A');
  const commit = git(dir, 'hash-object', '-t', 'commit', '-w', '--literally', '/dev/null').trim() || '0'.repeat(format === 'sha1' ? 40 : 64);
  const links = ['deep/er/linked', 'deep/link two', 'mod'];
  for (const link of links) git(dir, 'update-index', '--add', '--cacheinfo', `160000,${commit},${link}`);
  return { dir, links };
}

function gitsOwnList(dir: string): string[] {
  return git(dir, 'ls-files', '-s', '-z')
    .split('\0')
    .filter((line) => line.startsWith('160000 '))
    .map((line) => line.slice(line.indexOf('\t') + 1));
}

describe('gitlinksOf', () => {
  it.each([2, 3, 4])('reads index version %i as git does', (version) => {
    const { dir, links } = repoWithLinks();
    writeFileSync(join(dir, 'intent.txt'), 'later');
    // An intent-to-add entry carries the extended flags (version 3 and up).
    if (version >= 3) git(dir, 'add', '-N', 'intent.txt');
    git(dir, 'update-index', '--index-version', String(version));
    const file = join(dir, '.git', 'index');
    expect(gitlinksOf(file)).toEqual(gitsOwnList(dir));
    expect([...gitlinksOf(file)].sort()).toEqual([...links].sort());
  });

  it('reads a sha256 repository once told its object format', () => {
    const { dir, links } = repoWithLinks('sha256');
    const config = execFileSync('cat', [join(dir, '.git', 'config')], { encoding: 'utf8' });
    expect(hashBytesOf(config)).toBe(32);
    expect([...gitlinksOf(join(dir, '.git', 'index'), 32)].sort()).toEqual([...links].sort());
  });

  it('gives nothing for a missing or broken file, and refuses bytes that are not an index', () => {
    const dir = mkdtempSync(join(tmpdir(), 'oci-index-'));
    dirs.push(dir);
    expect(gitlinksOf(join(dir, 'missing'))).toEqual([]);
    writeFileSync(join(dir, 'broken'), 'DIRC\0\0\0\x02\0\0\0\x09short');
    expect(gitlinksOf(join(dir, 'broken'))).toEqual([]);
    expect(() => parseGitlinks(Buffer.from('not an index at all'), 20)).toThrow(/not a git index/);
  });
});
