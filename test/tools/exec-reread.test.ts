// A process caught in the middle of execve shows an empty /proc/<pid>/environ for a moment;
// the marker scan reads such young processes again instead of taking them for unmarked.
// Here a real process starts with an empty environment (`env -i`) and execs into one that
// carries the marker exactly while the scan pauses between its reads, so the first read
// sees nothing and only the re-read can find it.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { markedProcesses, newMarker, PROCESS_MARKER_VAR } from '../../src/core/tools/process.js';

const linux = existsSync('/proc/self/environ');
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function which(program: string): string {
  return execFileSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).trim();
}

function environOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1');
  } catch {
    return '';
  }
}

/** Blocks the thread until `done()` or the deadline: the scan under test is synchronous. */
function blockUntil(done: () => boolean, what: string, ms = 10_000): void {
  const deadline = Date.now() + ms;
  const cell = new Int32Array(new SharedArrayBuffer(4));
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    Atomics.wait(cell, 0, 0, 5);
  }
}

describe.skipIf(!linux)('the marker scan and execve', () => {
  it('reads a young process with an empty environment again, and finds the marker it execs into', () => {
    const dir = mkdtempSync(join(tmpdir(), 'exec-reread-'));
    dirs.push(dir);
    const go = join(dir, 'go');
    const marker = newMarker();
    const [sh, env, sleep] = [which('sh'), which('env'), which('sleep')];
    // No environment at all until `go` exists; then exec into `sleep` with the marker.
    const script = `while [ ! -e '${go}' ]; do ${sleep} 0.01; done; exec ${env} ${PROCESS_MARKER_VAR}=${marker} ${sleep} 600`;
    const child = spawn(env, ['-i', sh, '-c', script], { stdio: 'ignore' });
    children.push(child);
    const pid = child.pid!;
    // First `env` itself runs, with this process's environment; then it execs the shell with none.
    const program = () => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')[0];
      } catch {
        return undefined;
      }
    };
    blockUntil(() => program() === sh && environOf(pid) === '', 'the shell to start with an empty environment');

    let pauses = 0;
    const found = markedProcesses([marker], () => {
      pauses++;
      if (pauses > 1) return;
      writeFileSync(go, '');
      blockUntil(() => environOf(pid).includes(marker), 'the exec');
    });

    expect(pauses).toBeGreaterThan(0);
    expect(found.get(marker)).toEqual([pid]);
  });

});
