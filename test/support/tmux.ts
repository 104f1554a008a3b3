// A private tmux server for end-to-end tests that drive the built binary in a real terminal.
import { execFileSync } from 'node:child_process';

export const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
})();

export interface TmuxServer {
  /** Runs a tmux command against this server and returns its output. */
  run(...args: string[]): string;
  /** Stops the server and every session in it (no error if it is gone already). */
  kill(): void;
}

/** A server on its own socket, so tests never touch the user's tmux sessions or each other's. */
export function tmuxServer(socket: string): TmuxServer {
  const run = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  return {
    run,
    kill() {
      try {
        run('kill-server');
      } catch {
        // already gone
      }
    },
  };
}
