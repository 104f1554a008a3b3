// Process groups this program started, signalled when it exits however it exits (return,
// process.exit after Ctrl+C, exitNow after SIGTERM or SIGHUP): no MCP server and no git
// this program ran outlives it. A git snapshot left running would go on writing in the data
// dir after the program is gone. An 'exit' handler can only do synchronous work, so it
// signals each group (each tracked process leads its own) directly.

const groups = new Map<number, NodeJS.Signals>();
let installed = false;

function signalAll(): void {
  for (const [pid, signal] of groups) {
    try {
      process.kill(process.platform === 'win32' ? pid : -pid, signal);
    } catch {
      // Already gone.
    }
  }
  groups.clear();
}

/** Signals the group `pid` leads with `signal` when this program exits, unless forgotten first. */
export function signalOnExit(pid: number, signal: NodeJS.Signals): void {
  if (!installed) {
    installed = true;
    process.on('exit', signalAll);
  }
  groups.set(pid, signal);
}

/** The process has ended (or was stopped otherwise): nothing to do for it at exit. */
export function forgetOnExit(pid: number): void {
  groups.delete(pid);
}
