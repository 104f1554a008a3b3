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
