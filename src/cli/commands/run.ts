// `opencode-ink run`: one prompt to completion without the TUI. Nobody can answer, so
// questions get "user unavailable" and permission asks become denials unless `--yes`.
import { Engine, projectParts } from '../../core/engine.js';
import { ConfigError, RunError } from '../../core/errors.js';
import { exitNow } from '../../core/exit-now.js';
import type { CoreEvent } from '../../core/events.js';
import { hasCredentials, NO_CREDENTIALS_MESSAGE } from '../../core/provider/credentials.js';
import type { CliContext } from '../context.js';

export interface RunOptions {
  format: 'text' | 'json';
  yes: boolean;
  model?: string;
  agent?: string;
  session?: string;
  continue?: boolean;
}

export interface RunIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Resolves to the process exit code. */
export async function runCommand(ctx: CliContext, prompt: string, opts: RunOptions, io: RunIO): Promise<number> {
  if (!prompt.trim()) throw new ConfigError('run needs a prompt, e.g. opencode-ink run "explain this repository".');
  requireCredentials(ctx);
  const engine = new Engine({
    ...projectParts(ctx),
    interactive: false,
    autoApprove: opts.yes,
    ...(opts.model ? { model: opts.model } : {}),
  });
  if (opts.format === 'json') {
    engine.on((event: CoreEvent) => io.stdout.write(`${JSON.stringify(event)}\n`));
  }
  const sessionId = pickSession(ctx, engine, opts);

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
  process.on('SIGHUP', onSignal);
  try {
    const first = await engine.prompt(sessionId, prompt);
    // Background tasks may still be running; their results start further turns.
    await engine.settled(sessionId);
    const outcome = engine.lastOutcome(sessionId) ?? first;
    if (opts.format === 'text' && outcome.text) io.stdout.write(outcome.text.endsWith('\n') ? outcome.text : `${outcome.text}\n`);
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
        io.stderr.write(`Error: ${outcome.error ?? 'the run failed.'}\n`);
        return 1;
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
  }
}

function pickSession(ctx: CliContext, engine: Engine, opts: RunOptions): string {
  if (opts.session) {
    const row = ctx.store.getSession(opts.session);
    if (!row) throw new ConfigError(`No session with id "${opts.session}" (see opencode-ink sessions).`);
    return row.id;
  }
  if (opts.continue) {
    const recent = ctx.store.mostRecentRoot(ctx.cwd);
    if (recent) return recent.id;
  }
  return engine.createSession({ ...(opts.agent ? { agent: opts.agent } : {}) }).id;
}

function requireCredentials(ctx: CliContext): void {
  if (!hasCredentials(ctx.config, ctx.env)) throw new RunError(NO_CREDENTIALS_MESSAGE);
}
