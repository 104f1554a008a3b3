// `bash`: runs one shell command in the working directory. The command leads its own
// process group and carries a marker in its environment (process.ts), so abort, timeout and
// the program's exit can stop everything it started, even processes that left the group
// (setsid, double forks, nohup, disown). Nothing it spawned outlives the call, background
// jobs and servers included, since a leftover child would otherwise hold the output pipe
// open and leak past the session. stdin is closed: commands that wait for input fail fast
// instead of hanging.
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { AbortedError } from '../errors.js';
import { bashPermissionRequest } from '../permission/bash-match.js';
import { childEnv } from './child-env.js';
import { commandAlive, killCommand, markerEnv, newMarker, trackCommand, type CommandProcesses } from './process.js';
import { defineTool } from './types.js';

export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
export const MAX_BASH_TIMEOUT_MS = 600_000;
export const BASH_HEAD_BYTES = 15 * 1024;
export const BASH_TAIL_BYTES = 15 * 1024;
const PROGRESS_INTERVAL_MS = 250;
const PROGRESS_TAIL_CHARS = 2000;
/** How long output may keep draining after the shell exits before leftovers are stopped. */
const DRAIN_MS = 200;

/** Keeps the beginning and the end of the output; the middle of a long log rarely matters. */
class OutputCap {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  total = 0;

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headBytes < BASH_HEAD_BYTES) {
      const take = chunk.subarray(0, BASH_HEAD_BYTES - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (!chunk.length) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes > BASH_TAIL_BYTES) {
      const first = this.tail[0]!;
      const excess = this.tailBytes - BASH_TAIL_BYTES;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
      }
    }
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    const omitted = this.total - this.headBytes - this.tailBytes;
    return omitted > 0 ? `${head}\n\n[... ${omitted} bytes omitted ...]\n\n${tail}` : head + tail;
  }

  lastChars(n: number): string {
    const text = Buffer.concat(this.tail.length ? this.tail : this.head).toString('utf8');
    return text.slice(-n);
  }
}

const SHELL = process.platform === 'win32' ? undefined : existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';

const parameters = z.object({
  command: z.string().min(1).describe('The shell command to run.'),
  timeout: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Timeout in milliseconds (default ${DEFAULT_BASH_TIMEOUT_MS}, at most ${MAX_BASH_TIMEOUT_MS}).`),
  description: z
    .string()
    .optional()
    .describe('A short (5-10 word) description of what the command does, shown to the user, e.g. "Run the unit tests".'),
});

export const bashTool = defineTool({
  name: 'bash',
  description: `Run a shell command (bash) in the working directory and return its combined stdout and stderr.

- Each call starts a fresh shell in the working directory: cd, variables and other state do not carry over between calls. Chain dependent steps in one command with && and quote paths containing spaces.
- stdin is closed, so interactive commands (editors, prompts, pagers, git rebase -i) cannot be used; pass flags that make them non-interactive.
- Default timeout ${DEFAULT_BASH_TIMEOUT_MS / 1000} s, at most ${MAX_BASH_TIMEOUT_MS / 1000} s (timeout parameter, in ms). On timeout or cancel the command and every process it started are stopped.
- No process outlives the command: background jobs (&, nohup, disown, setsid, double forks) are stopped when it ends, times out or is cancelled, and when the program exits. A server started with \`npm run dev &\` is stopped too, so start it and query it within the same command (e.g. \`npm run dev & sleep 3; curl -s localhost:3000\`); servers and watchers cannot be left running.
- Output beyond ${(BASH_HEAD_BYTES + BASH_TAIL_BYTES) / 1024} KB keeps only its beginning and end; redirect verbose output to a file and search it if you need everything.
- A non-zero exit code is reported after the output.
- Prefer the dedicated tools over shell equivalents: read instead of cat/head/tail, grep instead of grep/rg, glob/list instead of find/ls, edit/write instead of sed/echo redirection.
- Independent commands can be issued as separate calls; dependent ones belong in one command joined with &&.
- The user may be asked to approve the command.`,
  parameters,
  readOnly: false,
  async execute(args, ctx) {
    const { command } = args;
    const timeout = Math.min(args.timeout ?? DEFAULT_BASH_TIMEOUT_MS, MAX_BASH_TIMEOUT_MS);
    await ctx.ask(await bashPermissionRequest(command, ctx.cwd));
    ctx.signal.throwIfAborted();

    const { execa } = await import('execa');
    const marker = newMarker();
    const subprocess = execa(SHELL ?? command, SHELL ? ['-c', command] : [], {
      shell: SHELL ? false : true,
      cwd: ctx.cwd,
      detached: true,
      stdin: 'ignore',
      all: true,
      buffer: false,
      reject: false,
      stripFinalNewline: false,
      cleanup: false,
      // The user's environment without the credentials this program uses (child-env.ts).
      extendEnv: false,
      env: childEnv({ PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', ...markerEnv(marker) }),
    });
    const settled = subprocess.then(
      (r) => r,
      (err: unknown) => err,
    );
    const pid = subprocess.pid;
    const processes: CommandProcesses | undefined = pid === undefined ? undefined : { pgid: pid, marker };
    const untrack = processes ? trackCommand(processes) : undefined;

    const cap = new OutputCap();
    let progressTimer: NodeJS.Timeout | undefined;
    const allStream = subprocess.all;
    const streamEnded = new Promise<void>((resolve) => {
      if (!allStream) return resolve();
      allStream.on('data', (chunk: Buffer | string) => {
        cap.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
        progressTimer ??= setTimeout(() => {
          progressTimer = undefined;
          ctx.progress({ output: cap.lastChars(PROGRESS_TAIL_CHARS) });
        }, PROGRESS_INTERVAL_MS);
      });
      allStream.once('end', () => resolve());
      allStream.once('close', () => resolve());
      allStream.once('error', () => resolve());
    });

    let timedOut = false;
    let killing: Promise<void> | undefined;
    const stop = (): void => {
      if (processes) killing ??= killCommand(processes);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeout);
    const onAbort = (): void => stop();
    ctx.signal.addEventListener('abort', onAbort, { once: true });

    let exitCode: number | null = null;
    let exitSignal: string | null = null;
    let leftovers = false;
    try {
      const exited = new Promise<void>((resolve) => {
        subprocess.once('exit', (code, signal) => {
          exitCode = code;
          exitSignal = signal;
          resolve();
        });
      });
      const result = await Promise.race([exited.then(() => undefined), settled]);
      if (result && typeof result === 'object' && 'exitCode' in result) {
        exitCode = (result.exitCode as number | undefined) ?? null;
        exitSignal = (result as { signal?: string }).signal ?? null;
      }
      clearTimeout(timer);
      // Background jobs still holding the pipe would keep the stream open forever.
      await Promise.race([streamEnded, new Promise((resolve) => setTimeout(resolve, DRAIN_MS))]);
      if (processes && !killing && commandAlive(processes)) {
        leftovers = true;
        stop();
      }
      await killing;
      allStream?.destroy();
      await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, 1000))]);
    } finally {
      clearTimeout(timer);
      if (progressTimer) clearTimeout(progressTimer);
      ctx.signal.removeEventListener('abort', onAbort);
      untrack?.();
    }
    if (ctx.signal.aborted) throw new AbortedError('Command cancelled');

    const failedToStart = pid === undefined;
    let output = cap.text().replace(/\s+$/, '');
    if (failedToStart) {
      const err = (await settled) as { shortMessage?: string; message?: string };
      output = `Failed to start the command: ${err.shortMessage ?? err.message ?? 'unknown error'}`;
    }
    if (!output) output = '(no output)';
    const notes: string[] = [];
    if (timedOut) notes.push(`[Command timed out after ${timeout} ms; it was stopped along with every process it started.]`);
    else if (exitCode !== null && exitCode !== 0) notes.push(`[Exit code: ${exitCode}]`);
    else if (exitCode === null && exitSignal) notes.push(`[Terminated by signal ${exitSignal}]`);
    if (leftovers) notes.push('[Background processes the command left running were stopped.]');
    if (notes.length) output += `\n\n${notes.join('\n')}`;
    return {
      output,
      isError: timedOut || failedToStart,
      metadata: { exitCode, timedOut, description: args.description, outputBytes: cap.total },
    };
  },
});
