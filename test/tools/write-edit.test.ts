import type { PermissionRequest } from '../../src/core/tools/types.js';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { editTool } from '../../src/core/tools/edit.js';
import { readTool } from '../../src/core/tools/read.js';
import { PermissionDeniedError, ToolError } from '../../src/core/tools/types.js';
import { writeTool } from '../../src/core/tools/write.js';
import { makeContext, makeTempDir, removeDir, run, type FakeContext } from './context.js';

/** The asks a change makes: every read also checks the `read` rule (allowed unless a rule denies the path), which is not what these tests are about. */
function asks(context: { asks: readonly PermissionRequest[] }): PermissionRequest[] {
  return context.asks.filter((ask) => ask.permission !== 'read');
}

let ctx: FakeContext;
const dirs: string[] = [];
function setup(): FakeContext {
  ctx = makeContext();
  dirs.push(ctx.cwd);
  return ctx;
}
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});
const at = (rel: string): string => path.join(ctx.cwd, rel);
const content = (rel: string): string => readFileSync(at(rel), 'utf8');
/** A file that exists and that the session has read, as write and edit require. */
async function seenFile(rel: string, text: string): Promise<void> {
  writeFileSync(at(rel), text);
  await run(readTool, { file_path: rel }, ctx);
}

describe('write', () => {
  it('creates parent directories after asking with a diff', async () => {
    setup();
    const result = await run(writeTool, { file_path: 'sub/dir/a.txt', content: 'hello\nworld\n' }, ctx);
    expect(content('sub/dir/a.txt')).toBe('hello\nworld\n');
    expect(result.output).toBe('Created sub/dir/a.txt (2 lines).');
    expect(asks(ctx)).toHaveLength(1);
    expect(asks(ctx)[0]!.permission).toBe('edit');
    expect(asks(ctx)[0]!.patterns).toEqual(['sub/dir/a.txt']);
    expect(asks(ctx)[0]!.subject).toContain('+hello');
    expect(asks(ctx)[0]!.subject).toContain('sub/dir/a.txt');
  });

  it('overwrites, showing the removed lines', async () => {
    setup();
    await seenFile('a.txt', 'old\n');
    const result = await run(writeTool, { file_path: 'a.txt', content: 'new\n' }, ctx);
    expect(result.output).toMatch(/^Overwrote a\.txt/);
    expect(asks(ctx)[0]!.subject).toMatch(/^-old$/m);
    expect(asks(ctx)[0]!.subject).toMatch(/^\+new$/m);
    expect(content('a.txt')).toBe('new\n');
  });

  it('leaves the disk untouched when denied', async () => {
    setup();
    ctx.deny = () => true;
    await expect(run(writeTool, { file_path: 'x/a.txt', content: 'data' }, ctx)).rejects.toBeInstanceOf(PermissionDeniedError);
    expect(existsSync(at('x'))).toBe(false);
  });

  it('asks external_directory then edit for paths outside the working directory', async () => {
    setup();
    const outside = makeTempDir();
    dirs.push(outside);
    const file = path.join(outside, 'o.txt');
    await run(writeTool, { file_path: file, content: 'x' }, ctx);
    expect(asks(ctx).map((a) => a.permission)).toEqual(['external_directory', 'edit']);
    expect(asks(ctx)[1]!.patterns).toEqual([file]);
    expect(readFileSync(file, 'utf8')).toBe('x');
  });

  it('asks before creating a file through a symlink that leads outside, dangling ones included', async () => {
    setup();
    const outside = makeTempDir();
    dirs.push(outside);
    symlinkSync(outside, at('link'));
    // A link to a file that does not exist yet: writing through it would create that file.
    symlinkSync(path.join(outside, 'planted.txt'), at('dangling.txt'));
    ctx.deny = (r) => r.permission === 'external_directory';
    await expect(run(writeTool, { file_path: 'link/new/n.txt', content: 'x' }, ctx)).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(run(writeTool, { file_path: 'dangling.txt', content: 'x' }, ctx)).rejects.toBeInstanceOf(PermissionDeniedError);
    expect(asks(ctx).map((a) => a.patterns)).toEqual([[path.join(outside, 'new', 'n.txt')], [path.join(outside, 'planted.txt')]]);
    expect(existsSync(path.join(outside, 'new'))).toBe(false);
    expect(existsSync(path.join(outside, 'planted.txt'))).toBe(false);
  });
});

describe('edit', () => {
  it('replaces a unique string and asks with the diff', async () => {
    setup();
    await seenFile('code.ts', 'const a = 1;\nconst b = 2;\n');
    const result = await run(editTool, { file_path: 'code.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' }, ctx);
    expect(content('code.ts')).toBe('const a = 1;\nconst b = 3;\n');
    expect(result.output).toContain('replaced 1 occurrence');
    expect(asks(ctx)[0]).toMatchObject({ permission: 'edit', patterns: ['code.ts'] });
    expect(asks(ctx)[0]!.subject).toMatch(/^-const b = 2;$/m);
  });

  it('fails clearly when old_string is absent or identical to new_string', async () => {
    setup();
    await seenFile('f.txt', 'abc\n');
    await expect(run(editTool, { file_path: 'f.txt', old_string: 'xyz', new_string: 'q' }, ctx)).rejects.toThrow(/not found/);
    await expect(run(editTool, { file_path: 'f.txt', old_string: 'abc', new_string: 'abc' }, ctx)).rejects.toThrow(/identical/);
    expect(asks(ctx)).toEqual([]);
    expect(content('f.txt')).toBe('abc\n');
  });

  it('refuses an ambiguous match unless replace_all is set', async () => {
    setup();
    await seenFile('f.txt', 'foo bar foo baz foo\n');
    const err = await run(editTool, { file_path: 'f.txt', old_string: 'foo', new_string: 'qux' }, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as Error).message).toContain('found 3 times');
    expect((err as Error).message).toContain('replace_all');
    expect(content('f.txt')).toBe('foo bar foo baz foo\n');
    const result = await run(editTool, { file_path: 'f.txt', old_string: 'foo', new_string: 'qux', replace_all: true }, ctx);
    expect(content('f.txt')).toBe('qux bar qux baz qux\n');
    expect(result.output).toContain('replaced 3 occurrences');
  });

  it('inserts replacement text literally (no $& expansion)', async () => {
    setup();
    await seenFile('f.txt', 'price\n');
    await run(editTool, { file_path: 'f.txt', old_string: 'price', new_string: "$& $' $1" }, ctx);
    expect(content('f.txt')).toBe("$& $' $1\n");
  });

  it('handles missing files: error, or creation with an empty old_string', async () => {
    setup();
    await expect(run(editTool, { file_path: 'nope.txt', old_string: 'a', new_string: 'b' }, ctx)).rejects.toThrow(/not found/i);
    const result = await run(editTool, { file_path: 'new/file.txt', old_string: '', new_string: 'fresh\n' }, ctx);
    expect(result.output).toContain('Created');
    expect(content('new/file.txt')).toBe('fresh\n');
    await expect(run(editTool, { file_path: 'new/file.txt', old_string: '', new_string: 'again' }, ctx)).rejects.toThrow(
      /already exists/,
    );
  });

  it('matches LF old_string in a CRLF file and keeps CRLF endings', async () => {
    setup();
    await seenFile('win.txt', 'one\r\ntwo\r\nthree\r\n');
    await run(editTool, { file_path: 'win.txt', old_string: 'one\ntwo\n', new_string: 'uno\ndos\n' }, ctx);
    expect(content('win.txt')).toBe('uno\r\ndos\r\nthree\r\n');
    await run(editTool, { file_path: 'win.txt', old_string: 'three', new_string: 'tres\ncuatro' }, ctx);
    expect(content('win.txt')).toBe('uno\r\ndos\r\ntres\r\ncuatro\r\n');
  });

  it('does not write when the edit is denied', async () => {
    setup();
    await seenFile('f.txt', 'keep\n');
    ctx.deny = (r) => r.permission === 'edit';
    await expect(run(editTool, { file_path: 'f.txt', old_string: 'keep', new_string: 'lose' }, ctx)).rejects.toBeInstanceOf(
      PermissionDeniedError,
    );
    expect(content('f.txt')).toBe('keep\n');
  });
});
