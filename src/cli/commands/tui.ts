// `opencode-ink` without a subcommand: the interactive UI's wiring, as run.ts is `run`'s.
// Contract: checks the terminal, asks about an untrusted project (or a trusted one whose
// control files changed since), checks credentials with the same credentialProblem `run`
// uses (none: the no-key screen offers the demo), builds the engine, picks the session
// with the same pickSession, takes its writer lease, and hands the core API to the UI's
// render function. Resolves with the exit code. The UI bundle (Ink,
// React) is imported here on demand, so `run` and the listing commands never load it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadAgents, type AgentDefinition } from '../../core/agents/index.js';
import { ConfigSchema, dataDir } from '../../core/config/index.js';
import { Engine, projectParts } from '../../core/engine.js';
import { ConfigError } from '../../core/errors.js';
import { exitNowIfStuck } from '../../core/exit-now.js';
import { FileIndex } from '../../core/file-index.js';
import { credentialProblem, startingProvider } from '../../core/provider/credentials.js';
import { SessionBusyError, SessionStore } from '../../core/store/index.js';
import { trustProject } from '../../core/trust/index.js';
import type { OpenedProject } from '../../core/project-context.js';
import { pickSession } from '../../core/pick-session.js';
import type { PermissionMode } from '../../core/permission/modes.js';
import { startupMark } from '../startup-mark.js';

type Ui = typeof import('../../ui/launch.js');

export interface TuiOptions {
  prompt?: string;
  model?: string;
  agent?: string;
  session?: string;
  continue?: boolean;
  demo?: boolean;
  /** `--permission-mode` (`--yes`: bypassPermissions): the mode sessions start in; the status line shows it. */
  permissionMode?: PermissionMode;
  /** `-r` without an id: open the session picker over a new session. */
  pickSession?: boolean;
  /** The package's `agents/` folder (the demo loads only these). */
  builtinAgentsDir: string;
  /** Called once the first frame is on screen (the loader then writes its code cache). */
  onFirstFrame?: () => void;
}

/** Runs the TUI until the user quits; resolves with the exit code. */
export async function tuiCommand(load: () => OpenedProject, opts: TuiOptions): Promise<number> {
  const ui = await importUi();
  startupMark('ui:loaded');
  const code = await runTui(ui, load, opts);
  // The caller's process.exit would hang on a pool thread stuck in a blocking call.
  await exitNowIfStuck();
  return code;
}

async function runTui(ui: Ui, load: () => OpenedProject, opts: TuiOptions): Promise<number> {
  startupMark('tui:start');
  assertInteractiveTerminal();
  if (opts.demo) return runDemo(ui, opts);
  let ctx = load();
  startupMark('tui:context');
  // Before the credentials check: a trusted project's config may be what provides the key.
  // Also for a trusted project whose control files changed since: trusting again pins them as they are now.
  if (ctx.trust.ignored.length > 0 || ctx.trust.changedFiles.length > 0) {
    const choice = await ui.askTrust(ctx.trust.root, ctx.trust.ignored, ctx.trust.changedFiles);
    if (choice === 'quit') return 0;
    if (choice === 'trust') {
      trustProject(ctx.env, ctx.cwd);
      ctx = ctx.reload();
    }
  }
  const keyProblem = credentialProblem(ctx.config, ctx.env, opts.model);
  if (keyProblem !== undefined) {
    const choice = await ui.askNoKey(startingProvider(ctx.config, opts.model), keyProblem);
    if (choice === 'quit') return 0;
    return runDemo(ui, opts);
  }
  const engine = new Engine({
    ...projectParts(ctx),
    interactive: true,
    ...(opts.permissionMode ? { permissionMode: opts.permissionMode } : {}),
    ...(opts.model ? { model: opts.model } : {}),
  });
  const rootId = pickSession(engine, opts);
  // Held from the start, so no other process writes the session while it is on screen.
  const busy = leaseOrNotice(ctx.store, rootId);
  const banner = [busy, ctx.trust.notice].filter((line) => line !== undefined).join('\n');
  startupMark('tui:session');
  const historyFile = join(dataDir(ctx.env), 'prompt-history.json');
  let history = ui.loadInputHistory(historyFile);
  // Indexing walks the project in the background: started once the first frame is drawn.
  let files: FileIndex | undefined;
  const indexing = new AbortController();
  const cwd = ctx.cwd;
  const afterFirstFrame = () => {
    files = FileIndex.start(cwd, undefined, indexing.signal);
    opts.onFirstFrame?.();
  };
  return ui
    .renderTui(engine, {
      rootId,
      ...(opts.prompt ? { initialPrompt: opts.prompt } : {}),
      keybinds: ctx.config.keybinds,
      agentColors: colorsOf(ctx.agents),
      notify: { enabled: ctx.config.notify.enabled, afterSeconds: ctx.config.notify.after_seconds },
      ...(opts.pickSession ? { openPicker: true } : {}),
      inputHistory: {
        entries: history,
        append(entry) {
          history = ui.addInputHistory(history, entry);
          void ui.saveInputHistory(historyFile, history);
        },
      },
      completeFile: (prefix) => files?.complete(prefix) ?? [],
      afterFirstFrame,
      ...(banner ? { banner } : {}),
    })
    .finally(async () => {
      indexing.abort();
      // Quitting without sending anything (here or in a session /new opened) leaves no session behind.
      ctx.store.removeEmptyRoots();
      await untilOrAfter(engine.workspacesSettled(), WORKTREE_EXIT_WAIT_MS);
    });
}

/** How long quitting waits for sub-agents' worktrees to be saved and removed; the next start cleans up the rest. */
const WORKTREE_EXIT_WAIT_MS = 5000;

function untilOrAfter(work: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    work.then(done, done);
  });
}

function assertInteractiveTerminal(): void {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new ConfigError('The interactive UI needs a terminal; for scripts and pipes use: opencode-ink run "<prompt>".');
  }
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

/**
 * The demo is hermetic: built-in agents, default config, an in-memory store and a
 * throwaway project folder, talking to a local scripted endpoint through the real SDK.
 */
async function runDemo(ui: Ui, opts: TuiOptions): Promise<number> {
  // Loaded on demand, like the UI: only the demo pays for its script and server.
  const [{ DEMO_FILES, DEMO_PROMPT }, { startDemoServer }] = await Promise.all([import('../../demo/script.js'), import('../../demo/server.js')]);
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
    const code = await ui
      .renderTui(engine, {
        rootId,
        initialPrompt: opts.prompt ?? DEMO_PROMPT,
        keybinds: config.keybinds,
        banner:
          '▶ Scripted demo — offline, no API key used. Answer the question, approve or deny, then try ctrl+x → to step into a sub-agent, ctrl+x ↑ to return. /exit quits.',
        agentColors: colorsOf(agents),
        completeFile: (prefix) => demoFiles.complete(prefix),
        ...(opts.onFirstFrame ? { afterFirstFrame: opts.onFirstFrame } : {}),
      })
      .finally(() => indexing.abort());
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

/**
 * Ink decides at import time, from CI variables, to print only a final frame. A user who
 * has CI set in an interactive shell still has a real terminal, so hide the variables while
 * the UI modules load (and restore them for the tools the agent runs).
 */
async function importUi(): Promise<Ui> {
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
    return await import('../../ui/launch.js');
  } finally {
    for (const [k, v] of saved) if (v !== undefined) process.env[k] = v;
    if (fetchProperty?.configurable) Object.defineProperty(globalThis, 'fetch', fetchProperty);
  }
}
