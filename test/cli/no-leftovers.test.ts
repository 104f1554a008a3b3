// The binary never hangs on special files and leaves no process behind: a mention of a
// FIFO is refused with one clear line; processes the bash tool started (escaped ones
// included) are gone after `run` ends normally, on SIGINT and on SIGTERM; and a second
// SIGINT ends the program at once even while a command ignores SIGTERM and a pool thread
// is stuck.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCli, runCli, startCliProject, type CliProject } from '../support/cli.js';
import { text, toolResults, toolUse } from '../support/fake-anthropic.js';
import { waitFor } from '../tools/context.js';
import { liveProcessesWhere } from '../support/processes.js';

const linux = existsSync('/proc/self/environ');
let ctx: CliProject;
const durations: string[] = [];
const children: ChildProcess[] = [];

beforeEach(async () => {
  ctx = await startCliProject();
});
afterEach(async () => {
  // A failing test must not leave a hung binary behind.
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const d of durations.splice(0)) for (const pid of liveProcesses(d)) process.kill(pid, 'SIGKILL');
  await ctx.close();
});

/** Live (non-zombie) processes whose command line contains `needle`, or is exactly it with `exact`. */
function liveProcesses(needle: string, exact = false): number[] {
  return liveProcessesWhere((cmdline) => (exact ? cmdline === `${needle} ` : cmdline.includes(needle)));
}

function uniqueSleep(): string {
  const d = `${700000 + Math.floor(Math.random() * 99999)}.${process.pid}${durations.length}`;
  durations.push(d);
  return d;
}

describe.skipIf(!linux)('special files through the binary', { timeout: 60_000 }, () => {
  it('refuses a prompt that mentions a FIFO with one clear line instead of hanging', async () => {
    execFileSync('mkfifo', [join(ctx.project, 'pipe.log')]);
    const result = await runCli(['run', 'summarise @pipe.log please'], { cwd: ctx.project, env: ctx.env });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(/^Error: .*@pipe\.log.*pipe\.log is a FIFO, not a regular file/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(ctx.server.requests).toHaveLength(0);
  });

  it('starts although the project\'s AGENTS.md is a FIFO, leaving it out of the prompt', async () => {
    execFileSync('mkfifo', [join(ctx.project, 'AGENTS.md')]);
    ctx.server.enqueue(text('Started.'));
    const result = await runCli(['run', 'hello'], { cwd: ctx.project, env: ctx.env });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Started.\n');
    expect(JSON.stringify(ctx.server.requests[0]!.body.system)).not.toContain('Instructions from');
  });

  it('gives the model an error result when it reads a FIFO, and the run goes on', async () => {
    execFileSync('mkfifo', [join(ctx.project, 'pipe.log')]);
    ctx.server.enqueue(toolUse('read', { file_path: 'pipe.log' }), text('It is a pipe.'));
    const result = await runCli(['run', 'read the log'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('It is a pipe.\n');
    const [answer] = toolResults(ctx.server.requests[1]!);
    expect(answer!.is_error).toBe(true);
    expect(JSON.stringify(answer!.content)).toContain('pipe.log is a FIFO, not a regular file');
  });
});

describe.skipIf(!linux)('no process left behind by run', { timeout: 60_000 }, () => {
  it('ends escaped processes when the command ends and the run finishes', async () => {
    const d = uniqueSleep();
    ctx.server.enqueue(toolUse('bash', { command: `setsid -f sleep ${d}; (sleep ${d} &); echo started` }), text('Done.'));
    const result = await runCli(['run', '--yes', 'start things'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(0);
    expect(liveProcesses(d)).toEqual([]);
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`ends every process a running command started when run gets ${signal}`, async () => {
      const d = uniqueSleep();
      ctx.server.enqueue(
        toolUse('bash', { command: `setsid -f sleep ${d}; nohup sleep ${d} >/dev/null 2>&1 & sh -c '(sleep ${d} &) &'; sleep ${d}` }),
        text('never reached'),
      );
      const { child, done } = startCli(['run', '--yes', 'start things'], { cwd: ctx.project, env: ctx.env });
      children.push(child);
      await waitFor(() => liveProcesses(`sleep ${d}`, true).length === 4, 10_000, 'the four sleeps to start');
      child.kill(signal);
      const result = await done;
      expect(result.code).toBe(130);
      expect(result.stderr).toContain('Cancelled.');
      expect(liveProcesses(d)).toEqual([]);
    });
  }

  it('a second SIGINT ends the program at once while a command ignores SIGTERM and a pool thread is stuck', async () => {
    const d = uniqueSleep();
    const fifo = join(ctx.dir, 'stuck.fifo');
    execFileSync('mkfifo', [fifo]);
    const log = join(ctx.project, 'term.log');
    // The escaped shell notes each SIGTERM and carries on, so the first SIGINT's cancel
    // waits out its grace period; the test sends the second SIGINT inside that window.
    ctx.server.enqueue(
      toolUse('bash', { command: `setsid -f sh -c "trap 'echo term >> ${log}' TERM; while :; do sleep ${d}; done"; sleep ${d}` }),
      text('never reached'),
    );
    const { child, done } = startCli(['run', '--yes', 'start things'], {
      cwd: ctx.project,
      env: { ...ctx.env, NODE_OPTIONS: `--import=${join(import.meta.dirname, '..', 'support', 'stuck-pool.mjs')}`, OCI_TEST_STUCK_FIFO: fifo },
    });
    children.push(child);
    await waitFor(() => liveProcesses(`sleep ${d}`, true).length === 2, 10_000, 'the sleeps to start');
    child.kill('SIGINT');
    await waitFor(() => existsSync(log), 10_000, 'the first SIGINT to reach the command');
    let exited = false;
    void done.then(() => (exited = true));
    child.kill('SIGINT');
    // With a pool thread stuck, process.exit would never return, so without the second
    // SIGINT's immediate exit this would hang whatever the deadline (it usually takes
    // well under a second; the deadline is generous for a loaded machine).
    await waitFor(() => exited, 5000, 'the program to exit after the second SIGINT');
    const result = await done;
    expect(result.signal).toBe('SIGINT');
    await waitFor(() => liveProcesses(d).length === 0, 5000, 'no sleep left');
    expect(readFileSync(log, 'utf8')).toBe('term\n');
  });

  it('cancels at once while a sub-agent\'s snapshot is held, and a second SIGTERM ends the program and that snapshot\'s git', async () => {
    const d = uniqueSleep();
    const started = join(ctx.dir, 'filter-started');
    // A clean filter from the user's global git configuration holds for good any snapshot
    // that stages a `.held` file reading `hold`, and passes other files through.
    const filter = join(ctx.dir, `held-filter-${d}.sh`);
    writeFileSync(filter, `#!/bin/sh\ncontent=$(cat)\nif [ "$content" = hold ]; then touch '${started}'; while :; do sleep ${d}; done; fi\nprintf '%s\\n' "$content"\n`, { mode: 0o755 });
    const gitConfig = join(ctx.dir, 'global-gitconfig');
    writeFileSync(gitConfig, `[filter "held"]\n\tclean = ${filter}\n`);
    writeFileSync(join(ctx.project, '.gitattributes'), '*.held filter=held\n');
    // The prompt's snapshot comes before the lead writes b.held; the sub-agent's start
    // snapshot, which no turn owns (cancelling does not stop it), is the one held.
    ctx.server.enqueue(
      toolUse('write', { file_path: 'b.held', content: 'hold\n' }),
      toolUse('task', { description: 'Change c', prompt: 'change c', subagent_type: 'general' }),
      toolUse('write', { file_path: 'c.txt', content: 'new\n' }),
      text('never reached'),
      text('never reached'),
    );
    const { child, done } = startCli(['run', '--yes', '--format', 'json', 'delegate the change'], { cwd: ctx.project, env: { ...ctx.env, GIT_CONFIG_GLOBAL: gitConfig } });
    children.push(child);
    let events = '';
    child.stdout!.on('data', (d: Buffer) => (events += d.toString()));
    await waitFor(() => existsSync(started), 10_000, 'the snapshot to reach the filter');
    child.kill('SIGTERM');
    // Two signals sent before the first is handled arrive as one: the second waits for the
    // cancel the first one started. Closing then waits for the snapshot; the second ends the program.
    await waitFor(() => events.includes('"status":"cancelled"'), 10_000, 'the first SIGTERM to cancel the run');
    expect(liveProcesses(`sleep ${d}`, true).length).toBeGreaterThan(0);
    child.kill('SIGTERM');
    await done;
    await waitFor(() => liveProcessesWhere((c) => c.includes(filter) || c.includes(`sleep ${d}`)).length === 0, 5000, 'no git filter left');
    // The sub-agent's write waited for its snapshot, and was cancelled.
    expect(existsSync(join(ctx.project, 'c.txt'))).toBe(false);
  });
});
