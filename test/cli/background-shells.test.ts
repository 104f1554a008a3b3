// No background shell outlives the built binary: a command started with `run_in_background`
// is gone after `run` ends normally, when `run` gets SIGTERM or SIGHUP, and when `run` itself
// is SIGKILLed (nothing in the program runs then: its watchdog does the killing). Checked by
// pid in /proc, with a deadline; each test's sleeps have a duration unique to it.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCli, runCli, startCliProject, type CliProject } from '../support/cli.js';
import { text, toolResults, toolUse } from '../support/fake-anthropic.js';
import { liveProcesses, liveProcessesWhere } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

const linux = existsSync('/proc/self/environ');
let ctx: CliProject;
const durations: string[] = [];
const children: ChildProcess[] = [];

beforeEach(async () => {
  ctx = await startCliProject();
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const d of durations.splice(0)) for (const pid of liveProcesses(d)) process.kill(pid, 'SIGKILL');
  await ctx.close();
});

function uniqueSleep(): string {
  const d = `${400000 + Math.floor(Math.random() * 99999)}.${process.pid}${durations.length}`;
  durations.push(d);
  return d;
}

/** The sleeps themselves, not the shells whose command lines mention them. */
function sleeps(d: string): number[] {
  return liveProcessesWhere((cmdline) => cmdline === `sleep ${d} `);
}

/** A background command whose processes include one that left the process group. */
const serverLike = (d: string) => toolUse('bash', { command: `setsid -f sleep ${d}; sleep ${d}`, run_in_background: true });

describe.skipIf(!linux)('no background shell outlives the program', { timeout: 60_000 }, () => {
  it('ends a background shell when run finishes', async () => {
    const d = uniqueSleep();
    ctx.server.enqueue(serverLike(d), toolUse('bash_output', { shell_id: 'shell_1' }), text('Done.'));
    const result = await runCli(['run', '--yes', 'start a server'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Done.\n');
    const [read] = toolResults(ctx.server.requests[2]!);
    expect(JSON.stringify(read!.content)).toContain('shell_1 is still running');
    await waitFor(() => sleeps(d).length === 0, 'the background sleeps to be gone', { timeoutMs: 10_000 });
  });

  for (const signal of ['SIGTERM', 'SIGHUP', 'SIGKILL'] as const) {
    it(`ends a background shell when run gets ${signal}`, async () => {
      const d = uniqueSleep();
      // The shell starts, then the next model request never answers: run waits with the shell running.
      ctx.server.enqueue(serverLike(d), { type: 'stall' });
      const { child, done } = startCli(['run', '--yes', 'start a server'], { cwd: ctx.project, env: ctx.env });
      children.push(child);
      await waitFor(() => sleeps(d).length === 2 && ctx.server.requests.length === 2, 'the two background sleeps', { timeoutMs: 15_000 });
      const pids = sleeps(d);
      child.kill(signal);
      const result = await done;
      if (signal === 'SIGKILL') expect(result.signal).toBe('SIGKILL');
      else expect(result.code).not.toBe(0);
      await waitFor(() => pids.every((pid) => !sleeps(d).includes(pid)), `the background sleeps to be gone after ${signal}`, { timeoutMs: 10_000 });
    });
  }
});
