// A cloned repository (or a model it talked into it) cannot freeze the search tools: a
// regex that backtracks without end is stopped by a time limit or an abort, and .gitignore
// lines or glob patterns whose `**` and braces would make matching crawl are refused or
// skipped with a note, over a 45-deep folder.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { globTool } from '../../src/core/tools/glob.js';
import { findRipgrep, grep, grepTool, type GrepQuery } from '../../src/core/tools/grep.js';
import { listTool } from '../../src/core/tools/list.js';
import { LineMatcher } from '../../src/core/tools/regex-worker.js';
import { ToolError } from '../../src/core/tools/types.js';
import { makeContext, removeDir, run, type FakeContext } from './context.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

function repo(files: Record<string, string>): FakeContext {
  const ctx = makeContext();
  dirs.push(ctx.cwd);
  mkdirSync(path.join(ctx.cwd, '.git'));
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(ctx.cwd, rel)), { recursive: true });
    writeFileSync(path.join(ctx.cwd, rel), content);
  }
  return ctx;
}

/** `^(a+)+$` tries 2^n ways to split n a's before failing on the final b. */
const CATASTROPHIC = '^(a+)+$';
/** The same, but with a look-ahead ripgrep cannot compile: rg hands it to the JS backend. */
const CATASTROPHIC_FOR_RG = '(?=a)^(a+)+$';

async function elapsed<T>(work: Promise<T>): Promise<{ ms: number; result: PromiseSettledResult<T> }> {
  const started = performance.now();
  const [result] = await Promise.allSettled([work]);
  return { ms: performance.now() - started, result: result! };
}

describe('grep with a pattern that backtracks without end', () => {
  // 25 a's: about 2^25 steps, seconds of a frozen thread for matching on the main thread
  // (enough to fail the time bounds below, not so many that a regression hangs the suite).
  const hostile = { 'src/ok.ts': 'const fine = 1;\n', 'data/aaa.txt': `${'a'.repeat(25)}b\n` };
  const query = (ctx: FakeContext, over: Partial<GrepQuery>): GrepQuery => ({
    pattern: CATASTROPHIC,
    root: ctx.cwd,
    cwd: ctx.cwd,
    mode: 'files_with_matches',
    ignoreCase: false,
    ...over,
  });

  it('stops at the time limit with an error that names the pattern, the file and the way out', async () => {
    const ctx = repo(hostile);
    const { ms, result } = await elapsed(grep(query(ctx, { timeLimitMs: 300 }), 'js'));
    expect(result.status).toBe('rejected');
    const error = (result as PromiseRejectedResult).reason as Error;
    expect(error).toBeInstanceOf(ToolError);
    expect(error.message).toContain('took too long');
    expect(error.message).toContain(JSON.stringify(CATASTROPHIC));
    expect(error.message).toContain('data/aaa.txt');
    expect(error.message).toMatch(/simpler pattern/);
    expect(ms).toBeLessThan(3000);
  });

  it('still finds matches of ordinary patterns, in every mode', async () => {
    const ctx = repo({ 'a.txt': 'one\ntwo needle\r\nneedle three\n', 'b.txt': 'nothing\n' });
    expect((await grep(query(ctx, { pattern: 'needle' }), 'js')).output).toBe('a.txt');
    expect((await grep(query(ctx, { pattern: 'needle', mode: 'count' }), 'js')).output).toBe('a.txt:2');
    expect((await grep(query(ctx, { pattern: 'NEEDLE', mode: 'content', ignoreCase: true }), 'js')).output).toBe(
      'a.txt:2:two needle\na.txt:3:needle three',
    );
  });

  it('is stopped at once by an abort while the regex is running', async () => {
    const matcher = LineMatcher.start(new RegExp(CATASTROPHIC), { timeLimitMs: 60_000, signal: AbortSignal.timeout(200) });
    try {
      // 60 a's would take longer than the universe has left: only terminating the worker ends it.
      const { ms, result } = await elapsed(matcher.match(Buffer.from(`${'a'.repeat(60)}b\n`), 'any', 'big.txt'));
      expect(result.status).toBe('rejected');
      expect(((result as PromiseRejectedResult).reason as Error).name).toBe('TimeoutError');
      expect(ms).toBeLessThan(3000);
    } finally {
      await matcher.close();
    }
  });

  it('falls back from rg to a JS search that is stopped by an abort just the same', async () => {
    const ctx = repo(hostile);
    const searching = run(grepTool, { pattern: CATASTROPHIC_FOR_RG }, ctx);
    setTimeout(() => ctx.controller.abort(), 300);
    const { ms, result } = await elapsed(searching);
    expect(result.status).toBe('rejected');
    expect(ms).toBeLessThan(3000);
  });
});

describe('a .gitignore line with many ** over a 45-deep folder', () => {
  const deep = Array.from({ length: 45 }, () => 'a').join('/');
  // Six `**`: the old matching took seconds for every path of the deep folder.
  const rule = '**/a/**/a/**/a/**/a/**/a/**/b';
  const files = { '.gitignore': `*.log\n${rule}\n`, [`${deep}/c.txt`]: 'needle\n', 'top.txt': 'needle\n', 'x.log': 'needle\n' };
  const note = /Line 2 of \.gitignore was not applied: .* has more than 3 "\*\*"/;

  it('list finishes, skips that line with a note and stops descending at 40 levels', async () => {
    const ctx = repo(files);
    const { ms, result } = await elapsed(run(listTool, {}, ctx));
    expect(result.status).toBe('fulfilled');
    const { output } = (result as PromiseFulfilledResult<{ output: string }>).value;
    expect(output).toMatch(note);
    expect(output).toContain('Folders more than 40 levels deep were not entered');
    expect(output).not.toContain('x.log');
    expect(ms).toBeLessThan(3000);
  });

  it('glob finishes, with the same note', async () => {
    const ctx = repo(files);
    const { ms, result } = await elapsed(run(globTool, { pattern: '**/*.txt' }, ctx));
    expect(result.status).toBe('fulfilled');
    const { output } = (result as PromiseFulfilledResult<{ output: string }>).value;
    expect(output.split('\n')[0]).toBe('top.txt');
    expect(output).toMatch(note);
    expect(ms).toBeLessThan(3000);
  });

  it('the JS grep finishes, with the same note', async () => {
    const ctx = repo(files);
    const query: GrepQuery = { pattern: 'needle', root: ctx.cwd, cwd: ctx.cwd, mode: 'files_with_matches', ignoreCase: false };
    const { ms, result } = await elapsed(grep(query, 'js'));
    expect(result.status).toBe('fulfilled');
    const { output } = (result as PromiseFulfilledResult<{ output: string }>).value;
    expect(output).toContain('top.txt');
    expect(output).toMatch(note);
    expect(ms).toBeLessThan(3000);
  });

  it('rg, whose matching is linear, finishes too', async () => {
    const rg = process.env.OCI_TEST_RG ?? (await findRipgrep());
    if (!rg) return;
    const ctx = repo(files);
    const query: GrepQuery = { pattern: 'needle', root: ctx.cwd, cwd: ctx.cwd, mode: 'files_with_matches', ignoreCase: false };
    const { ms, result } = await elapsed(grep(query, 'rg', rg));
    expect(result.status).toBe('fulfilled');
    expect((result as PromiseFulfilledResult<{ output: string }>).value.output).toContain(`${deep}/c.txt`);
    expect(ms).toBeLessThan(3000);
  });
});

describe('patterns from the model that would make matching crawl', () => {
  const deep = Array.from({ length: 45 }, () => 'a').join('/');

  it('glob refuses more than 3 ** and brace sets that expand past 256 patterns', async () => {
    const ctx = repo({ [`${deep}/c.txt`]: 'x', 'a/b/a/c.md': 'x' });
    await expect(run(globTool, { pattern: '**/a/**/a/**/a/**/a/**/a/**/b' }, ctx)).rejects.toThrow(/more than 3 "\*\*"/);
    await expect(run(globTool, { pattern: '{a,b}'.repeat(12) }, ctx)).rejects.toThrow(/expands to more than 256 patterns/);
    expect((await run(globTool, { pattern: '**/b/**/c.{txt,md}' }, ctx)).output).toBe('a/b/a/c.md');
  });

  it('grep refuses such a glob, and list such an ignore pattern', async () => {
    const ctx = repo({ [`${deep}/c.txt`]: 'x' });
    await expect(run(grepTool, { pattern: 'x', glob: '{a,b}'.repeat(12) }, ctx)).rejects.toThrow(/expands to more than 256 patterns/);
    await expect(run(grepTool, { pattern: 'x', glob: '**/a/**/a/**/a/**/a/**/b' }, ctx)).rejects.toThrow(/more than 3 "\*\*"/);
    await expect(run(listTool, { ignore: ['**/a/**/a/**/a/**/a/**/b'] }, ctx)).rejects.toThrow(/ignore pattern .* more than 3 "\*\*"/);
  });
});
