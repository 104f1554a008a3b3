// Runs the built `opencode-ink` binary as a subprocess with a controlled environment.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeServer, type FakeServer } from './fake-anthropic.js';
import { REPO_ROOT } from './repo-root.js';
import { liveProcessesWithEnv } from './processes.js';

export const BIN = join(REPO_ROOT, 'bin', 'opencode-ink.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** stdin: /dev/null by default; text is written to a pipe that is then closed; 'pipe' leaves the pipe to the test. */
  stdin?: string | Buffer | 'pipe';
  /** An installed `opencode-ink` executable to start as a shell would (its `#!` line), instead of the repository's. */
  bin?: string;
}

export function startCli(args: string[], opts: CliOptions): { child: ChildProcess; done: Promise<CliResult> } {
  const [command, argv] = opts.bin ? [opts.bin, args] : [process.execPath, [BIN, ...args]];
  const child = spawn(command, argv, {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH, ...opts.env },
    stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (opts.stdin !== undefined && opts.stdin !== 'pipe') {
    // The child may exit (or stop reading) before taking it all.
    child.stdin!.on('error', () => {});
    child.stdin!.end(opts.stdin);
  }
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

export function runCli(args: string[], opts: CliOptions): Promise<CliResult> {
  return startCli(args, opts).done;
}

export interface CliProject {
  server: FakeServer;
  /** The temp folder holding the project, the config dir and the data dir. */
  dir: string;
  /** A git project folder to run the binary in. */
  project: string;
  /** HOME, config and data dirs inside `dir`, an API key, and the fake server's URL. */
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** A throwaway project and environment for the binary, talking to a fresh fake server. */
export async function startCliProject(): Promise<CliProject> {
  const server = await startFakeServer();
  const dir = mkdtempSync(join(tmpdir(), 'oci-cli-'));
  const project = join(dir, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  const env: NodeJS.ProcessEnv = {
    HOME: dir,
    OPENCODE_INK_CONFIG_DIR: join(dir, 'config'),
    OPENCODE_INK_DATA_DIR: join(dir, 'data'),
    ANTHROPIC_API_KEY: 'x',
    ANTHROPIC_BASE_URL: server.url,
  };
  return {
    server,
    dir,
    project,
    env,
    async close() {
      await server.close();
      // A program the test killed (a tmux session closed under it) may still be exiting, and
      // writing in its data dir meanwhile (ENOTEMPTY): wait for it and all it started first.
      if (existsSync('/proc/self/environ')) {
        const deadline = Date.now() + 10_000;
        while (liveProcessesWithEnv(`OPENCODE_INK_DATA_DIR=${env.OPENCODE_INK_DATA_DIR}`).length > 0 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}
