// The throwaway index copies (shadow snapshots, a child's commit, the warm index) are made in
// shared temp folders: the copy must be its owner's alone, and never written through a link
// someone planted at its name.
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyIndexFile } from '../../src/core/workspace/index-copy.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('copyIndexFile', () => {
  it('makes a copy only its owner can read, dated a second before the original', async () => {
    dir = mkdtempSync(join(tmpdir(), 'oci-index-copy-'));
    const index = join(dir, 'index');
    writeFileSync(index, 'DIRC entries', { mode: 0o644 });
    const copy = join(dir, 'copy');
    expect(await copyIndexFile(index, copy)).toBe(true);
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    expect(readFileSync(copy, 'utf8')).toBe('DIRC entries');
    // utimes takes a Date: the copy's time is kept to the millisecond.
    expect(Math.abs(statSync(index).mtimeMs - statSync(copy).mtimeMs - 1000)).toBeLessThan(2);
  });

  it('refuses to write through a link planted at the copy\'s name', async () => {
    dir = mkdtempSync(join(tmpdir(), 'oci-index-copy-'));
    const index = join(dir, 'index');
    writeFileSync(index, 'DIRC entries');
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'precious\n');
    const copy = join(dir, 'copy');
    symlinkSync(victim, copy);
    await expect(copyIndexFile(index, copy)).rejects.toThrow(/EEXIST/);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it('answers false when there is no index to copy', async () => {
    dir = mkdtempSync(join(tmpdir(), 'oci-index-copy-'));
    expect(await copyIndexFile(join(dir, 'missing'), join(dir, 'copy'))).toBe(false);
  });
});
