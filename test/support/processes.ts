// Finds live processes by command line, to prove that none a test started outlives it.
// Linux only (/proc); zombies and this test process itself do not count.
import { readdirSync, readFileSync } from 'node:fs';

/** Pids of live (non-zombie) processes whose command line, arguments joined by spaces and ending in one, passes `match`. */
export function liveProcessesWhere(match: (cmdline: string) => boolean): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (match(cmdline) && state !== 'Z' && state !== 'X') found.push(Number(pid));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/** Live processes whose command line contains `needle`. */
export function liveProcesses(needle: string): number[] {
  return liveProcessesWhere((cmdline) => cmdline.includes(needle));
}

/** Live processes whose environment holds `entry` (`NAME=value`) exactly: what a program started inherits it. */
export function liveProcessesWithEnv(entry: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(entry)) found.push(Number(pid));
    } catch {
      // exited meanwhile, or not ours to read
    }
  }
  return found;
}
