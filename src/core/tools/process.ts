// Process control for bash: every process a command starts is found and ended, including
// ones that leave its process group.
//
// Two nets, both kept:
// - The process group. Commands run as the leader of their own group (`detached`), so one
//   signal to the negative pid reaches every child, grandchild and `&` job.
// - An environment marker. Each command gets `OPENCODE_INK_PROC=<random id>` in its
//   environment, which every descendant inherits even after `setsid`, `setsid -f`, a double
//   fork (`(sleep 100 &)`), `nohup … &` or `disown` has taken it out of the group. On Linux
//   `/proc/<pid>/environ` shows it, so those escapees are found by scanning /proc.
//
// Limits (documented in the README): a process that replaces its environment (`env -i`)
// drops the marker; without /proc (macOS) only the group is covered. SIGKILL of this program
// itself cannot be caught here: orphan-guard.ts's watchdog does the killing then.
//
// Liveness is judged from /proc where available because zombies (common in containers whose
// PID 1 never reaps) still count as group members for kill(-pgid, 0) though they are
// already dead; a zombie's environ reads empty, so it never matches the marker either.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/** The environment variable that marks every process a bash command starts. */
export const PROCESS_MARKER_VAR = 'OPENCODE_INK_PROC';

const hasProc = (() => {
  try {
    readdirSync('/proc/self');
    return true;
  } catch {
    return false;
  }
})();

/** A fresh marker for one command. */
export function newMarker(): string {
  return randomUUID();
}

/** The variables to add to a command's environment so its processes can be found. */
export function markerEnv(marker: string): Record<string, string> {
  return { [PROCESS_MARKER_VAR]: marker };
}

function procPids(): string[] {
  try {
    return readdirSync('/proc').filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid);
  } catch {
    return [];
  }
}

/** Fields after the parenthesised command name of /proc/<pid>/stat: state ppid pgrp ... */
function statFields(pid: string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * Live processes carrying one of the markers, by marker. Only processes of our own user are
 * readable, which is also all we may signal.
 *
 * A process in the middle of execve has a new address space whose environment is not yet
 * set up: its environ reads as empty for that moment (a command that ends as its
 * background child execs, `(setsid sleep 9 &)`, is caught there). Such processes are read
 * again after a few milliseconds; kernel threads, which never have an environment, are not.
 * `wait` is that pause; a test passes its own to finish an exec at exactly that moment.
 */
export function markedProcesses(markers: Iterable<string>, wait: (ms: number) => void = pause): Map<string, number[]> {
  const wanted = new Map<string, string>();
  for (const marker of markers) wanted.set(`${PROCESS_MARKER_VAR}=${marker}`, marker);
  const found = new Map<string, number[]>();
  if (!hasProc || wanted.size === 0) return found;
  const note = (pid: string, environ: string) => {
    if (!environ.includes(PROCESS_MARKER_VAR)) return;
    for (const entry of environ.split('\0')) {
      const marker = wanted.get(entry);
      if (marker === undefined) continue;
      const state = statFields(pid)?.[0];
      if (state === undefined || state === 'Z' || state === 'X') return;
      const list = found.get(marker) ?? [];
      list.push(Number(pid));
      found.set(marker, list);
      return;
    }
  };
  let unread: string[] = [];
  for (const pid of procPids()) {
    const environ = readEnviron(pid);
    if (environ === '' && mayBeExecing(pid)) unread.push(pid);
    else if (environ) note(pid, environ);
  }
  for (let attempt = 0; attempt < EXEC_RETRIES && unread.length > 0; attempt++) {
    wait(EXEC_RETRY_MS);
    const again: string[] = [];
    for (const pid of unread) {
      const environ = readEnviron(pid);
      if (environ === '') again.push(pid);
      else if (environ) note(pid, environ);
    }
    unread = again.filter(mayBeExecing);
  }
  return found;
}

const EXEC_RETRIES = 4;
const EXEC_RETRY_MS = 5;

/** The environment block, '' when empty, undefined when unreadable (gone, or another user's). */
function readEnviron(pid: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1');
  } catch {
    return undefined;
  }
}

/**
 * Whether an empty environment may be a moment of execve in one of our commands: a live
 * process (not a zombie) started after this one, as everything our commands start is. Kernel
 * threads and processes started with no environment at all (a container's init) are older.
 */
function mayBeExecing(pid: string): boolean {
  const fields = statFields(pid);
  if (!fields || fields[0] === 'Z' || fields[0] === 'X') return false;
  return Number(fields[STARTTIME_FIELD]) >= ownStartTime();
}

/** Index of `starttime` (field 22 of /proc/<pid>/stat) among the fields after the command name. */
const STARTTIME_FIELD = 19;
let started: number | undefined;
function ownStartTime(): number {
  started ??= Number(statFields(String(process.pid))?.[STARTTIME_FIELD] ?? 0);
  return started;
}

/** Blocks this thread for `ms` (the scans are synchronous, and the wait is rare and short). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Live (non-zombie) processes of a group; an approximation from kill(0) without /proc. */
export function groupAlive(pgid: number): boolean {
  if (!hasProc) return probe(pgid);
  for (const pid of procPids()) {
    const fields = statFields(pid);
    if (fields && Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}

function probe(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** One command's processes: its group, and everything carrying its marker. */
export interface CommandProcesses {
  pgid: number;
  marker: string;
}

/** True while the group or any marked process is alive. */
export function commandAlive(command: CommandProcesses): boolean {
  return groupAlive(command.pgid) || (markedProcesses([command.marker]).get(command.marker)?.length ?? 0) > 0;
}

function signalCommand(command: CommandProcesses, sig: NodeJS.Signals): void {
  signal(-command.pgid, sig);
  for (const pid of markedProcesses([command.marker]).get(command.marker) ?? []) signal(pid, sig);
}

async function waitUntilGone(command: CommandProcesses, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (commandAlive(command)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

/**
 * SIGTERM to the group and every marked process, SIGKILL to whatever is left after the
 * grace period. Marked processes are looked up again before each signal, so children
 * forked meanwhile are caught too.
 */
export async function killCommand(command: CommandProcesses, graceMs = 2000): Promise<void> {
  if (!commandAlive(command)) return;
  signalCommand(command, 'SIGTERM');
  if (await waitUntilGone(command, graceMs)) return;
  signalCommand(command, 'SIGKILL');
  // A process may fork between the scan and the signal: repeat until nothing is left.
  const deadline = Date.now() + 2000;
  while (commandAlive(command) && Date.now() < deadline) {
    signalCommand(command, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// Commands still running when this process exits are killed outright, synchronously, from
// the 'exit' event: process.exit, the end of the event loop, and the signal handlers of
// `run` and the TUI (which cancel, then exit) all pass through it.
const running = new Set<CommandProcesses>();
let exitHookInstalled = false;

/** Registers a running command so that it is killed if this process exits first; returns the undo. */
export function trackCommand(command: CommandProcesses): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', killAllCommandsNow);
  }
  running.add(command);
  return () => running.delete(command);
}

/**
 * SIGKILL to every running command's group and marked processes, now and synchronously.
 * For the exit paths, where there is no time for a grace period.
 */
export function killAllCommandsNow(): void {
  if (running.size === 0) return;
  const commands = [...running];
  for (const command of commands) signal(-command.pgid, 'SIGKILL');
  // Twice: a process forking between the scan and the signal leaves a child with the marker.
  for (let round = 0; round < 2; round++) {
    const marked = markedProcesses(commands.map((c) => c.marker));
    if (marked.size === 0) break;
    for (const pids of marked.values()) for (const pid of pids) signal(pid, 'SIGKILL');
  }
  running.clear();
}

/**
 * True when a thread of the process is blocked opening a FIFO (Linux shows the kernel's
 * `wait_for_partner` as its wait channel): such an open() waits for a writer that may never
 * come. Always false without /proc.
 */
export function blockedOnFifo(pid: number): boolean {
  if (!hasProc) return false;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return false;
  }
  return tasks.some((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/wchan`, 'utf8').trim() === 'wait_for_partner';
    } catch {
      return false;
    }
  });
}
