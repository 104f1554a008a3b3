// Starts the interactive UI: checks the terminal, builds the engine, picks the session,
// renders the app and restores the terminal however the process ends. Loaded lazily by
// the CLI so `run` never pays for Ink and React.
import { appendFileSync, mkdtempSync, mkdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { render } from 'ink';
import { loadAgents, type AgentDefinition } from '../core/agents/index.js';
import type { CommandDefinition } from '../core/commands/index.js';
import { ConfigSchema, dataDir, type Config } from '../core/config/index.js';
import { Engine, projectParts } from '../core/engine.js';
import { ConfigError } from '../core/errors.js';
import { exitNowIfStuck } from '../core/exit-now.js';
import { credentialProblem, startingProvider } from '../core/provider/credentials.js';
import { FileIndex } from '../core/file-index.js';
import { SessionBusyError, SessionStore } from '../core/store/index.js';
import { pickSession } from '../cli/pick-session.js';
import { setTrusted } from '../core/trust/index.js';
import { DEMO_FILES, DEMO_PROMPT } from '../demo/script.js';
import { startDemoServer } from '../demo/server.js';
import { App } from './app.js';
import { addInputHistory, loadInputHistory, saveInputHistory } from './input-history.js';
import { INK_RENDER_OPTIONS } from './render/ink-options.js';
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON } from './keys/key-stream.js';
import { NoKeyScreen } from './screens/NoKeyScreen.js';
import { TrustScreen, type TrustChoice } from './screens/TrustScreen.js';

export interface TuiContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  config: Config;
  store: SessionStore;
  agents: Map<string, AgentDefinition>;
  commands: Map<string, CommandDefinition>;
  /** Project trust (DESIGN §15): the root and what its untrusted files had ignored. */
  trust?: { root: string; ignored: readonly string[]; notice?: string };
  /** Loads the project again (after the user trusted it). */
  reload?: () => TuiContext;
}

export interface TuiOptions {
  prompt?: string;
  model?: string;
  agent?: string;
  session?: string;
  continue?: boolean;
  demo?: boolean;
  /** `--yes`: approve every request that would ask (deny rules still win); the status line says so. */
  yes?: boolean;
  /** `-r` without an id: open the session picker over a new session. */
  pickSession?: boolean;
  /** The package's `agents/` folder (the demo loads only these). */
  builtinAgentsDir: string;
  /** Called once the first frame is on screen (the loader then writes its code cache). */
  onFirstFrame?: () => void;
}

const RESTORE_TERMINAL = `\u001B[?25h\u001B[0m${BRACKETED_PASTE_OFF}`;

export function assertInteractiveTerminal(): void {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new ConfigError('The interactive UI needs a terminal; for scripts and pipes use: opencode-ink run "<prompt>".');
  }
}

/** Runs the TUI until the user quits; resolves with the exit code. */
export async function startTui(load: () => TuiContext, opts: TuiOptions): Promise<number> {
  const code = await runTui(load, opts);
  // The caller's process.exit would hang on a pool thread stuck in a blocking call.
  await exitNowIfStuck();
  return code;
}

async function runTui(load: () => TuiContext, opts: TuiOptions): Promise<number> {
  performance.mark('tui:start');
  assertInteractiveTerminal();
  if (opts.demo) return runDemo(opts);
  let ctx = load();
  performance.mark('tui:context');
  // Before the credentials check: a trusted project's config may be what provides the key.
  if (ctx.trust && ctx.trust.ignored.length > 0 && ctx.reload) {
    const choice = await askTrust(ctx.trust.root, ctx.trust.ignored);
    if (choice === 'quit') return 0;
    if (choice === 'trust') {
      setTrusted(ctx.env, ctx.trust.root, true);
      ctx = ctx.reload();
    }
  }
  const keyProblem = credentialProblem(ctx.config, ctx.env, opts.model);
  if (keyProblem) {
    const choice = await askNoKey(startingProvider(ctx.config, opts.model), keyProblem);
    if (choice === 'quit') return 0;
    return runDemo(opts);
  }
  const engine = new Engine({
    ...projectParts(ctx),
    interactive: true,
    ...(opts.yes ? { autoApprove: true } : {}),
    ...(opts.model ? { model: opts.model } : {}),
  });
  const rootId = pickSession(engine, opts);
  // Held from the start, so no other process writes the session while it is on screen.
  const busy = leaseOrNotice(ctx.store, rootId);
  const banner = [busy, ctx.trust?.notice].filter((line) => line !== undefined).join('\n');
  performance.mark('tui:session');
  const historyFile = join(dataDir(ctx.env), 'prompt-history.json');
  let history = loadInputHistory(historyFile);
  // Indexing walks the project in the background: started once the first frame is drawn.
  let files: FileIndex | undefined;
  const indexing = new AbortController();
  const afterFirstFrame = () => {
    files = FileIndex.start(ctx.cwd, undefined, indexing.signal);
    opts.onFirstFrame?.();
  };
  return renderApp(engine, {
    rootId,
    ...(opts.prompt ? { initialPrompt: opts.prompt } : {}),
    keybinds: ctx.config.keybinds,
    agentColors: colorsOf(ctx.agents),
    ...(opts.yes ? { autoApprove: true } : {}),
    ...(opts.pickSession ? { openPicker: true } : {}),
    inputHistory: {
      entries: history,
      append(entry) {
        history = addInputHistory(history, entry);
        void saveInputHistory(historyFile, history);
      },
    },
    completeFile: (prefix) => files?.complete(prefix) ?? [],
    afterFirstFrame,
    ...(banner ? { banner } : {}),
  }).finally(() => indexing.abort());
}

/** Takes the session's writer lease; when another process holds it, the notice to show. */
function leaseOrNotice(store: SessionStore, sessionId: string): string | undefined {
  try {
    store.leases.acquire(sessionId);
    return undefined;
  } catch (err) {
    if (err instanceof SessionBusyError) return err.message;
    throw err;
  }
}

async function askTrust(root: string, ignored: readonly string[]): Promise<TrustChoice> {
  let choice: TrustChoice = 'not-now';
  const instance = render(<TrustScreen root={root} ignored={ignored} onChoice={(c) => (choice = c)} />, { exitOnCtrlC: false });
  await instance.waitUntilExit();
  instance.clear();
  return choice;
}

async function askNoKey(provider: string, problem: string): Promise<'demo' | 'quit'> {
  let choice: 'demo' | 'quit' = 'quit';
  const instance = render(<NoKeyScreen provider={provider} problem={problem} onChoice={(c) => (choice = c)} />, { exitOnCtrlC: false });
  await instance.waitUntilExit();
  instance.clear();
  return choice;
}

/**
 * The demo is hermetic: built-in agents, default config, an in-memory store and a
 * throwaway project folder, talking to a local scripted endpoint through the real SDK.
 */
async function runDemo(opts: TuiOptions): Promise<number> {
  const server = await startDemoServer();
  const project = mkdtempSync(join(tmpdir(), 'opencode-ink-demo-'));
  try {
    for (const [name, content] of Object.entries(DEMO_FILES)) {
      mkdirSync(dirname(join(project, name)), { recursive: true });
      writeFileSync(join(project, name), content);
    }
    const config = ConfigSchema.parse({ provider: { anthropic: { baseURL: server.url, apiKey: 'demo-key', maxRetries: 0 } } });
    const { agents } = loadAgents({ builtinDir: opts.builtinAgentsDir, configDir: join(project, '.no-config'), cwd: project, configAgents: {} });
    const store = SessionStore.open(':memory:');
    const engine = new Engine({ cwd: project, config, store, agents, interactive: true });
    const rootId = engine.createSession({ title: 'Scripted demo' }).id;
    const indexing = new AbortController();
    const demoFiles = FileIndex.start(project, undefined, indexing.signal);
    const code = await renderApp(engine, {
      rootId,
      initialPrompt: opts.prompt ?? DEMO_PROMPT,
      keybinds: config.keybinds,
      banner:
        '▶ Scripted demo — offline, no API key used. Answer the question, approve or deny, then try ctrl+x → to step into a sub-agent, ctrl+x ↑ to return. /exit quits.',
      agentColors: colorsOf(agents),
      completeFile: (prefix) => demoFiles.complete(prefix),
      ...(opts.onFirstFrame ? { afterFirstFrame: opts.onFirstFrame } : {}),
    }).finally(() => indexing.abort());
    store.close();
    return code;
  } finally {
    await server.close();
    rmSync(project, { recursive: true, force: true });
  }
}

function colorsOf(agents: Map<string, AgentDefinition>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of agents.values()) if (a.color) out[a.name] = a.color;
  return out;
}

interface RenderOptions {
  rootId: string;
  initialPrompt?: string;
  keybinds: Config['keybinds'];
  banner?: string;
  agentColors: Record<string, string>;
  inputHistory?: { entries: readonly string[]; append(entry: string): void };
  completeFile: (prefix: string) => readonly string[];
  /** Work that can wait until the first frame is on screen. */
  afterFirstFrame?: () => void;
  autoApprove?: boolean;
  openPicker?: boolean;
}

/** Renders the app and keeps the terminal sane on quit, SIGINT/SIGTERM and crashes. */
async function renderApp(engine: Engine, opts: RenderOptions): Promise<number> {
  const traced = traceFirstWrite();
  const instance = render(
    <App
      core={engine}
      rootId={opts.rootId}
      keybinds={opts.keybinds}
      agentColors={opts.agentColors}
      completeFile={opts.completeFile}
      {...(opts.initialPrompt ? { initialPrompt: opts.initialPrompt } : {})}
      {...(opts.banner ? { banner: opts.banner } : {})}
      {...(opts.inputHistory ? { inputHistory: opts.inputHistory } : {})}
      {...(opts.autoApprove ? { autoApprove: true } : {})}
      {...(opts.openPicker ? { openPicker: true } : {})}
    />,
    INK_RENDER_OPTIONS,
  );
  // Ink draws the first frame synchronously inside render().
  traced?.done();
  // Pastes now arrive wrapped in markers, so only they are taken as pastes and keys read
  // together are still keys. However the process ends, the mode is turned off again, or
  // the user's shell would see the markers around every later paste.
  process.stdout.write(BRACKETED_PASTE_ON);
  const pasteOff = () => {
    try {
      writeSync(1, BRACKETED_PASTE_OFF);
    } catch {
      // The terminal is gone: nothing left to restore.
    }
  };
  process.on('exit', pasteOff);
  opts.afterFirstFrame?.();
  let code = 0;
  const quit = (exitCode: number) => {
    code = exitCode;
    engine.cancelAll();
    instance.unmount();
  };
  // The terminal is gone (SIGHUP) or we are told to stop (SIGTERM, or SIGINT from `kill`:
  // Ctrl+C itself arrives as a key in raw mode): nothing can be drawn or read any
  // more, and a raw-mode stdin on a dead terminal would spin. Finished messages are already
  // stored; sessions cut short are marked interrupted at the next start.
  const onSignal = () => {
    quit(130);
    setImmediate(() => void exitNowIfStuck(500, 'SIGTERM').then(() => process.exit(130)));
  };
  const onOutputError = () => onSignal();
  const onCrash = (err: unknown) => {
    quit(1);
    process.stdout.write(RESTORE_TERMINAL);
    process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  process.on('SIGINT', onSignal);
  process.stdout.on('error', onOutputError);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  try {
    await instance.waitUntilExit();
  } finally {
    engine.cancelAll();
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    process.off('SIGINT', onSignal);
    process.stdout.off('error', onOutputError);
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    process.off('exit', pasteOff);
    process.stdout.write(RESTORE_TERMINAL);
  }
  return code;
}

/**
 * With OPENCODE_INK_TRACE_STARTUP=<file>, notes when the first frame is written to the
 * terminal and appends the start-up milestones (ms since the process started) to that file
 * as one JSON line: the start-up benchmark reads it.
 */
function traceFirstWrite(): { done(): void } | undefined {
  const file = process.env.OPENCODE_INK_TRACE_STARTUP;
  if (!file) return undefined;
  const stdout = process.stdout;
  const write = stdout.write;
  let cpu: NodeJS.CpuUsage | undefined;
  stdout.write = function (this: NodeJS.WriteStream, ...args: Parameters<typeof write>) {
    performance.mark('tui:first-frame');
    cpu = process.cpuUsage();
    stdout.write = write;
    return write.apply(this, args);
  } as typeof write;
  return {
    done() {
      stdout.write = write;
      const marks: Record<string, number> = Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, Math.round(m.startTime * 10) / 10]));
      // CPU time (all threads) until the first frame: steadier than wall time on a busy machine.
      if (cpu) marks['cpu:first-frame'] = Math.round((cpu.user + cpu.system) / 100) / 10;
      appendFileSync(file, `${JSON.stringify(marks)}\n`);
    },
  };
}
