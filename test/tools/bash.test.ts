import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bashTool } from '../../src/core/tools/bash.js';
import { PermissionDeniedError } from '../../src/core/tools/types.js';
import { makeContext, removeDir, run, waitFor, type FakeContext } from './context.js';

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

/** Live (non-zombie) processes whose command line contains the marker. */
function liveProcesses(marker: string): number[] {
  if (!existsSync('/proc/self')) {
    try {
      return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).trim().split('\n').map(Number);
    } catch {
      return [];
    }
  }
  const found: number[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (cmdline.includes(marker) && state !== 'Z' && state !== 'X') found.push(Number(pid));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/** A sleep duration unique to this test run, to find its processes by command line. */
function uniqueSleep(): string {
  return `${900000 + Math.floor(Math.random() * 99999)}.${process.pid}`;
}

describe('bash', () => {
  it('asks, runs in the working directory and interleaves stdout and stderr', async () => {
    setup();
    writeFileSync(path.join(ctx.cwd, 'here.txt'), '');
    const result = await run(bashTool, { command: 'ls; echo out; echo err >&2', description: 'List files' }, ctx);
    expect(result.output).toBe('here.txt\nout\nerr');
    expect(result.isError).toBe(false);
    expect(ctx.asks).toHaveLength(1);
    expect(ctx.asks[0]).toMatchObject({
      permission: 'bash',
      patterns: ['ls', 'echo out', 'echo err'],
      subject: 'ls; echo out; echo err >&2',
      always: ['ls*', 'echo out*', 'echo err*'],
    });
  });

  it('does not run when denied', async () => {
    setup();
    ctx.deny = () => true;
    await expect(run(bashTool, { command: 'touch made.txt' }, ctx)).rejects.toBeInstanceOf(PermissionDeniedError);
    expect(existsSync(path.join(ctx.cwd, 'made.txt'))).toBe(false);
  });

  it('reports a non-zero exit code and closes stdin', async () => {
    setup();
    const failed = await run(bashTool, { command: 'echo partial; exit 3' }, ctx);
    expect(failed.output).toBe('partial\n\n[Exit code: 3]');
    expect(failed.metadata).toMatchObject({ exitCode: 3, timedOut: false });
    const stdin = await run(bashTool, { command: 'cat; echo "read done"' }, ctx);
    expect(stdin.output).toBe('read done');
    expect((await run(bashTool, { command: 'true' }, ctx)).output).toBe('(no output)');
  });

  it('reports a command that cannot start', async () => {
    setup();
    const gone = makeContext(path.join(ctx.cwd, 'does-not-exist'));
    const result = await run(bashTool, { command: 'echo hi' }, gone);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^Failed to start the command/);
  });

  it('keeps the beginning and end of long output', async () => {
    setup();
    const result = await run(
      bashTool,
      { command: 'echo START; head -c 200000 /dev/zero | tr "\\0" a; echo; echo END' },
      ctx,
    );
    expect(result.output.startsWith('START\n')).toBe(true);
    expect(result.output.endsWith('\nEND')).toBe(true);
    expect(result.output).toMatch(/\[\.\.\. \d+ bytes \(\d+ lines\) omitted \.\.\.\]/);
    expect(result.output.length).toBeLessThan(32 * 1024);
    expect(result.metadata).toMatchObject({ outputBytes: 200011 });
  });

  it('streams progress while the command runs', async () => {
    setup();
    await run(bashTool, { command: 'echo first; sleep 0.6; echo second' }, ctx);
    expect(ctx.progressUpdates.length).toBeGreaterThan(0);
    expect(String(ctx.progressUpdates[0]!.output)).toContain('first');
  });

  it('stops the whole process group on timeout', async () => {
    setup();
    const marker = uniqueSleep();
    const started = Date.now();
    const result = await run(bashTool, { command: `sleep ${marker} & sleep ${marker}; echo never`, timeout: 500 }, ctx);
    expect(Date.now() - started).toBeLessThan(8000);
    expect(result.output).toContain('timed out after 500 ms');
    expect(result.output).not.toContain('never');
    expect(result.isError).toBe(true);
    expect(liveProcesses(marker)).toEqual([]);
  });

  it('kills children when aborted mid-command', async () => {
    setup();
    const marker = uniqueSleep();
    const pending = run(bashTool, { command: `(sleep ${marker} &) ; sleep ${marker}` }, ctx);
    await waitFor(() => liveProcesses(marker).length === 2, 5000, 'both sleeps to start');
    ctx.controller.abort();
    await expect(pending).rejects.toThrow();
    expect(liveProcesses(marker)).toEqual([]);
  });

  it('does not leave background jobs running after a command finishes', async () => {
    setup();
    const marker = uniqueSleep();
    const started = Date.now();
    const result = await run(bashTool, { command: `sleep ${marker} & echo started` }, ctx);
    expect(Date.now() - started).toBeLessThan(8000);
    expect(result.output).toContain('started');
    expect(result.output).toContain('Background processes');
    expect(liveProcesses(marker)).toEqual([]);
  });
});
