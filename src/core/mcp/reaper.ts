// Server processes this program started, stopped when it exits however it exits (return,
// process.exit after Ctrl+C, SIGTERM handled by a front end): no MCP server outlives us.
// An 'exit' handler can only do synchronous work, so it signals each server's process group
// (each server leads its own) directly.

const pids = new Set<number>();
let installed = false;

function killAll(): void {
  for (const pid of pids) {
    try {
      process.kill(process.platform === 'win32' ? pid : -pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  pids.clear();
}

export function trackServerProcess(pid: number): void {
  if (!installed) {
    installed = true;
    process.on('exit', killAll);
  }
  pids.add(pid);
}

export function untrackServerProcess(pid: number): void {
  pids.delete(pid);
}
