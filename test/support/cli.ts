// Runs the built `opencode-ink` binary as a subprocess with a controlled environment.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './harness.js';

export const BIN = join(REPO_ROOT, 'bin', 'opencode-ink.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function startCli(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

export function runCli(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<CliResult> {
  return startCli(args, opts).done;
}
