// Processes that leave the command's process group (setsid, setsid -f, double forks, nohup,
// disown) are still found through the environment marker and ended: when the command ends,
// times out or is cancelled (test/cli/no-leftovers.test.ts covers the program's exit). Each test's sleeps have a duration
// unique to the test, which is how they are found in /proc afterwards.
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { bashTool } from '../../src/core/tools/bash.js';
import { PROCESS_MARKER_VAR } from '../../src/core/tools/process.js';
import { makeContext, removeDir, run, waitFor, type FakeContext } from './context.js';
import { liveProcesses } from '../support/processes.js';

const linux = existsSync('/proc/self/environ');
const dirs: string[] = [];
const durations: string[] = [];


/** A sleep duration no other test or process uses. */
function uniqueSleep(): string {
  const d = `${800000 + Math.floor(Math.random() * 99999)}.${process.pid}${durations.length}`;
  durations.push(d);
  return d;
}

function setup(): FakeContext {
  const ctx = makeContext();
  dirs.push(ctx.cwd);
  return ctx;
}

afterEach(() => {
  // Whatever a failing test left behind, found by its unique duration only.
  for (const d of durations.splice(0)) for (const pid of liveProcesses(d)) process.kill(pid, 'SIGKILL');
  for (const d of dirs.splice(0)) removeDir(d);
});

const escapes: [string, (d: string) => string][] = [
  ['setsid … &', (d) => `setsid sleep ${d} &`],
  ['setsid -f', (d) => `setsid -f sleep ${d}`],
  ['setsid -f with output redirected', (d) => `setsid -f sleep ${d} >/dev/null 2>&1 </dev/null`],
  ['(… &)', (d) => `(sleep ${d} &)`],
  ['nohup … &', (d) => `nohup sleep ${d} >/dev/null 2>&1 &`],
  ['… & disown', (d) => `sleep ${d} & disown`],
  ["sh -c '(… &) &'", (d) => `sh -c '(sleep ${d} &) &'`],
  ['double fork with setsid and closed output', (d) => `(setsid sleep ${d} >/dev/null 2>&1 &) ; echo forked`],
];

describe.skipIf(!linux)('bash ends processes that leave its process group', { timeout: 60_000 }, () => {
  it.each(escapes)('%s: none left after the command ends', async (_name, command) => {
    const ctx = setup();
    const d = uniqueSleep();
    const result = await run(bashTool, { command: command(d) }, ctx);
    expect(result.output).toContain('Background processes the command left running were stopped');
    expect(liveProcesses(d)).toEqual([]);
  });

  it('none left after a timeout', async () => {
    const ctx = setup();
    const d = uniqueSleep();
    const result = await run(
      bashTool,
      { command: `setsid -f sleep ${d}; (sleep ${d} &); nohup sleep ${d} >/dev/null 2>&1 & sleep ${d}`, timeout: 1000 },
      ctx,
    );
    expect(result.output).toContain('timed out after 1000 ms');
    expect(liveProcesses(d)).toEqual([]);
  });

  it('none left after the call is cancelled', async () => {
    const ctx = setup();
    const d = uniqueSleep();
    const pending = run(bashTool, { command: `setsid -f sleep ${d}; sh -c '(sleep ${d} &) &'; sleep ${d}` }, ctx);
    await waitFor(() => liveProcesses(d).length === 3, 5000, 'the three sleeps to start');
    ctx.controller.abort();
    await expect(pending).rejects.toThrow(/cancel/i);
    expect(liveProcesses(d)).toEqual([]);
  });

  it('a process that ignores SIGTERM is killed after the grace period', async () => {
    const ctx = setup();
    const d = uniqueSleep();
    const result = await run(bashTool, { command: `setsid -f sh -c "trap '' TERM; sleep ${d}; sleep ${d}"` }, ctx);
    expect(result.output).toContain('were stopped');
    expect(liveProcesses(d)).toEqual([]);
  });

  it('gives each command its own marker, so one command never ends another one\'s processes', async () => {
    const a = setup();
    const b = setup();
    const d = uniqueSleep();
    const long = run(bashTool, { command: `echo $${PROCESS_MARKER_VAR}; sleep ${d}`, timeout: 60_000 }, a);
    await waitFor(() => liveProcesses(d).length === 1, 5000, 'the long sleep to start');
    const other = await run(bashTool, { command: `echo $${PROCESS_MARKER_VAR}` }, b);
    expect(other.output).toMatch(/^[0-9a-f-]{36}$/);
    expect(liveProcesses(d)).toHaveLength(1);
    a.controller.abort();
    await expect(long).rejects.toThrow();
    expect(liveProcesses(d)).toEqual([]);
  });
});
