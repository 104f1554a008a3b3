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

/**
 * A server exits when its last session ends (or on kill-server) and returns before it is gone;
 * a `new-session` that reaches it in that moment fails with "server exited unexpectedly".
 * Starting again then starts a fresh server, so `new-session` is retried while that is the error.
 */
const SERVER_GOING_AWAY = /server exited unexpectedly|lost server/;
const NEW_SESSION_TRIES = 50;

function stderrOf(err: unknown): string {
  if (typeof err === 'object' && err !== null && 'stderr' in err) return String(err.stderr);
  return '';
}

/** A server on its own socket, so tests never touch the user's tmux sessions or each other's. */
export function tmuxServer(socket: string): TmuxServer {
  const once = (args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const run = (...args: string[]): string => {
    for (let tried = 1; ; tried++) {
      try {
        return once(args);
      } catch (err) {
        if (args[0] !== 'new-session' || tried >= NEW_SESSION_TRIES || !SERVER_GOING_AWAY.test(stderrOf(err))) throw err;
      }
    }
  };
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
