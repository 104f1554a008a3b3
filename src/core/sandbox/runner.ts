// The command runner: the one interface the bash tool (and anything else that runs a shell
// command for the model) goes through, so where a command runs is a backend's business.
//
// Contract of `run(command, { cwd, env, signal })`:
// - starts `command` in a shell in `cwd` with exactly `env` (nothing inherited), stdin closed
//   (or fed `input` first, then closed);
// - `output` carries stdout and stderr interleaved as they are written (or `stdout` and
//   `stderr` apart, with `separateOutput`);
// - `exited` resolves (never rejects) when the shell ends or could not start;
// - `stop()` ends the command and everything it started, gracefully then forcibly, and
//   `alive()` tells whether any of it still runs; aborting `signal` calls `stop()`.
//
// Backends today: the host (the command's own process group plus an environment marker,
// process.ts, and a watchdog that kills both if this program dies without doing it,
// orphan-guard.ts) and the host wrapped by a sandbox program (bubblewrap on Linux, sandbox-exec on
// macOS), which only changes the program line: `bwrap <policy> -- /bin/bash -c <command>`.
//
// A container backend (Docker/Podman, later Kubernetes jobs, for fleets of sub-agents) would
// implement the same interface: `run` starts `docker exec`/a job with the project mounted at
// `cwd`, `output` streams its logs, `stop` kills the container's process tree, `alive` asks
// the runtime. Nothing above the runner needs to change for it.
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { guardCommand } from '../tools/orphan-guard.js';
import { commandAlive, killCommand, markerEnv, newMarker, trackCommand, type CommandProcesses } from '../tools/process.js';

export interface RunOptions {
  cwd: string;
  /** The whole environment of the command (nothing else is inherited). */
  env: Readonly<Record<string, string>>;
  /** Aborting stops the command and everything it started. */
  signal: AbortSignal;
  /** Written to the command's stdin, which is then closed (a hook's JSON); stdin is closed at once without it. */
  input?: string;
  /** Keep stdout and stderr apart (`stdout`/`stderr`) instead of interleaving them in `output`. */
  separateOutput?: boolean;
}

export interface CommandExit {
  exitCode: number | null;
  signal: string | null;
  /** Set when the command could not be started at all. */
  startError?: string;
}

export interface RunningCommand {
  /** The process started (the shell, or the sandbox program in front of it); undefined when it did not start. */
  readonly pid: number | undefined;
  /** stdout and stderr interleaved; undefined when the command did not start or `separateOutput` was asked. */
  readonly output: Readable | undefined;
  /** With `separateOutput`: each stream on its own; undefined otherwise. */
  readonly stdout?: Readable | undefined;
  readonly stderr?: Readable | undefined;
  readonly exited: Promise<CommandExit>;
  alive(): boolean;
  /** Ends the command and every process it started; safe to call more than once. */
  stop(): Promise<void>;
  /** The caller is done with the command (it ended and was stopped): it is no longer killed at exit. */
  release(): void;
}

export interface CommandRunner {
  /** Where commands run, for the user: `the host`, `a workspace-write sandbox (bubblewrap)`. */
  readonly description: string;
  /** Resolves once the command is started (or failed to start: see `exited`). */
  run(command: string, options: RunOptions): Promise<RunningCommand>;
}

/** A runner on another machine or in a container (DESIGN §25): where it is, and what its sync could not do. */
export interface RemoteCommandRunner extends CommandRunner {
  /** `{ host: "unix:///run/podman/podman.sock", container: "opencode-ink-…" }` */
  readonly where: { host: string; container: string };
  /** What the last syncs could not copy back, in one sentence; undefined when all went well. */
  takeNotes(): string | undefined;
}

/** The shell commands run in. */
export const SHELL = existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';

/** Turns the shell's program line into the one actually started (a sandbox program in front). */
export type ProgramWrapper = (program: string, args: readonly string[]) => { program: string; args: string[] };

/** Runs commands on this machine, as the user; `wrap` puts a sandbox program in front. */
export function hostRunner(description = 'the host', wrap?: ProgramWrapper): CommandRunner {
  return {
    description,
    run: (command, options) => startCommand(command, options, wrap),
  };
}

async function startCommand(command: string, { cwd, env, signal, input, separateOutput }: RunOptions, wrap: ProgramWrapper | undefined): Promise<RunningCommand> {
  // execa is loaded on first use: most starts never run a command.
  const { execa } = await import('execa');
  const marker = newMarker();
  // Registered before the spawn: were this process killed right after it, the command still dies.
  const guard = guardCommand(marker);
  const line = wrap ? wrap(SHELL, ['-c', command]) : { program: SHELL, args: ['-c', command] };
  const subprocess = execa(line.program, line.args, {
    cwd,
    // Its own process group, so one signal reaches everything it starts (process.ts).
    detached: true,
    stdin: input === undefined ? 'ignore' : 'pipe',
    all: !separateOutput,
    buffer: false,
    reject: false,
    stripFinalNewline: false,
    cleanup: false,
    extendEnv: false,
    env: { ...env, ...markerEnv(marker) },
  });
  const pid = subprocess.pid;
  if (input !== undefined && subprocess.stdin) {
    // A command that never reads its stdin closes the pipe: that is its business, not an error.
    subprocess.stdin.on('error', () => {});
    subprocess.stdin.end(input);
  }
  const processes: CommandProcesses | undefined = pid === undefined ? undefined : { pgid: pid, marker };
  const untrack = processes ? trackCommand(processes) : undefined;
  if (pid === undefined) guard.release();
  else guard.started(pid);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    if (!processes) return Promise.resolve();
    stopping ??= killCommand(processes);
    return stopping;
  };
  const onAbort = (): void => void stop();
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();

  const exited = new Promise<CommandExit>((resolve) => {
    subprocess.once('exit', (code, sig) => resolve({ exitCode: code, signal: sig }));
    subprocess.then(
      (result) => {
        if (pid === undefined) resolve({ exitCode: null, signal: null, startError: result.shortMessage ?? result.message ?? 'unknown error' });
        else resolve({ exitCode: result.exitCode ?? null, signal: result.signal ?? null });
      },
      (err: unknown) => resolve({ exitCode: null, signal: null, startError: err instanceof Error ? err.message : String(err) }),
    );
  });
  void exited.then(() => signal.removeEventListener('abort', onAbort));

  return {
    pid,
    output: separateOutput ? undefined : (subprocess.all ?? undefined),
    ...(separateOutput ? { stdout: subprocess.stdout ?? undefined, stderr: subprocess.stderr ?? undefined } : {}),
    exited,
    alive: () => (processes ? commandAlive(processes) : false),
    stop,
    release: () => {
      untrack?.();
      guard.release();
    },
  };
}
