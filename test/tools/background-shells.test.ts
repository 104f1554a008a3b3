// Background commands through the real tools and a real registry: `bash` with
// `run_in_background` returns at once with a shell_id, `bash_output` reads what it printed
// since the last read (capped, with what was dropped counted), `kill_shell` ends it and every
// process it started, only the starting session can touch it, and permission asks and the
// sandbox apply as to any command. Processes are found by a sleep duration unique to the test.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayloads } from '../../src/core/events.js';
import { commandSandbox, prepareSandbox } from '../../src/core/sandbox/index.js';
import { BackgroundShells, type ShellEmitter } from '../../src/core/shells/background-shells.js';
import { ShellTail, TAIL_BYTES } from '../../src/core/shells/shell-tail.js';
import { bashTool } from '../../src/core/tools/bash.js';
import { bashOutputTool, killShellTool } from '../../src/core/tools/shell-tools.js';
import { PermissionDeniedError, type ToolResult } from '../../src/core/tools/types.js';
import { liveProcesses, liveProcessesWhere } from '../support/processes.js';
import { bwrapMissing, fakeHome } from '../sandbox/support.js';
import { makeContext, removeDir, run, waitFor, type FakeContext } from './context.js';

const linux = existsSync('/proc/self/environ');
const dirs: string[] = [];
const durations: string[] = [];
const registries: BackgroundShells[] = [];

afterEach(async () => {
  await Promise.all(registries.splice(0).map((r) => r.endAll()));
  for (const d of durations.splice(0)) for (const pid of liveProcesses(d)) process.kill(pid, 'SIGKILL');
  for (const d of dirs.splice(0)) removeDir(d);
});

function uniqueSleep(): string {
  const d = `${600000 + Math.floor(Math.random() * 99999)}.${process.pid}${durations.length}`;
  durations.push(d);
  return d;
}

/** Live `sleep <d>` processes themselves (not the shells whose command lines mention them). */
function sleeps(d: string): number[] {
  return liveProcessesWhere((cmdline) => cmdline === `sleep ${d} `);
}

interface Setup {
  ctx: FakeContext;
  shells: BackgroundShells;
  events: Array<{ type: string; payload: unknown }>;
}

function setup(cwd?: string): Setup {
  const ctx = makeContext(cwd);
  if (!cwd) dirs.push(ctx.cwd);
  const shells = new BackgroundShells();
  registries.push(shells);
  const events: Setup['events'] = [];
  const emit: ShellEmitter = (type, payload) => events.push({ type, payload });
  ctx.shells = shells.forSession(ctx.sessionId, emit);
  return { ctx, shells, events };
}

async function start(ctx: FakeContext, command: string): Promise<string> {
  const result = await run(bashTool, { command, run_in_background: true, description: 'Background job' }, ctx);
  expect(result.isError ?? false).toBe(false);
  const id = result.metadata?.shell_id;
  expect(typeof id).toBe('string');
  return String(id);
}

/** Reads until `done` holds over everything read so far (or the deadline passes), returning each read. */
async function readUntil(ctx: FakeContext, id: string, done: (all: string, last: ToolResult) => boolean): Promise<ToolResult[]> {
  const reads: ToolResult[] = [];
  const deadline = Date.now() + 10_000;
  for (;;) {
    reads.push(await run(bashOutputTool, { shell_id: id }, ctx));
    if (done(reads.map((r) => r.output).join('\n'), reads.at(-1)!)) return reads;
    if (Date.now() > deadline) throw new Error(`Timed out reading ${id}; last read:\n${reads.at(-1)!.output}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('background shells', { timeout: 30_000 }, () => {
  it('keeps only the newest few KB for a watcher, however much the shell prints', () => {
    const tail = new ShellTail();
    for (let i = 0; i < 100; i++) tail.push(Buffer.from(`${String(i).padStart(3, '0')}:${'x'.repeat(200)}\n`));
    const text = tail.text();
    expect(Buffer.byteLength(text)).toBe(TAIL_BYTES);
    expect(text.endsWith(`099:${'x'.repeat(200)}\n`)).toBe(true);
    expect(text).not.toContain('000:');
    const got: string[] = [];
    const stop = tail.watch(() => {
      throw new Error('a broken view');
    });
    tail.watch((t) => got.push(t));
    tail.push(Buffer.from('more\n'));
    tail.push(Buffer.from('again\n'));
    stop();
    expect(got).toEqual(['more\n', 'again\n']);
  });

  it('lets a person watch a shell (its newest output, then live chunks) without taking what bash_output returns', async () => {
    const { ctx, shells } = setup();
    const id = await start(ctx, 'echo before; sleep 0.3; echo after; sleep 0.3; echo last');
    await waitFor(() => shells.watch(ctx.sessionId, id, () => {}).output.includes('before'));
    const chunks: string[] = [];
    const watch = shells.watch(ctx.sessionId, id, (text) => chunks.push(text));
    expect(watch.output).toBe('before\n');
    expect(watch.running).toBe(true);
    await waitFor(() => chunks.join('').includes('after'));
    watch.stop();
    // The model still reads all of it, the watched part included.
    const reads = await readUntil(ctx, id, (all) => all.includes('last'));
    const all = reads.map((r) => r.output).join('\n');
    expect(all).toContain('before');
    expect(all).toContain('after');
    // Stopped: no chunk after `stop()` reaches the listener.
    expect(chunks.join('')).not.toContain('last');
    expect(() => shells.watch(ctx.sessionId, 'shell_99', () => {})).toThrow(/No background shell "shell_99"/);
  });

  it('returns at once with a shell id and reads only what was printed since the last read', async () => {
    const { ctx, events } = setup();
    const id = await start(ctx, 'echo first; while [ ! -f go ]; do sleep 0.05; done; echo second; echo oops >&2; exit 3');
    expect(id).toBe('shell_1');
    expect(ctx.asks).toHaveLength(1);
    expect(ctx.asks[0]).toMatchObject({ permission: 'bash', subject: expect.stringContaining('echo first') });

    const early = await readUntil(ctx, id, (all) => all.includes('first'));
    expect(early.at(-1)!.output).toMatch(/shell_1 is still running \(pid \d+, started \d+ s ago\)/);
    expect(early.at(-1)!.metadata).toMatchObject({ shell_id: 'shell_1', running: true, exitCode: null });

    writeFileSync(join(ctx.cwd, 'go'), '');
    const late = await readUntil(ctx, id, (_all, last) => last.metadata?.running === false);
    const after = late.map((r) => r.output).join('\n');
    expect(after).not.toContain('first');
    expect(after).toContain('second\noops');
    expect(late.at(-1)!.output).toContain('[shell_1 exited with code 3.]');
    expect(late.at(-1)!.metadata).toMatchObject({ running: false, exitCode: 3 });

    const again = await run(bashOutputTool, { shell_id: id }, ctx);
    expect(again.output).toBe('(no new output)\n\n[shell_1 exited with code 3.]');
    expect(events.map((e) => e.type)).toEqual(['shell.started', 'shell.exited']);
    expect(events[0]!.payload).toMatchObject({ shell_id: 'shell_1', description: 'Background job', pid: expect.any(Number) });
    expect(events[1]!.payload).toMatchObject({ shell_id: 'shell_1', exit_code: 3, signal: null, reason: 'exited' });
  });

  it('caps what piled up between two reads and says how many bytes and lines it dropped', async () => {
    const { ctx, shells } = setup();
    // 108,894 bytes of numbered lines, far over the 30 KB a read keeps, all printed before one read.
    const id = await start(ctx, 'seq 1 20000');
    await waitFor(() => shells.running().length === 0, 10_000, 'the command to end');
    const read = await run(bashOutputTool, { shell_id: id }, ctx);
    expect(read.output).toMatch(/^1\n2\n3\n/);
    expect(read.output).toMatch(/\n19999\n20000\n\n\[shell_1 exited with code 0\.\]$/);
    const { droppedBytes, droppedLines } = read.metadata as { droppedBytes: number; droppedLines: number };
    expect(droppedBytes).toBe(108_894 - 30 * 1024);
    expect(droppedLines).toBeGreaterThan(13_000);
    expect(read.output).toContain(`[... ${droppedBytes} bytes (${droppedLines} lines) omitted ...]`);
    // The kept head and tail plus the dropped middle are every line.
    const kept = read.output.split('[...')[0]!.split('\n').filter(Boolean).length + read.output.split('omitted ...]')[1]!.split('\n').filter((l) => /^\d+$/.test(l)).length;
    expect(kept + droppedLines).toBeGreaterThanOrEqual(20_000 - 1);
    expect(kept + droppedLines).toBeLessThanOrEqual(20_000 + 1);
  });

  it.skipIf(!linux)('kill_shell ends the command and every process it started, escaped ones included', async () => {
    const { ctx, events } = setup();
    const d = uniqueSleep();
    const id = await start(ctx, `echo ready; sleep ${d} & setsid -f sleep ${d}; (sleep ${d} &); wait`);
    await waitFor(() => sleeps(d).length === 3, 10_000, 'the three sleeps to start');

    const killed = await run(killShellTool, { shell_id: id }, ctx);
    expect(killed.isError ?? false).toBe(false);
    expect(killed.output).toContain('ready');
    expect(killed.output).toMatch(/\[shell_1 was ended by signal SIGTERM \(stopped by kill_shell\)\.\]/);
    expect(liveProcesses(d)).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'shell.exited', payload: { shell_id: 'shell_1', reason: 'killed', signal: 'SIGTERM' } });

    const afterwards = await run(bashOutputTool, { shell_id: id }, ctx);
    expect(afterwards.metadata).toMatchObject({ running: false });
  });

  it('refuses ids it does not know and shells of another session, as error results', async () => {
    const { ctx, shells } = setup();
    const d = uniqueSleep();
    const id = await start(ctx, `sleep ${d}`);
    await expect(run(bashOutputTool, { shell_id: 'shell_9' }, ctx)).rejects.toThrow(/No background shell "shell_9" in this session\. Its shells: shell_1 \(running\)\./);
    const other = makeContext(ctx.cwd);
    other.shells = shells.forSession('ses_other', () => {});
    await expect(run(bashOutputTool, { shell_id: id }, other)).rejects.toThrow(/No background shell "shell_1" in this session\. It has started none/);
    await expect(run(killShellTool, { shell_id: id }, other)).rejects.toThrow(/No background shell "shell_1"/);
    expect(shells.running().map((s) => s.shellId)).toEqual(['shell_1']);
  });

  it('ends every shell of a session when the session ends, and none of another', async () => {
    const { ctx, shells, events } = setup();
    const mine = uniqueSleep();
    const theirs = uniqueSleep();
    await start(ctx, `sleep ${mine}`);
    await start(ctx, `sleep ${mine} | cat`);
    const other = makeContext(ctx.cwd);
    other.shells = shells.forSession('ses_other', () => {});
    await start(other, `sleep ${theirs}`);
    await waitFor(() => sleeps(mine).length === 2 && sleeps(theirs).length === 1, 10_000, 'the sleeps');

    await shells.endSession(ctx.sessionId);
    expect(liveProcesses(mine)).toEqual([]);
    expect(sleeps(theirs)).toHaveLength(1);
    expect(events.filter((e) => e.type === 'shell.exited').map((e) => (e.payload as EventPayloads['shell.exited']).reason)).toEqual(['session_ended', 'session_ended']);
    expect(shells.running().map((s) => `${s.sessionId}/${s.shellId}`)).toEqual(['ses_other/shell_1']);
    // Ids are not reused after the session's shells were forgotten.
    expect(await start(ctx, 'true')).toBe('shell_3');
  });

  it('asks like any command, and a refused command starts nothing', async () => {
    const { ctx, shells } = setup();
    ctx.deny = () => true;
    await expect(run(bashTool, { command: 'echo hi', run_in_background: true }, ctx)).rejects.toBeInstanceOf(PermissionDeniedError);
    expect(ctx.asks).toHaveLength(1);
    expect(shells.running()).toEqual([]);
  });

  it('says so when no registry is at hand', async () => {
    const ctx = makeContext();
    dirs.push(ctx.cwd);
    await expect(run(bashTool, { command: 'echo hi', run_in_background: true }, ctx)).rejects.toThrow(/Background commands are not available here/);
    expect(ctx.asks).toHaveLength(0);
  });

  it.skipIf(bwrapMissing !== undefined)('runs inside the sandbox like any command', async () => {
    const home = fakeHome();
    dirs.push(home.root);
    const host = prepareSandbox({
      config: { mode: 'workspace-write', network: false, allow_write: [], auto_allow: true },
      env: { ...home.env, OPENCODE_INK_DATA_DIR: home.dataDir, OPENCODE_INK_CONFIG_DIR: home.configDir },
      cwd: home.project,
    });
    const { ctx } = setup(home.project);
    const sandbox = commandSandbox(host, host.settings, home.project);
    if (sandbox) ctx.sandbox = sandbox;
    const started = await run(bashTool, { command: `echo ok > made.txt; cat ${home.home}/.ssh/id_rsa; touch ${home.root}/escaped`, run_in_background: true }, ctx);
    expect(started.metadata).toMatchObject({ sandbox: 'workspace-write', background: true });
    expect(ctx.asks[0]).toMatchObject({ sandboxAutoAllow: true });
    const reads = await readUntil(ctx, String(started.metadata?.shell_id), (_all, last) => last.metadata?.running === false);
    const all = reads.map((r) => r.output).join('\n');
    expect(existsSync(join(home.project, 'made.txt'))).toBe(true);
    expect(all).not.toContain('PRIVATE KEY');
    expect(all).toMatch(/Read-only file system/);
    expect(existsSync(join(home.root, 'escaped'))).toBe(false);
  });
});
