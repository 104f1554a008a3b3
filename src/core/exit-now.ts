// Ends the program at once, for a second Ctrl+C or SIGTERM. process.exit cannot be used
// for that: it joins libuv's pool threads before exiting, so one stuck in a blocking call
// (open() on a FIFO waits for a writer forever, a dead network mount never answers) would
// hang the exit too. Instead the 'exit' listeners run first, as process.exit would run them
// (they kill what the bash tool started), and the process then ends by the signal's
// default action, which the kernel carries out without waiting on any thread. A shell sees
// the usual status for it (130 for SIGINT, 143 for SIGTERM).
import { constants } from 'node:os';

const HANDLED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export function exitNow(signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP' = 'SIGINT'): void {
  const code = 128 + constants.signals[signal];
  process.exitCode = code;
  try {
    process.emit('exit', code);
  } finally {
    // With no listener left, Node restores the default action for these signals.
    for (const s of HANDLED) process.removeAllListeners(s);
    process.kill(process.pid, signal);
  }
}

/** File system requests still waiting on a pool thread. */
function fsRequestsPending(): boolean {
  return process.getActiveResourcesInfo().some((name) => name.startsWith('FSReq'));
}

/**
 * For the normal way out (the caller's process.exit comes next): waits up to `graceMs` for
 * pending file system requests to finish. If some are still pending then, a pool thread is
 * presumably stuck in a call that will never return, which process.exit would wait on
 * forever, so the program ends now instead (exitNow). Background walks must be stopped
 * before this is called, or their steady trickle of requests would look stuck.
 */
export async function exitNowIfStuck(graceMs = 500, signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP' = 'SIGINT'): Promise<void> {
  const deadline = Date.now() + graceMs;
  while (fsRequestsPending()) {
    if (Date.now() >= deadline) return exitNow(signal);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
