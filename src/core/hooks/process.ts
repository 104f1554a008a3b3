// Runs one hook command. Contract: the command starts through the command runner (its own
// process group, tracked so the program's exit stops it) in `cwd` with `env`, gets `input` on
// stdin, and ends one of three ways — it exits, it is stopped at its timeout, or the caller's
// signal stops it — always with its whole process group ended. stdout and stderr are kept up
// to MAX_HOOK_OUTPUT_BYTES each; the rest is read and dropped, so a hook printing 10 MB
// neither stalls on a full pipe nor fills memory. Resolves, never rejects.
//
// Hooks are the user's own commands (their config, or a trusted project's settings), like
// Claude Code's: they run on the host, not in the sandbox that bounds the model's commands.
import type { Readable } from 'node:stream';
import { hostRunner, type CommandExit } from '../sandbox/index.js';

/** What is kept of each of a hook's output streams. */
export const MAX_HOOK_OUTPUT_BYTES = 64 * 1024;

/** How long output may keep draining after the hook's shell exits before leftovers are stopped. */
const DRAIN_MS = 200;

const HOST = hostRunner();

export interface HookProcessOptions {
  cwd: string;
  env: Readonly<Record<string, string>>;
  input: string;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface HookProcessResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The caller's signal stopped it. */
  cancelled: boolean;
  /** Set when the command could not be started. */
  startError?: string;
  /** Output beyond the cap was dropped. */
  truncated: boolean;
}

/** Keeps the first MAX_HOOK_OUTPUT_BYTES of a stream and drops the rest as it arrives. */
function collect(stream: Readable | undefined): { text(): string; truncated(): boolean; ended: Promise<void> } {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = false;
  const ended = new Promise<void>((resolve) => {
    if (!stream) return resolve();
    stream.on('data', (chunk: Buffer | string) => {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      const room = MAX_HOOK_OUTPUT_BYTES - kept;
      if (room <= 0) {
        dropped = true;
        return;
      }
      const take = buffer.length > room ? buffer.subarray(0, room) : buffer;
      if (take.length < buffer.length) dropped = true;
      chunks.push(take);
      kept += take.length;
    });
    stream.once('end', () => resolve());
    stream.once('close', () => resolve());
    stream.once('error', () => resolve());
  });
  return { text: () => Buffer.concat(chunks).toString('utf8'), truncated: () => dropped, ended };
}

export async function runHookProcess(command: string, options: HookProcessOptions): Promise<HookProcessResult> {
  const stopper = new AbortController();
  const onAbort = (): void => stopper.abort();
  options.signal.addEventListener('abort', onAbort, { once: true });
  if (options.signal.aborted) onAbort();
  const running = await HOST.run(command, { cwd: options.cwd, env: options.env, signal: stopper.signal, input: options.input, separateOutput: true });
  const stdout = collect(running.stdout);
  const stderr = collect(running.stderr);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stopper.abort();
  }, options.timeoutMs);
  let exit: CommandExit = { exitCode: null, signal: null };
  try {
    exit = await running.exited;
    clearTimeout(timer);
    // Something the hook left in the background may hold the pipes open: wait a little, then stop it.
    const drained = Promise.all([stdout.ended, stderr.ended]);
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, DRAIN_MS))]);
    if (running.alive()) stopper.abort();
    if (stopper.signal.aborted) await running.stop();
    running.stdout?.destroy();
    running.stderr?.destroy();
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
    running.release();
  }
  return {
    exitCode: timedOut ? null : exit.exitCode,
    stdout: stdout.text(),
    stderr: stderr.text(),
    timedOut,
    cancelled: options.signal.aborted && !timedOut,
    truncated: stdout.truncated() || stderr.truncated(),
    ...(exit.startError !== undefined ? { startError: exit.startError } : {}),
  };
}
