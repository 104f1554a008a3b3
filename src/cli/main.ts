// Command-line entry: parses arguments with commander and maps every failure to one clear
// line on stderr and an exit code (2 usage/config, 1 failed run); stacks only with --debug.
import { join } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { UserFacingError, errorMessage } from '../core/errors.js';
import { agentsCommand } from './commands/agents.js';
import { modelsCommand } from './commands/models.js';
import { runCommand } from './commands/run.js';
import { sessionShow, sessionsList } from './commands/sessions.js';
import { registerTrustCommand, TRUST_ONCE_OPTION } from './commands/trust.js';
import { loadContext, type CliContext } from './context.js';
import { packageRoot, packageVersion } from './package-root.js';

// Start-up milestone (see traceFirstWrite in ui/launch.tsx): this bundle and its imports are evaluated.
performance.mark('cli:loaded');

/** Calls from the loader (src/boot) into the start-up. */
export interface StartupHooks {
  /** The interactive UI has drawn its first frame. */
  onFirstFrame?: () => void;
}

interface SharedOptions {
  model?: string;
  agent?: string;
  session?: string;
  continue?: boolean;
  debug?: boolean;
}

export async function main(argv: string[] = process.argv.slice(2), hooks: StartupHooks = {}): Promise<number> {
  performance.mark('cli:main');
  const io = { stdout: process.stdout, stderr: process.stderr };
  const debug = argv.includes('--debug');
  let exitCode = 0;
  let ctx: CliContext | undefined;
  const context = (trustOnce = false, ui = false): CliContext => {
    ctx ??= loadContext({ cwd: process.cwd(), env: process.env, trustOnce });
    for (const w of ctx.warnings) io.stderr.write(`${w}\n`);
    // The UI names what an untrusted project had ignored in its trust dialog instead.
    if (ctx.trust.notice && !ui) io.stderr.write(`${ctx.trust.notice}\n`);
    return ctx;
  };

  const program = new Command('opencode-ink')
    .description('A terminal coding assistant with parallel sub-agents.')
    .version(packageVersion(), '-v, --version')
    .option('--debug', 'print stack traces for errors')
    .exitOverride()
    // The UI and `run` share option names (-c, -m, ...): each command owns what follows it.
    .enablePositionalOptions()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError('(run opencode-ink --help for usage)');

  const shared = (cmd: Command) =>
    cmd
      .option('-m, --model <provider/model>', 'model to use, e.g. anthropic/claude-sonnet-4-6')
      .option('--agent <name>', 'primary agent (default: build)')
      .option('-s, --session <id>', 'continue that session')
      .option('-c, --continue', 'continue the most recent session in this directory');

  shared(program.argument('[prompt...]', 'first prompt for the interactive UI'))
    .option('--demo', 'run the offline scripted demo (no API key needed)')
    .action(async (words: string[], opts: SharedOptions & { demo?: boolean }) => {
      // Loaded on demand: `run` and the listing commands never load Ink or React.
      const { startTui } = await importUi();
      performance.mark('ui:loaded');
      exitCode = await startTui(() => context(false, true), {
        ...opts,
        ...(words.length ? { prompt: words.join(' ') } : {}),
        builtinAgentsDir: join(packageRoot(), 'agents'),
        ...(hooks.onFirstFrame ? { onFirstFrame: hooks.onFirstFrame } : {}),
      });
    });

  shared(program.command('run').description('run one prompt to completion without the interactive UI'))
    .argument('<prompt...>', 'the prompt')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--yes', 'approve every permission request that would ask (never overrides deny)', false)
    .option(...TRUST_ONCE_OPTION)
    .action(async (words: string[], { trust, ...opts }: SharedOptions & { format: 'text' | 'json'; yes: boolean; trust?: boolean }) => {
      exitCode = await runCommand(context(trust), words.join(' '), { ...opts }, io);
    });

  const sessions = program
    .command('sessions')
    .description('list root sessions')
    .option('--all', 'include sub-agent sessions', false)
    .option('--json', 'print JSON', false)
    .action((opts: { all: boolean; json: boolean }) => {
      io.stdout.write(`${sessionsList(context(), opts)}\n`);
    });
  sessions
    .command('show')
    .description('one session: messages and sub-agent tree')
    .argument('<id>', 'session id')
    .option('--json', 'print JSON', false)
    .action((id: string, opts: { json: boolean }) => {
      // `--json` after the id may be claimed by the parent `sessions` command, which has one too.
      const json = opts.json || (sessions.opts() as { json?: boolean }).json === true;
      io.stdout.write(`${sessionShow(context(), id, { json })}\n`);
    });

  program
    .command('agents')
    .description('list agents with mode, model and source file')
    .option('--json', 'print JSON', false)
    .action((opts: { json: boolean }) => {
      io.stdout.write(`${agentsCommand(context(), opts)}\n`);
    });

  program
    .command('models')
    .description('list providers and their models with context window and prices')
    .option('--json', 'print JSON', false)
    .action((opts: { json: boolean }) => {
      io.stdout.write(`${modelsCommand(context(), opts)}\n`);
    });

  registerTrustCommand(program, io.stdout);

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    exitCode = reportError(err, debug, io.stderr);
  } finally {
    ctx?.store.close();
  }
  return exitCode;
}

function reportError(err: unknown, debug: boolean, stderr: NodeJS.WritableStream): number {
  if (err instanceof CommanderError) {
    // Commander already printed its message; help and version are not errors.
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
    return 2;
  }
  if (err instanceof UserFacingError) {
    stderr.write(`Error: ${err.message}\n`);
    if (debug && err.stack) stderr.write(`${err.stack}\n`);
    return err.exitCode;
  }
  stderr.write(`Error: ${errorMessage(err)}\n`);
  if (debug && err instanceof Error && err.stack) stderr.write(`${err.stack}\n`);
  else stderr.write('(run again with --debug for details)\n');
  return 1;
}

/**
 * Ink decides at import time, from CI variables, to print only a final frame. A user who
 * has CI set in an interactive shell still has a real terminal, so hide the variables while
 * the UI modules load (and restore them for the tools the agent runs).
 */
async function importUi(): Promise<typeof import('../ui/launch.js')> {
  const ciKeys = ['CI', 'CONTINUOUS_INTEGRATION'];
  const saved = ciKeys.map((k) => [k, process.env[k]] as const);
  const interactive = process.stdin.isTTY && process.stdout.isTTY;
  if (interactive) for (const k of ciKeys) delete process.env[k];
  // Yoga (Ink's layout engine) loads its WebAssembly from an embedded data: URL with
  // fetch() when fetch exists: that loads Node's whole HTTP client (undici) and decodes the
  // URL in JavaScript, ~20 ms before the first frame. Without fetch it decodes the bytes
  // itself. The SDK loads its fetch later, on the first request.
  const fetchProperty = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  if (fetchProperty?.configurable) Object.defineProperty(globalThis, 'fetch', { value: undefined, configurable: true, writable: true });
  try {
    return await import('../ui/launch.js');
  } finally {
    for (const [k, v] of saved) if (v !== undefined) process.env[k] = v;
    if (fetchProperty?.configurable) Object.defineProperty(globalThis, 'fetch', fetchProperty);
  }
}
