import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readTool } from '../../src/core/tools/read.js';
import { PermissionDeniedError, ToolError, type PermissionRequest } from '../../src/core/tools/types.js';
import { makeContext, makeTempDir, removeDir, run, type FakeContext } from './context.js';

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

/** Every read asks the `read` rule (allowed unless a rule denies the path); the other asks are what these tests are about. */
function notReadRule(asks: readonly PermissionRequest[]): PermissionRequest[] {
  return asks.filter((ask) => ask.permission !== 'read');
}

describe('read', () => {
  it('numbers lines like cat -n and asks nothing inside the working directory', async () => {
    setup();
    writeFileSync(path.join(ctx.cwd, 'a.txt'), 'alpha\nbeta\r\ngamma\n');
    const result = await run(readTool, { file_path: 'a.txt' }, ctx);
    expect(result.output).toBe('     1\talpha\n     2\tbeta\n     3\tgamma');
    expect(notReadRule(ctx.asks)).toEqual([]);
  });

  it('reads a window with offset and limit and says how to continue', async () => {
    setup();
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n');
    writeFileSync(path.join(ctx.cwd, 'b.txt'), lines);
    const result = await run(readTool, { file_path: path.join(ctx.cwd, 'b.txt'), offset: 3, limit: 2 }, ctx);
    expect(result.output.split('\n').slice(0, 2)).toEqual(['     3\tline 3', '     4\tline 4']);
    expect(result.output).toContain('offset=5');
    const tail = await run(readTool, { file_path: 'b.txt', offset: 9 }, ctx);
    expect(tail.output).toBe('     9\tline 9\n    10\tline 10');
    await expect(run(readTool, { file_path: 'b.txt', offset: 11 }, ctx)).rejects.toThrow(/past the end/);
  });

  it('truncates long lines and caps the total output', async () => {
    setup();
    writeFileSync(path.join(ctx.cwd, 'long.txt'), `${'x'.repeat(5000)}\nshort\n`);
    const result = await run(readTool, { file_path: 'long.txt' }, ctx);
    const first = result.output.split('\n')[0]!;
    expect(first.length).toBeLessThan(2100);
    expect(first).toContain('[line truncated]');

    const big = Array.from({ length: 1900 }, (_, i) => `${i}:${'y'.repeat(200)}`).join('\n');
    writeFileSync(path.join(ctx.cwd, 'big.txt'), big);
    const capped = await run(readTool, { file_path: 'big.txt' }, ctx);
    expect(capped.output.length).toBeLessThanOrEqual(250 * 1024 + 300);
    const match = /offset=(\d+)/.exec(capped.output);
    expect(match).not.toBeNull();
    const next = Number(match![1]);
    expect(next).toBeGreaterThan(1000);
    expect(next).toBeLessThan(1900);
    const rest = await run(readTool, { file_path: 'big.txt', offset: next }, ctx);
    expect(rest.output.startsWith(`${String(next).padStart(6)}\t${next - 1}:`)).toBe(true);
  });

  it('refuses binaries by content and by extension', async () => {
    setup();
    writeFileSync(path.join(ctx.cwd, 'blob.dat'), Buffer.from([65, 66, 0, 67]));
    writeFileSync(path.join(ctx.cwd, 'pic.png'), 'not really a png');
    await expect(run(readTool, { file_path: 'blob.dat' }, ctx)).rejects.toThrow(/binary/);
    await expect(run(readTool, { file_path: 'pic.png' }, ctx)).rejects.toBeInstanceOf(ToolError);
  });

  it('suggests similar names for a missing file and refuses directories', async () => {
    setup();
    writeFileSync(path.join(ctx.cwd, 'config.json'), '{}');
    mkdirSync(path.join(ctx.cwd, 'src'));
    const err = await run(readTool, { file_path: 'config.jsn' }, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as Error).message).toMatch(/not found/i);
    expect((err as Error).message).toContain('config.json');
    await expect(run(readTool, { file_path: 'nothing/here.txt' }, ctx)).rejects.toThrow(/not found/i);
    await expect(run(readTool, { file_path: 'src' }, ctx)).rejects.toThrow(/list tool/);
  });

  it('says when a file is empty', async () => {
    setup();
    writeFileSync(path.join(ctx.cwd, 'empty.txt'), '');
    expect((await run(readTool, { file_path: 'empty.txt' }, ctx)).output).toMatch(/empty/);
  });

  it('asks external_directory before reading outside the working directory', async () => {
    setup();
    const outside = makeTempDir();
    dirs.push(outside);
    const file = path.join(outside, 'secret.txt');
    writeFileSync(file, 'top secret');
    const result = await run(readTool, { file_path: file }, ctx);
    expect(result.output).toContain('top secret');
    expect(notReadRule(ctx.asks)).toEqual([
      { permission: 'external_directory', patterns: [file], subject: `Access outside the working directory: ${file}` },
    ]);

    ctx.deny = (r) => r.permission === 'external_directory';
    await expect(run(readTool, { file_path: `../${path.basename(outside)}/secret.txt` }, ctx)).rejects.toBeInstanceOf(
      PermissionDeniedError,
    );
  });

  it('asks before reading through a symlink that leads outside, naming the real path', async () => {
    setup();
    const outside = makeTempDir();
    dirs.push(outside);
    writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
    symlinkSync(outside, path.join(ctx.cwd, 'link'));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(ctx.cwd, 'secret-link.txt'));
    const real = path.join(outside, 'secret.txt');

    ctx.deny = (r) => r.permission === 'external_directory';
    await expect(run(readTool, { file_path: 'link/secret.txt' }, ctx)).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(run(readTool, { file_path: 'secret-link.txt' }, ctx)).rejects.toBeInstanceOf(PermissionDeniedError);
    expect(notReadRule(ctx.asks)).toEqual([
      { permission: 'external_directory', patterns: [real], subject: `Access outside the working directory: ${real} (via link/secret.txt)` },
      { permission: 'external_directory', patterns: [real], subject: `Access outside the working directory: ${real} (via secret-link.txt)` },
    ]);
  });

  it('reads through a symlink to a folder inside the project without asking', async () => {
    setup();
    mkdirSync(path.join(ctx.cwd, 'src'));
    writeFileSync(path.join(ctx.cwd, 'src', 'a.txt'), 'inside');
    symlinkSync(path.join(ctx.cwd, 'src'), path.join(ctx.cwd, 'alias'));
    expect((await run(readTool, { file_path: 'alias/a.txt' }, ctx)).output).toContain('inside');
    expect(notReadRule(ctx.asks)).toEqual([]);
  });
});
