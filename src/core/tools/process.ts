// Process-group control for bash. Commands run as the leader of their own group
// (`detached`), so one signal to the negative pid reaches every child, grandchild and
// background job they started. Liveness is judged from /proc where available because
// zombies (common in containers whose PID 1 never reaps) still count as group members
// for kill(-pgid, 0) though they are already dead.
import { readdirSync, readFileSync } from 'node:fs';

const hasProc = (() => {
  try {
    readdirSync('/proc/self');
    return true;
  } catch {
    return false;
  }
})();

/** Live (non-zombie) processes of a group; an approximation from kill(0) without /proc. */
export function groupAlive(pgid: number): boolean {
  if (hasProc) {
    let pids: string[];
    try {
      pids = readdirSync('/proc');
    } catch {
      return probe(pgid);
    }
    for (const pid of pids) {
      if (!/^\d+$/.test(pid)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue;
      }
      // Fields after the parenthesised command: state ppid pgrp ...
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
    }
    return false;
  }
  return probe(pgid);
}

function probe(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

async function waitUntilGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

/** SIGTERM to the whole group, SIGKILL to whatever is left after the grace period. */
export async function killGroup(pgid: number, graceMs = 2000): Promise<void> {
  if (!groupAlive(pgid)) return;
  signalGroup(pgid, 'SIGTERM');
  if (await waitUntilGone(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  await waitUntilGone(pgid, 2000);
}
