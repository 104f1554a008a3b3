// The built binary in a real terminal (a private tmux server) against a CliProject's fake
// API server: start it with arguments, read the screen, send keys, wait for what should show.
import { BIN, type CliProject } from './cli.js';
import type { TmuxServer } from './tmux.js';

export interface Term {
  name: string;
  screen(): string;
  keys(...k: string[]): void;
  waitFor(predicate: (s: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  kill(): void;
}

export interface TermOptions {
  cols?: number;
  rows?: number;
  env?: Record<string, string>;
}

export function startTerm(server: TmuxServer, ctx: CliProject, name: string, args: string[], opts: TermOptions = {}): Term {
  const env = Object.entries({ ...ctx.env, TERM: 'xterm-256color', ...opts.env }).map(([k, v]) => `${k}=${v ?? ''}`);
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  // `sleep` keeps the pane (and its last screen) around after the app exits.
  server.run(
    'new-session', '-d', '-s', name, '-x', String(opts.cols ?? 100), '-y', String(opts.rows ?? 30), '-c', ctx.project,
    `env ${env.join(' ')} node ${BIN} ${quoted}; sleep 30`,
  );
  const screen = () => server.run('capture-pane', '-p', '-t', name);
  return {
    name,
    screen,
    keys: (...k) => void server.run('send-keys', '-t', name, ...k),
    async waitFor(predicate, what, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      let last = '';
      while (Date.now() < deadline) {
        last = screen();
        if (predicate(last)) return last;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`Timed out waiting for ${what}. Screen:\n${last}`);
    },
    kill() {
      try {
        server.run('kill-session', '-t', name);
      } catch {
        // already gone
      }
    },
  };
}
