// `opencode-ink run`: one prompt to completion without the TUI. Nobody can answer, so
// questions get "user unavailable" and permission asks become denials unless `--yes`.
import { setFlagsFromString } from 'node:v8';
import type { TurnOutcome } from '../../core/agent/loop.js';
import { Engine, projectParts } from '../../core/engine.js';
import { ConfigError, RunError } from '../../core/errors.js';
import { exitNow } from '../../core/exit-now.js';
import { EVENT_PROTOCOL_VERSION, EVENTS_SCHEMA_ID, type CoreEvent, type ProtocolLine } from '../../core/events.js';
import { credentialProblem } from '../../core/provider/credentials.js';
import { terminalSafe } from '../../core/text/terminal-safe.js';
import type { OpenedProject } from '../../core/project-context.js';
import type { PermissionMode } from '../../core/permission/modes.js';
import { pickSession } from '../../core/pick-session.js';
import { childProgressPrinter } from '../child-progress.js';

export interface RunOptions {
  format: 'text' | 'json';
  yes: boolean;
  /** `--permission-mode` (or `--yes`: bypassPermissions); unset, the project's default mode. */
  permissionMode?: PermissionMode;
  /** No line per sub-agent start and end on stderr (text output). */
  quiet?: boolean;
  model?: string;
  agent?: string;
  session?: string;
  continue?: boolean;
}

export interface RunIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Aborted when stdout's reader went away: the run stops, and says nothing more. */
  closed?: AbortSignal;
}

/** Resolves to the process exit code. */
export async function runCommand(ctx: OpenedProject, prompt: string, opts: RunOptions, io: RunIO): Promise<number> {
  if (!prompt.trim()) throw new ConfigError('run needs a prompt, e.g. opencode-ink run "explain this repository".');
  requireCredentials(ctx, opts.model);
  // The model SDK reads `globalThis.ReadableStream` at every request; its first read loads
  // Node's web streams, which under the flags changed below would compile from source (~4 ms)
  // instead of from Node's code cache (~1 ms). Every run makes a request: read it first.
  void globalThis.ReadableStream;
  const restoreWasm = baselineWasmOnly();
  const restoreHeap = frugalHeap();
  const restoreFlags = () => {
    restoreHeap();
    restoreWasm();
  };
  try {
    return await runToCompletion(ctx, prompt, opts, io);
  } finally {
    restoreFlags();
  }
}

async function runToCompletion(ctx: OpenedProject, prompt: string, opts: RunOptions, io: RunIO): Promise<number> {
  const engine = new Engine({
    ...projectParts(ctx),
    interactive: false,
    // What a mode leaves to ask is refused where nobody answers; `--yes` (bypassPermissions) still
    // refuses control files and leaving the sandbox, saying that `--yes` does not approve them.
    autoApprove: opts.yes || opts.permissionMode === 'bypassPermissions',
    ...(opts.permissionMode ? { permissionMode: opts.permissionMode } : {}),
    ...(opts.model ? { model: opts.model } : {}),
    onWarning: (line) => io.stderr.write(`${terminalSafe(line)}\n`),
  });
  if (opts.format === 'json') {
    const print = jsonPrinter(io.stdout);
    engine.on((event) => {
      if (!io.closed?.aborted) print(event);
    });
  }
  reportRefusedGuards(engine, io.stderr);
  if (opts.format === 'text') reportHookNotices(engine, io.stderr);
  // JSON carries the `request.retrying` event itself; text runs say it on stderr.
  if (opts.format === 'text') reportRetries(engine, io.stderr);
  // Sub-agents as they start and end, so a long run is not silent until the answer.
  if (opts.format === 'text' && !opts.quiet) engine.on(childProgressPrinter(io.stderr));
  const sessionId = pickSession(engine, opts);

  let interrupts = 0;
  // The first signal cancels (running commands get a grace period); a second one ends the
  // program at once, even with a command or a file system call still stuck.
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts++;
    if (interrupts > 1) return exitNow(signal === 'SIGTERM' || signal === 'SIGHUP' ? signal : 'SIGINT');
    engine.cancelAll();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const onClosed = () => engine.cancelAll();
  io.closed?.addEventListener('abort', onClosed, { once: true });
  process.on('SIGHUP', onSignal);
  try {
    // The reader went away before the prompt was sent: nothing to spend tokens on.
    if (io.closed?.aborted) return 0;
    const first = await engine.prompt(sessionId, prompt);
    // Background tasks may still be running; their results start further turns.
    await engine.settled(sessionId);
    const outcome = engine.lastOutcome(sessionId) ?? first;
    // Nobody reads the answer: the caller exits with the closed-pipe status, quietly.
    return io.closed?.aborted ? 0 : report(outcome, opts, io);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    io.closed?.removeEventListener('abort', onClosed);
    process.off('SIGHUP', onSignal);
    await engine.close();
  }
}

/**
 * Node's `fetch` (undici) parses HTTP with llhttp, a WebAssembly module. V8 also compiles it
 * with its optimising tier on background threads, which costs a one-off ~30 MB of RSS and CPU
 * that a run on a shared machine feels; the baseline compiler alone parses a stream just as
 * well. The model requests no longer use it (src/core/provider/node-fetch.ts); an MCP server
 * over HTTP still does, and any other WebAssembly a run may compile is as well served. Set
 * before anything compiles; the TUI keeps the default for Yoga's layout code.
 *
 * Any changed V8 flag makes V8 reject code caches made under other flags: Node's own for
 * undici, if a run loads it (~18 ms more then, against the ~30 MB), and ours (src/boot),
 * written after the run, so the flag is reset then. Returns the reset.
 */
function baselineWasmOnly(): () => void {
  setFlagsFromString('--liftoff-only');
  // The flag also turns off these two by implication, and V8 keeps them off unless told.
  return () => setFlagsFromString('--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering');
}

/**
 * A run that fans out to many sub-agents allocates fast: each child's requests, streamed
 * replies and tool output live for its few turns, survive the young generation's collections
 * (the children run side by side) and die in the old generation, which V8 lets grow well
 * before collecting it. Finished children keep almost nothing (about 15 KB each, measured by
 * heap snapshots after 10 and after 90 of them), yet peak RSS grew by ~45 MB from 10 to 100
 * children (bench/children-memory.bench.ts). V8's size-optimised heap sizing, which it reads
 * at each collection, collects that garbage sooner: +6 MB instead. Reset with the wasm flag,
 * for the same reason (the code cache written after the run is checked against the flags).
 */
function frugalHeap(): () => void {
  setFlagsFromString('--optimize-for-size');
  // It also sets the semi-space size (to 1 MB; 0 is V8's default, "computed"), and V8 leaves
  // implied flags as they are when the flag is turned off again.
  return () => setFlagsFromString('--no-optimize-for-size --max-semi-space-size=0');
}

function report(outcome: TurnOutcome, opts: RunOptions, io: RunIO): number {
  // Text goes to a terminal: no escape sequence from the model reaches it. JSON escapes its own.
  const text = terminalSafe(outcome.text);
  if (opts.format === 'text' && text) io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  switch (outcome.status) {
    case 'completed':
      return 0;
    case 'max_turns':
      io.stderr.write(`Stopped after ${outcome.steps} model requests: the agent's turn limit was reached.\n`);
      return 0;
    case 'cancelled':
      io.stderr.write('Cancelled.\n');
      return 130;
    case 'failed':
      io.stderr.write(`Error: ${terminalSafe(outcome.error ?? 'the run failed.')}\n`);
      return 1;
  }
}

/**
 * One JSON object per line (docs/events.md): a protocol line naming the version and the
 * schema, then every core event as emitted. The protocol line waits for the first event, so
 * a run refused before it starts prints nothing to stdout.
 */
function jsonPrinter(stdout: NodeJS.WritableStream): (event: CoreEvent) => void {
  let announced = false;
  return (event) => {
    if (!announced) {
      announced = true;
      const protocol: ProtocolLine = { type: 'protocol', version: EVENT_PROTOCOL_VERSION, schema: EVENTS_SCHEMA_ID };
      stdout.write(`${JSON.stringify(protocol)}\n`);
    }
    stdout.write(`${JSON.stringify(event)}\n`);
  };
}

/**
 * A request asked whatever the rules say (a write to `.git/config`, `.opencoderc.json`…) that
 * this run refused gets one line on stderr, so a CI log shows what the agent tried even when
 * its final text does not say.
 */
function reportRefusedGuards(engine: Engine, stderr: NodeJS.WritableStream): void {
  const guarded = new Map<string, string>();
  engine.on((event) => {
    if (event.type === 'permission.asked' && event.reason !== undefined) guarded.set(event.request_id, `${event.tool} (${event.reason})`);
    if (event.type !== 'permission.replied') return;
    const what = guarded.get(event.request_id);
    guarded.delete(event.request_id);
    if (what !== undefined && event.reply === 'reject') stderr.write(`Refused ${terminalSafe(what)}.\n`);
  });
}

/** What hooks blocked, stopped or failed at: one line each on stderr (JSON carries them as `hook.notice`). */
function reportHookNotices(engine: Engine, stderr: NodeJS.WritableStream): void {
  engine.on((event) => {
    if (event.type === 'hook.notice') stderr.write(`${event.kind === 'warning' ? 'Warning: ' : ''}${terminalSafe(event.message)}\n`);
    // `/init` put the user's AGENTS.md text back (JSON carries it as `file.kept`).
    if (event.type === 'file.kept') stderr.write(`${terminalSafe(event.message)}\n`);
  });
}

/**
 * A model request that failed and is tried again gets one line on stderr, so a run against an
 * overloaded or unreachable API does not sit silent until its final error.
 */
function reportRetries(engine: Engine, stderr: NodeJS.WritableStream): void {
  engine.on((event) => {
    if (event.type !== 'request.retrying') return;
    const who = event.path.length > 1 ? `${event.agent}: ` : '';
    const wait = Math.max(1, Math.round(event.delay_ms / 1000));
    stderr.write(terminalSafe(`${who}retrying (attempt ${event.attempt} of ${event.max_attempts}): ${event.reason}, next in ${wait} s — ${event.message}`) + '\n');
  });
}

function requireCredentials(ctx: OpenedProject, model: string | undefined): void {
  const problem = credentialProblem(ctx.config, ctx.env, model);
  if (problem) throw new RunError(problem);
}
