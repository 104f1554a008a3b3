// Command-line entry: parses arguments with commander and maps every failure to one clear
// line on stderr and an exit code (2 usage/config, 1 failed run); stacks only with --debug.
import { join } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, UserFacingError, errorMessage } from '../core/errors.js';
import { DEBUG_ENV } from '../core/provider/sdk-log.js';
import type { SandboxMode } from '../core/sandbox/settings.js';
import type { RunOptions } from './commands/run.js';
import { registerTrustCommand, TRUST_ONCE_OPTION } from './commands/trust-option.js';
import { CLOSED_PIPE_EXIT, watchOutput } from './closed-pipe.js';
import type { OpenedProject } from '../core/project-context.js';
import type { AgentConfigEntry } from '../core/agents/schema.js';
import { packageRoot, packageVersion } from '../core/package-root.js';
import { composePrompt, inputKind, stdinWaitMs } from './stdin.js';
import { startupMark } from './startup-mark.js';

// Each command's module (and the project context: config, agents, SQLite) is imported when
// that command runs, so `--help`, `trust` and the listings load only what they use.

// Start-up milestone (see traceFirstWrite in ui/launch.tsx): this bundle and its imports are evaluated.
startupMark('cli:loaded');

/** Calls from the loader (src/boot) into the start-up. */
export interface StartupHooks {
  /** The interactive UI has drawn its first frame. */
  onFirstFrame?: () => void;
}

interface SharedOptions {
  /** `--sandbox <mode>`: replaces `sandbox.mode` for this start. */
  sandbox?: SandboxMode;
  /** `--permission-mode <mode>` as typed; checked by permission-mode-flag.ts. */
  permissionMode?: string;
  model?: string;
  agent?: string;
  session?: string;
  continue?: boolean;
  debug?: boolean;
  /** `--agents '<json>'`: sub-agents for this start, as Claude Code's flag defines them. */
  agents?: string;
}

/**
 * `--sandbox`'s choices, spelled here so that `--help` need not load zod for the schema's
 * list; the two checks below fail the build when they and SandboxMode differ.
 */
const SANDBOX_MODES = ['off', 'read-only', 'workspace-write'] as const satisfies readonly SandboxMode[];
type MissingSandboxMode = Exclude<SandboxMode, (typeof SANDBOX_MODES)[number]>;
const everySandboxModeListed: [MissingSandboxMode] extends [never] ? true : MissingSandboxMode = true;
void everySandboxModeListed;

const DEBUG_FLAGS = '--debug';
const DEBUG_DESCRIPTION = 'print stack traces for errors, and the model SDKs\' own warnings';

const EXAMPLES = `
Examples:
  opencode-ink                                   start the interactive UI
  opencode-ink -r                                pick a session to resume
  opencode-ink run "explain this repository"     one prompt; the answer on stdout
  git diff | opencode-ink -p "review this"       piped text is appended to the prompt
  opencode-ink run --format json "x" | head -1   every event as one JSON line
`;

/** The top level: the TUI's options, and `run`'s for `-p`. */
interface TopLevelOptions extends SharedOptions {
  demo?: boolean;
  print?: boolean;
  format?: 'text' | 'json';
  quiet?: boolean;
  yes?: boolean;
  /** `-r` alone: true (pick a session); `-r <id>`: that session. */
  resume?: string | true;
  /** `--trust`: trust the project's own files for this start only. */
  trust?: boolean;
}

/** The program's commands, as registered below (a command not listed here is always registered). */
const COMMANDS = ['run', 'sessions', 'undo', 'redo', 'agents', 'models', 'runners', 'acp', 'mcp', 'trust'] as const;
type CommandName = (typeof COMMANDS)[number];

/**
 * Which commands to register: only the one the first argument names, when it names one.
 * Registering all of them with their options takes ~2 ms of every start (commander builds
 * objects for each), and a named command never needs the others: its options, help and errors
 * are its own. Anything else (a prompt, `--help`, `help <topic>`, a mistyped name that wants a
 * suggestion) registers them all.
 */
function commandFilter(argv: readonly string[]): (name: CommandName) => boolean {
  const first = argv[0];
  const named = COMMANDS.find((name) => name === first);
  return (name) => named === undefined || named === name;
}

export async function main(argv: string[] = process.argv.slice(2), hooks: StartupHooks = {}): Promise<number> {
  startupMark('cli:main');
  const wants = commandFilter(argv);
  const io = { stdout: process.stdout, stderr: process.stderr };
  // `… | head -1`: a vanished reader stops the command quietly instead of crashing on EPIPE.
  const output = watchOutput(io.stdout, io.stderr);
  // Read before parsing, so the providers see it from the start; never a prompt word after `--`.
  const debug = optionWords(argv).includes('--debug');
  // The model SDKs' own warnings (a deprecated model, on every request) only with --debug (provider/sdk-log.ts).
  if (debug) process.env[DEBUG_ENV] = '1';
  let exitCode = 0;
  let ctx: OpenedProject | undefined;
  /** `--agents '<json>'`, parsed before the project opens (a mistake exits 2 before anything starts). */
  let sessionAgents: Record<string, AgentConfigEntry> | undefined;
  const readAgentsFlag = async (text: string | undefined): Promise<void> => {
    if (text === undefined) return;
    const { parseAgentsFlag } = await import('../core/agents/session-flag.js');
    sessionAgents = parseAgentsFlag(text);
  };
  /** Loads the project module, then gives what opens the project (the UI opens it after its first frame). */
  const projectOpener = async (trustOnce = false, ui = false, sandboxMode?: SandboxMode): Promise<() => OpenedProject> => {
    const { openProject } = await import('../core/project-context.js');
    return () => {
      ctx ??= openProject({ cwd: process.cwd(), env: process.env, trustOnce, sandboxMode, sessionAgents });
      for (const w of ctx.warnings) io.stderr.write(`${w}\n`);
      // The UI names what an untrusted project had ignored in its trust dialog instead.
      if (ctx.trust.notice && !ui) io.stderr.write(`${ctx.trust.notice}\n`);
      return ctx;
    };
  };
  const context = async (trustOnce = false, ui = false, sandboxMode?: SandboxMode): Promise<OpenedProject> =>
    (await projectOpener(trustOnce, ui, sandboxMode))();

  const program = new Command('opencode-ink')
    .description('A terminal coding assistant with parallel sub-agents.')
    .version(packageVersion(), '-v, --version')
    .option(DEBUG_FLAGS, DEBUG_DESCRIPTION)
    .exitOverride()
    // The UI and `run` share option names (-c, -m, ...): each command owns what follows it.
    .enablePositionalOptions()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError('(run opencode-ink --help for usage)')
    // The program's own action (the TUI) stops commander from adding `help` by itself, and
    // `help run` would be sent to the model as a prompt.
    .helpCommand('help [command]', 'show help for a command')
    .addHelpText('after', EXAMPLES);

  const shared = (cmd: Command) =>
    cmd
      .option('-m, --model <provider/model>', 'model to use, e.g. anthropic/claude-sonnet-4-6')
      .option('--agent <name>', 'primary agent (default: build)')
      .option('-s, --session <id>', 'continue that session')
      .option('-c, --continue', 'continue the most recent session in this directory')
      .option('--agents <json>', 'sub-agents for this start, as JSON: {"name": {"description": "…", "prompt": "…", "tools": ["Read"]}}')
      .addOption(
        new Option('--sandbox <mode>', 'run shell commands in a sandbox (overrides sandbox.mode)').choices(SANDBOX_MODES),
      )
      .option('--permission-mode <mode>', 'permission mode to start in: default, acceptEdits, plan, dontAsk or bypassPermissions');

  /** The checked mode of `--permission-mode`/`--yes`; the module is loaded only when one was given. */
  const startMode = async (value: string | undefined, yes: boolean) =>
    value === undefined && !yes ? undefined : (await import('./permission-mode-flag.js')).permissionModeFlag(value, yes);

  /** `run` and `-p`: the words plus what is piped on stdin, to completion. */
  const runPrompt = async (
    words: string[],
    { sandbox, permissionMode, agents, ...rest }: Omit<RunOptions, 'permissionMode'> & { sandbox?: SandboxMode; permissionMode?: string; agents?: string },
    trust = false,
  ) => {
    await readAgentsFlag(agents);
    const mode = await startMode(permissionMode, rest.yes);
    const opts: RunOptions = { ...rest, ...(mode ? { permissionMode: mode } : {}) };
    const [ctx, { runCommand }] = await Promise.all([context(trust, false, sandbox), import('./commands/run.js')]);
    const prompt = await composePrompt({ words, kind: inputKind(0), stdin: () => process.stdin, stderr: io.stderr, firstByteMs: stdinWaitMs(process.env) });
    exitCode = await runCommand(ctx, prompt, opts, { ...io, closed: output.signal });
  };

  shared(program.argument('[prompt...]', 'first prompt for the interactive UI'))
    .option('--demo', 'run the offline scripted demo (no API key needed)')
    .addOption(new Option('-r, --resume [id]', 'open that session, or pick one from a list').conflicts(['session', 'continue', 'demo']))
    .option('--yes', 'same as --permission-mode bypassPermissions: approve what would ask (never overrides deny)')
    .addOption(new Option('-p, --print', 'run the prompt without the interactive UI and print the answer (same as run)').conflicts(['demo', 'resume']))
    .addOption(new Option('--format <format>', 'with -p: output format').choices(['text', 'json']))
    .option('-q, --quiet', 'with -p: no line on stderr as each sub-agent starts and ends')
    .option(...TRUST_ONCE_OPTION)
    .action(async (words: string[], opts: TopLevelOptions) => {
      const { print, format, yes, resume, trust, quiet, ...rest } = opts;
      if (print) return runPrompt(words, { ...rest, format: format ?? 'text', yes: yes ?? false, quiet: quiet ?? false }, trust);
      if (format) program.error('error: --format applies to run and -p only', { exitCode: 2 });
      if (quiet) program.error('error: --quiet applies to run and -p only', { exitCode: 2 });
      // The UI bundle is loaded on demand there: `run` and the listing commands never load Ink or React.
      const { sandbox, permissionMode, agents, ...tuiRest } = rest;
      await readAgentsFlag(agents);
      const mode = await startMode(permissionMode, yes ?? false);
      const [open, { tuiCommand }] = await Promise.all([projectOpener(trust, true, sandbox), import('./commands/tui.js')]);
      exitCode = await tuiCommand(open, {
        ...tuiRest,
        ...(typeof resume === 'string' ? { session: resume } : {}),
        ...(resume === true ? { pickSession: true } : {}),
        ...(mode ? { permissionMode: mode } : {}),
        ...(words.length ? { prompt: words.join(' ') } : {}),
        builtinAgentsDir: join(packageRoot(), 'agents'),
        ...(hooks.onFirstFrame ? { onFirstFrame: hooks.onFirstFrame } : {}),
      });
    });

  if (wants('run')) {
    shared(program.command('run').description('run one prompt to completion without the interactive UI'))
      .argument('[prompt...]', 'the prompt; text piped on stdin is appended after a blank line, or is the prompt')
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
      .option('--yes', 'same as --permission-mode bypassPermissions: approve what would ask (never overrides deny)', false)
      .option('-q, --quiet', 'no line on stderr as each sub-agent starts and ends (text output)', false)
      .option(...TRUST_ONCE_OPTION)
      .action((words: string[], { trust, ...opts }: Omit<RunOptions, 'permissionMode'> & { trust?: boolean; permissionMode?: string }) => runPrompt(words, opts, trust));
  }

  if (wants('sessions')) {
    const sessions = program
      .command('sessions')
      .description('list root sessions')
      .option('--all', 'include sub-agent sessions', false)
      .option('--json', 'print JSON', false)
      .action(async (opts: { all: boolean; json: boolean }) => {
        const { sessionsList } = await import('./commands/sessions.js');
        io.stdout.write(`${sessionsList(await context(), opts)}\n`);
      });
    sessions
      .command('show')
      .description('one session: messages and sub-agent tree')
      .argument('<id>', 'session id')
      .option('--json', 'print JSON', false)
      .action(async (id: string, opts: { json: boolean }) => {
        // `--json` after the id may be claimed by the parent `sessions` command, which has one too.
        const json = opts.json || (sessions.opts() as { json?: boolean }).json === true;
        const { sessionShow } = await import('./commands/sessions.js');
        io.stdout.write(`${sessionShow(await context(), id, { json })}\n`);
      });

    sessions
      .command('revert')
      .description("undo one session's changes only (typically a sub-agent's), keeping everything else")
      .argument('<id>', 'session id')
      .action(async (id: string) => {
        const { sessionsRevert } = await import('./commands/undo.js');
        io.stdout.write(`${await sessionsRevert(await context(), id, io)}\n`);
      });
    sessions
      .command('diff')
      .description('the changes a session made, its sub-agents\' included (unified diff)')
      .argument('<id>', 'session id')
      .action(async (id: string) => {
        const { sessionsDiff } = await import('./commands/undo.js');
        io.stdout.write(await sessionsDiff(await context(), id, io));
      });
  }
  for (const action of ['undo', 'redo'] as const) {
    if (!wants(action)) continue;
    program
      .command(action)
      .description(action === 'undo' ? 'undo the last prompt of a root session (default: the newest here): files and conversation' : 're-apply what the last undo took back')
      .option('-s, --session <id>', 'the root session (default: the most recent one in this directory)')
      .action(async (opts: { session?: string }) => {
        const { undoCommand } = await import('./commands/undo.js');
        io.stdout.write(`${await undoCommand(await context(), action, opts, io)}\n`);
      });
  }

  if (wants('agents')) {
    program
      .command('agents')
      .description('list agents with mode, model and source file')
      .option('--json', 'print JSON', false)
      .option('--agents <json>', 'also list these sub-agents, as run and the UI would define them')
      .action(async ({ agents, ...opts }: { json: boolean; agents?: string }) => {
        await readAgentsFlag(agents);
        const { agentsCommand } = await import('./commands/agents.js');
        io.stdout.write(`${agentsCommand(await context(), opts)}\n`);
      });
  }

  if (wants('models')) {
    program
      .command('models')
      .description('list providers and their models with context window and prices')
      .option('--json', 'print JSON', false)
      .action(async (opts: { json: boolean }) => {
        const { modelsCommand } = await import('./commands/models.js');
        io.stdout.write(`${modelsCommand(await context(), opts)}\n`);
      });
  }

  if (wants('runners')) {
    program
      .command('runners')
      .description('list the container hosts for sub-agents: reachable or why not, the image, this program\'s containers')
      .option('--json', 'print JSON', false)
      .action(async (opts: { json: boolean }) => {
        const { runnersCommand } = await import('./commands/runners.js');
        io.stdout.write(`${await runnersCommand(await context(), opts)}\n`);
      });
  }

  if (wants('acp')) {
    program
      .command('acp')
      .description('serve editors over the Agent Client Protocol on stdio (Zed, JetBrains, Neovim)')
      .option('-m, --model <provider/model>', 'model for every session, e.g. anthropic/claude-sonnet-4-6')
      .option(...TRUST_ONCE_OPTION)
      .action(async (opts: { model?: string; trust?: boolean }) => {
        // Loaded on demand, like the UI: no other command pays for the protocol SDK.
        const { runAcp } = await import('../acp/index.js');
        exitCode = await runAcp({ ...opts, version: packageVersion() });
      });
  }

  if (wants('mcp')) {
    program
      .command('mcp')
      .description('MCP servers')
      .command('list')
      .description('start the configured MCP servers and show each one\'s state and tools')
      .option('--json', 'print JSON', false)
      .action(async (opts: { json: boolean }) => {
        const { mcpListCommand } = await import('./commands/mcp.js');
        io.stdout.write(`${await mcpListCommand(await context(), opts)}\n`);
      });
  }

  if (wants('trust')) registerTrustCommand(program, io.stdout);
  // Each command owns the options after its name (enablePositionalOptions): without its own
  // `--debug`, `run --debug` would be an unknown option.
  acceptDebugEverywhere(program);

  try {
    checkHelpTopic(program, argv);
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    exitCode = reportError(err, debug, io.stderr);
  } finally {
    // The process exits when main returns (bin/opencode-ink.js): the store's file is left to
    // that exit rather than checkpointed first (SessionStore.releaseForExit).
    ctx?.store.releaseForExit();
  }
  // An EPIPE is reported after the write that met it: let it arrive before deciding.
  await new Promise<void>((resolve) => io.stdout.write('', () => resolve()));
  return output.signal.aborted ? CLOSED_PIPE_EXIT : exitCode;
}

/** Adds `--debug` to every subcommand (the program has its own), so it works before or after a command's name. */
function acceptDebugEverywhere(command: Command): void {
  for (const sub of command.commands) {
    if (!sub.options.some((o) => o.long === DEBUG_FLAGS)) sub.option(DEBUG_FLAGS, DEBUG_DESCRIPTION);
    acceptDebugEverywhere(sub);
  }
}

/** The arguments before `--`: after it, every word belongs to the prompt. */
function optionWords(argv: readonly string[]): readonly string[] {
  const end = argv.indexOf('--');
  return end === -1 ? argv : argv.slice(0, end);
}

/**
 * `help <word>` for a word that names no command: commander would print the general help
 * and exit 1; say what went wrong instead (the words may have been meant as a prompt).
 */
function checkHelpTopic(program: Command, argv: readonly string[]): void {
  const words = argv.filter((a) => a !== DEBUG_FLAGS);
  const topic = words[0] === 'help' ? words[1] : undefined;
  if (topic === undefined || topic.startsWith('-')) return;
  if (program.commands.some((c) => c.name() === topic || c.aliases().includes(topic))) return;
  throw new ConfigError(`"${topic}" is not a command (see opencode-ink help); to ask the model, quote the prompt: opencode-ink "${words.join(' ')}".`);
}

function reportError(err: unknown, debug: boolean, stderr: NodeJS.WritableStream): number {
  if (err instanceof CommanderError) {
    // Commander already printed its message; help and version are not errors.
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
    if (err.code === 'commander.help') return err.exitCode === 0 ? 0 : 2;
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
