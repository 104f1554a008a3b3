// `read` on huge files: the output is capped, a long line is cut with a note, reading stops
// once the window is full (metadata.bytesRead says how much of the file was read), and a
// 200 MB single line is streamed through a fixed buffer instead of being loaded.
import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_LINE_CHARS, MAX_READ_BYTES, READ_CHUNK_BYTES, readTool } from '../../src/core/tools/read.js';
import { makeContext, removeDir, run, type FakeContext } from './context.js';

const MB = 1024 * 1024;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});
function setup(): FakeContext {
  const ctx = makeContext();
  dirs.push(ctx.cwd);
  return ctx;
}

/** Writes `unit` repeated up to `totalBytes` (whole units only), through a buffer of about 1 MB. */
function generate(file: string, unit: string, totalBytes: number, trailer = ''): void {
  const one = Buffer.from(unit);
  const block = Buffer.from(unit.repeat(Math.max(1, Math.floor(MB / one.length))));
  const total = totalBytes - (totalBytes % one.length);
  const fd = openSync(file, 'w');
  try {
    for (let written = 0; written < total; written += block.length) writeSync(fd, block, 0, Math.min(block.length, total - written));
    if (trailer) writeSync(fd, trailer);
  } finally {
    closeSync(fd);
  }
}

/** Peak resident set size while `work` runs, sampled every few ms, minus the size before. */
async function rssGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growth: number }> {
  global.gc?.();
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, growth: peak - before };
  } finally {
    clearInterval(sampler);
  }
}

describe('read on huge files', () => {
  it('streams a 200 MB one-line file: the line is cut with a note and memory stays bounded', async () => {
    const ctx = setup();
    const file = path.join(ctx.cwd, 'minified.js');
    generate(file, 'var a=1;', 200 * MB);
    const { result, growth } = await rssGrowth(() => run(readTool, { file_path: 'minified.js' }, ctx));
    const lines = result.output.split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.startsWith('     1\tvar a=1;var a=1;')).toBe(true);
    expect(lines[0]!.endsWith('... [line truncated]')).toBe(true);
    expect(lines[0]!.length).toBeLessThan(MAX_LINE_CHARS + 40);
    expect(result.metadata).toMatchObject({ firstLine: 1, lastLine: 1, truncated: false, bytesRead: 200 * MB });
    // Loading the file would cost 200 MB and more (its string copy); the buffer costs 64 KB.
    expect(growth).toBeLessThan(100 * MB);
  });

  it('stops reading once the window is full and the next line has begun', async () => {
    const ctx = setup();
    const file = path.join(ctx.cwd, 'log.txt');
    generate(file, 'a log line of forty bytes, give or take\n', 200 * MB);
    const result = await run(readTool, { file_path: 'log.txt', limit: 10 }, ctx);
    expect(result.output.split('\n').slice(0, 10).every((l) => l.endsWith('a log line of forty bytes, give or take'))).toBe(true);
    expect(result.output).toContain('read again with offset=11');
    expect(result.metadata).toMatchObject({ truncated: true });
    expect(result.metadata!.bytesRead).toBeLessThanOrEqual(READ_CHUNK_BYTES);

    // The default window of 2000 lines: a few chunks, not the file.
    const whole = await run(readTool, { file_path: 'log.txt' }, ctx);
    expect(whole.metadata).toMatchObject({ firstLine: 1, lastLine: 2000, truncated: true });
    expect(whole.metadata!.bytesRead).toBeLessThan(4 * READ_CHUNK_BYTES);
  });

  it('caps the output of long lines at the byte limit and continues with offset', async () => {
    const ctx = setup();
    const file = path.join(ctx.cwd, 'wide.txt');
    // 1024 lines of 100 KB each: every one is cut, and 250 KB of output holds about 120.
    generate(file, `${'w'.repeat(100 * 1024 - 1)}\n`, 100 * MB);
    const result = await run(readTool, { file_path: 'wide.txt' }, ctx);
    expect(result.output.length).toBeLessThanOrEqual(MAX_READ_BYTES + 300);
    const next = Number(/offset=(\d+)/.exec(result.output)?.[1]);
    expect(next).toBeGreaterThan(100);
    expect(next).toBeLessThan(200);
    expect(result.metadata!.bytesRead).toBeLessThan(next * 100 * 1024 + READ_CHUNK_BYTES);
    const rest = await run(readTool, { file_path: 'wide.txt', offset: 1023 }, ctx);
    expect(rest.output.split('\n').map((l) => l.slice(0, 10))).toEqual(['  1023\twww', '  1024\twww']);
  });

  it('keeps multi-byte characters whole where a long line is cut and across chunk edges', async () => {
    const ctx = setup();
    const file = path.join(ctx.cwd, 'utf8.txt');
    // 3-byte characters: chunk boundaries fall inside them.
    generate(file, '€', 2 * MB, '\nafter\n');
    const result = await run(readTool, { file_path: 'utf8.txt' }, ctx);
    const [first, second] = result.output.split('\n');
    expect(first).toBe(`     1\t${'€'.repeat(MAX_LINE_CHARS)}... [line truncated]`);
    expect(second).toBe('     2\tafter');
  });
});
