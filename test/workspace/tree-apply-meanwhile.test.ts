// The merge's last guard (tree-apply.ts): a sub-agent's result is written into the parent's
// tree only where that tree still holds what the merge was computed from. A user edit made in
// the meantime (content, a new file at a path the child adds, a changed executable bit) is
// kept and named, and nothing at all is written; a path that matches is written.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyTreeDiff } from '../../src/core/workspace/tree-apply.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], { cwd, encoding: 'utf8' }).trim();

/** A repository whose working tree holds `from`; `to` is the child's result (a.txt changed, new.txt added, run.sh made executable). */
function fixture(): { dir: string; from: string; to: string } {
  const dir = mkdtempSync(join(tmpdir(), 'oci-tree-apply-'));
  dirs.push(dir);
  git(dir, 'init', '-q');
  const put = (files: Record<string, string>) => {
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    git(dir, 'add', '-A');
    return git(dir, 'write-tree');
  };
  const from = put({ 'a.txt': 'base\n', 'run.sh': 'echo run\n' });
  chmodSync(join(dir, 'run.sh'), 0o755);
  writeFileSync(join(dir, 'new.txt'), 'from the child\n');
  const to = put({ 'a.txt': 'from the child\n' });
  // Back to `from`, as the parent's tree was when the merge was computed.
  chmodSync(join(dir, 'run.sh'), 0o644);
  rmSync(join(dir, 'new.txt'));
  writeFileSync(join(dir, 'a.txt'), 'base\n');
  return { dir, from, to };
}

describe('applyTreeDiff', () => {
  it('writes every change when the tree still holds what the merge started from', async () => {
    const { dir, from, to } = fixture();
    const result = await applyTreeDiff(dir, from, to);
    expect(result).toEqual({ applied: expect.arrayContaining(['a.txt', 'new.txt', 'run.sh']), changedMeanwhile: [] });
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('from the child\n');
    expect(statSync(join(dir, 'run.sh')).mode & 0o100).not.toBe(0);
  });

  it.each([
    ['an edit of a file the child changed', 'a.txt', (dir: string) => writeFileSync(join(dir, 'a.txt'), 'the user typed this\n')],
    ['a same-size edit', 'a.txt', (dir: string) => writeFileSync(join(dir, 'a.txt'), 'BASE\n')],
    ['a file created where the child adds one', 'new.txt', (dir: string) => writeFileSync(join(dir, 'new.txt'), 'the user made this\n')],
    ['an executable bit set by hand', 'run.sh', (dir: string) => chmodSync(join(dir, 'run.sh'), 0o755)],
  ])('keeps %s (made meanwhile), names it, and writes nothing', async (_what, changed, edit) => {
    const { dir, from, to } = fixture();
    edit(dir);
    const before = Object.fromEntries(['a.txt', 'new.txt', 'run.sh'].map((f) => [f, existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : undefined]));
    const result = await applyTreeDiff(dir, from, to);
    expect(result).toEqual({ applied: [], changedMeanwhile: [changed] });
    for (const [file, content] of Object.entries(before)) expect(existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8') : undefined, file).toBe(content);
  });
});
