// `bash`: runs one shell command in the working directory. The command leads its own
// process group and carries a marker in its environment (process.ts), so abort, timeout and
// the program's exit can stop everything it started, even processes that left the group
// (setsid, double forks, nohup, disown). Nothing it spawned outlives the call, background
// jobs and servers included, since a leftover child would otherwise hold the output pipe
// open and leak past the session. stdin is closed: commands that wait for input fail fast
// instead of hanging.
// Where the command runs is the runner's business (sandbox/runner.ts): the host, or the
// session's sandbox (DESIGN §19), where a command that would ask only because of the built-in
// default runs unasked, and `dangerously_disable_sandbox` runs it on the host after a person
// said yes.
// With `run_in_background` the command is started the same way (same permission check, same
// runner, same markers) and handed to the session's background shells (shells/), and the call
// returns at once with its `shell_id`; `bash_output` and `kill_shell` take it from there.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { AbortedError } from '../errors.js';
import { bashPermissionRequest } from '../permission/bash-match.js';
import { hostRunner, type CommandExit, type CommandRunner, type CommandSandbox, type RemoteCommandRunner } from '../sandbox/index.js';
import { childEnv } from './child-env.js';
import { OUTPUT_HEAD_BYTES, OUTPUT_TAIL_BYTES, OutputCap } from './output-cap.js';
import { defineTool, ToolError, type PermissionRequest, type ToolContext, type ToolResult } from './types.js';

export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
export const MAX_BASH_TIMEOUT_MS = 600_000;
export const BASH_HEAD_BYTES = OUTPUT_HEAD_BYTES;
export const BASH_TAIL_BYTES = OUTPUT_TAIL_BYTES;
const PROGRESS_INTERVAL_MS = 250;
const PROGRESS_TAIL_CHARS = 2000;
/** How long output may keep draining after the shell exits before leftovers are stopped. */
const DRAIN_MS = 200;

const HOST = hostRunner();

const parameters = lazySchema(() =>
  z.object({
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
    dangerously_disable_sandbox: z
      .boolean()
      .optional()
      .describe(
        'Run the command outside the sandbox. Only after it failed with "blocked by the sandbox" and truly needs the network, a hidden path or a write outside the project; the user is always asked.',
      ),
    run_in_background: z
      .boolean()
      .optional()
      .describe('Start the command and return at once with a shell_id, leaving it running (a dev server, a watcher, a long build); read its output with bash_output and stop it with kill_shell.'),
  }),
);

/** The ask for a command, marked with where it will run. */
function sandboxedRequest(request: PermissionRequest, sandbox: CommandSandbox | undefined, escape: boolean): PermissionRequest {
  if (!sandbox) return request;
  if (sandbox.state === 'unavailable') return { ...request, outsideSandbox: `the ${sandbox.mode} sandbox is unavailable (${sandbox.reason})` };
  if (escape) {
    const why = 'the model asked to run it outside the sandbox (dangerously_disable_sandbox)';
    return { ...request, outsideSandbox: why, needsPerson: why };
  }
  return sandbox.autoAllow ? { ...request, sandboxAutoAllow: true } : request;
}

export const bashTool = defineTool({
  name: 'bash',
  description: `Run a shell command (bash) in the working directory and return its combined stdout and stderr.

- Each call starts a fresh shell in the working directory: cd, variables and other state do not carry over between calls. Chain dependent steps in one command with && and quote paths containing spaces.
- stdin is closed, so interactive commands (editors, prompts, pagers, git rebase -i) cannot be used; pass flags that make them non-interactive.
- Default timeout ${DEFAULT_BASH_TIMEOUT_MS / 1000} s, at most ${MAX_BASH_TIMEOUT_MS / 1000} s (timeout parameter, in ms). On timeout or cancel the command and every process it started are stopped.
- No process outlives the command: background jobs (&, nohup, disown, setsid, double forks) are stopped when it ends, times out or is cancelled, and when the program exits. A server started with \`npm run dev &\` is stopped too. To keep a server or watcher running while you work, start it with run_in_background: true instead: the call returns at once with a shell_id; bash_output reads what it printed since the last read and whether it still runs, kill_shell stops it. Background commands have no timeout; they are stopped when your session ends (for a sub-agent: when its task ends) and when the program exits. Do not add & to a background command.
- Output beyond ${(BASH_HEAD_BYTES + BASH_TAIL_BYTES) / 1024} KB keeps only its beginning and end; redirect verbose output to a file and search it if you need everything.
- A non-zero exit code is reported after the output.
- Prefer the dedicated tools over shell equivalents: read instead of cat/head/tail, grep instead of grep/rg, glob/list instead of find/ls, edit/write instead of sed/echo redirection.
- Independent commands can be issued as separate calls; dependent ones belong in one command joined with &&.
- The user may be asked to approve the command.
- When a sandbox is on, commands run inside it: the project is writable (workspace-write) or nothing is (read-only), a private /tmp is writable, credentials are hidden, and there is no network unless the user allowed it. A failure it caused says "blocked by the sandbox"; only then consider dangerously_disable_sandbox.`,
  parameters,
  readOnly: false,
  async execute(args, ctx) {
    const { command } = args;
    if (args.run_in_background && !ctx.shells) throw new ToolError('Background commands are not available here; run the command without run_in_background.');
    const timeout = Math.min(args.timeout ?? DEFAULT_BASH_TIMEOUT_MS, MAX_BASH_TIMEOUT_MS);
    // In a container (DESIGN §25) the sandbox does not apply and nothing runs on this machine,
    // whatever the model asks: the command asks as without a sandbox and runs in the container.
    const inContainer = ctx.runner !== undefined || ctx.runnerOnDemand !== undefined;
    const sandbox = inContainer ? undefined : ctx.sandbox;
    const escape = args.dangerously_disable_sandbox === true && sandbox !== undefined;
    await ctx.ask(sandboxedRequest(await bashPermissionRequest(command, ctx.cwd), sandbox, escape));
    ctx.signal.throwIfAborted();
    // The main session's container starts on its first approved command (runner.for "all").
    const remote = ctx.runner ?? (ctx.runnerOnDemand ? await startedContainer(ctx.runnerOnDemand) : undefined);
    ctx.signal.throwIfAborted();

    const inSandbox = sandbox?.state === 'on' && !escape ? sandbox : undefined;
    const runner = remote ?? inSandbox?.runner ?? HOST;
    // The user's environment without the credentials this program uses (child-env.ts).
    // The settings' variables come first: a command must never wait on a pager or a git password prompt.
    const env = childEnv({ ...ctx.env, PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' });
    if (args.run_in_background) return startInBackground(runner, command, env, args.description, inSandbox?.mode, ctx, remote?.where);
    // The runner stops the command on abort; the timeout has its own controller.
    const stopper = new AbortController();
    const onAbort = (): void => stopper.abort();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    const running = await runner.run(command, { cwd: ctx.cwd, env, signal: stopper.signal });

    const cap = new OutputCap();
    let progressTimer: NodeJS.Timeout | undefined;
    const allStream = running.output;
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
    const timer = setTimeout(() => {
      timedOut = true;
      stopper.abort();
    }, timeout);

    let exit: CommandExit = { exitCode: null, signal: null };
    let leftovers = false;
    try {
      exit = await running.exited;
      clearTimeout(timer);
      // Background jobs still holding the pipe would keep the stream open forever.
      await Promise.race([streamEnded, new Promise((resolve) => setTimeout(resolve, DRAIN_MS))]);
      if (!stopper.signal.aborted && running.alive()) {
        leftovers = true;
        stopper.abort();
      }
      if (stopper.signal.aborted) await running.stop();
      allStream?.destroy();
    } finally {
      clearTimeout(timer);
      if (progressTimer) clearTimeout(progressTimer);
      ctx.signal.removeEventListener('abort', onAbort);
      running.release();
    }
    if (ctx.signal.aborted) throw new AbortedError('Command cancelled');

    const failedToStart = exit.startError !== undefined;
    let output = cap.text().replace(/\s+$/, '');
    if (failedToStart) output = `Failed to start the command${remote ? ` in ${remote.description}` : ''}: ${exit.startError}`;
    if (!output) output = '(no output)';
    const notes: string[] = [];
    if (timedOut) notes.push(`[Command timed out after ${timeout} ms; it was stopped along with every process it started.]`);
    else if (exit.exitCode !== null && exit.exitCode !== 0) notes.push(`[Exit code: ${exit.exitCode}]`);
    else if (exit.exitCode === null && exit.signal) notes.push(`[Terminated by signal ${exit.signal}]`);
    if (leftovers) notes.push('[Background processes the command left running were stopped.]');
    const blocked = inSandbox && !timedOut && exit.exitCode !== 0 ? inSandbox.blockNote(output) : undefined;
    if (blocked) notes.push(`[${blocked}]`);
    const guarded = inSandbox?.guardNote();
    if (guarded) notes.push(`[${guarded}]`);
    // A shell's "not found" in a container usually means the image lacks the program.
    if (remote && exit.exitCode === 127) notes.push(`[Ran in ${remote.description}; exit code 127 usually means the image lacks that program.]`);
    const unsynced = remote?.takeNotes();
    if (unsynced) notes.push(`[${unsynced}]`);
    if (notes.length) output += `\n\n${notes.join('\n')}`;
    return {
      output,
      isError: timedOut || failedToStart,
      metadata: {
        exitCode: exit.exitCode,
        timedOut,
        description: args.description,
        outputBytes: cap.total,
        ...(inSandbox ? { sandbox: inSandbox.mode } : {}),
        ...(remote ? { runner: remote.where } : {}),
      },
    };
  },
});

/**
 * Starts a command that keeps running after the call returns. It is stopped only by
 * `kill_shell`, its session's end or the program's exit, never by the turn's cancel: the
 * signal handed to the runner is the shell's own, which nothing aborts.
 */
async function startInBackground(
  runner: CommandRunner,
  command: string,
  env: Readonly<Record<string, string>>,
  description: string | undefined,
  sandboxMode: string | undefined,
  ctx: ToolContext,
  where: { host: string; container: string } | undefined,
): Promise<ToolResult> {
  const shells = ctx.shells!;
  shells.checkRoom();
  const running = await runner.run(command, { cwd: ctx.cwd, env, signal: new AbortController().signal });
  if (running.pid === undefined) {
    const exit = await running.exited;
    running.release();
    return { output: `Failed to start the command: ${exit.startError ?? 'unknown error'}`, isError: true };
  }
  const shell = shells.start({ command, description, running });
  return {
    output: `Started in the background as ${shell.shellId} (${where ? `in container ${where.container} on ${where.host}` : `pid ${shell.pid}`}). Read its output with bash_output (shell_id "${shell.shellId}"); stop it with kill_shell.`,
    metadata: { shell_id: shell.shellId, pid: shell.pid, background: true, description, ...(sandboxMode ? { sandbox: sandboxMode } : {}), ...(where ? { runner: where } : {}) },
  };
}

async function startedContainer(start: () => Promise<RemoteCommandRunner>): Promise<RemoteCommandRunner> {
  try {
    return await start();
  } catch (err) {
    throw new ToolError(`The command did not run: ${err instanceof Error ? err.message : String(err)}`);
  }
}
