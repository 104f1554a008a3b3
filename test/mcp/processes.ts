// Finds MCP server processes started by this test process, to prove none outlives its engine.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/repo-root.js';

export const EVERYTHING = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
export const CRASHY = join(REPO_ROOT, 'test', 'support', 'mcp-crash-server.mjs');

/** Pids of live children of this process whose command line contains `marker`. */
export function childPids(marker: string): number[] {
  // Container runtimes' helpers (conmon) have command lines of kilobytes each: more than the default 1 MB buffer.
  const out = execFileSync('ps', ['-eo', 'pid=,ppid=,stat=,args='], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return out
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && Number(m[2]) === process.pid && !m[3]!.startsWith('Z') && m[4]!.includes(marker))
    .map((m) => Number(m[1]));
}

/** Resolves once no child process matches `marker`; rejects after `timeoutMs`. */
export async function waitUntilGone(marker: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (childPids(marker).length > 0) {
    if (Date.now() > deadline) throw new Error(`Still running: ${childPids(marker).join(', ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resolves once a child process matches `marker`; rejects after `timeoutMs`. */
export async function waitForChild(marker: string, timeoutMs = 5000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [pid] = childPids(marker);
    if (pid !== undefined) return pid;
    if (Date.now() > deadline) throw new Error(`No child process matching ${marker}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
