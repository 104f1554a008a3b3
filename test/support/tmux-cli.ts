// The built binary in a real terminal (a private tmux server): launch it with arguments and
// an environment, read the screen (or the scrollback, or the styled screen), send keys, wait
// for what should show. `startTerm` runs it in a CliProject against that project's fake API
// server; `launchTerm` takes the environment whole (the offline demo needs no project).
import { BIN, type CliProject } from './cli.js';
import type { TmuxServer } from './tmux.js';
import { waitForText } from './wait.js';

export interface Term {
  name: string;
  screen(): string;
  /** Everything the terminal still holds: scrollback and screen. */
  history(): string;
  /** The screen with colours and attributes as escape codes. */
  styled(): string;
  keys(...k: string[]): void;
  waitFor(predicate: (s: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  kill(): void;
}

export interface TermOptions {
  cols?: number;
  rows?: number;
  env?: Record<string, string>;
}

export interface TermLaunch {
  args: string[];
  /** The program's whole environment (TERM is xterm-256color unless this sets it). */
  env: NodeJS.ProcessEnv;
  /** Where it starts; the tmux server's folder if unset. */
  cwd?: string;
  cols?: number;
  rows?: number;
}

export function launchTerm(server: TmuxServer, name: string, launch: TermLaunch): Term {
  const env = Object.entries({ TERM: 'xterm-256color', ...launch.env }).map(([k, v]) => `${k}=${v ?? ''}`);
  const quoted = launch.args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const where = launch.cwd === undefined ? [] : ['-c', launch.cwd];
  // `sleep` keeps the pane (and its last screen) around after the app exits.
  server.run(
    'new-session', '-d', '-s', name, '-x', String(launch.cols ?? 100), '-y', String(launch.rows ?? 30), ...where,
    `env ${env.join(' ')} node ${BIN} ${quoted}; sleep 30`,
  );
  const screen = () => server.run('capture-pane', '-p', '-t', name);
  return {
    name,
    screen,
    history: () => server.run('capture-pane', '-p', '-S', '-', '-t', name),
    styled: () => server.run('capture-pane', '-p', '-e', '-t', name),
    keys: (...k) => void server.run('send-keys', '-t', name, ...k),
    waitFor: (predicate, what, timeoutMs = 20_000) => waitForText(screen, predicate, what, { timeoutMs, intervalMs: 50 }),
    kill() {
      try {
        server.run('kill-session', '-t', name);
      } catch {
        // already gone
      }
    },
  };
}

export function startTerm(server: TmuxServer, ctx: CliProject, name: string, args: string[], opts: TermOptions = {}): Term {
  return launchTerm(server, name, {
    args,
    env: { ...ctx.env, ...opts.env },
    cwd: ctx.project,
    ...(opts.cols === undefined ? {} : { cols: opts.cols }),
    ...(opts.rows === undefined ? {} : { rows: opts.rows }),
  });
}
