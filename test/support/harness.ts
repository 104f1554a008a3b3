// A real engine (real store, config loading, agents, tools and Anthropic provider) wired to
// the fake Messages API server, in a throwaway project folder.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAgents } from '../../src/core/agents/index.js';
import { loadCommands } from '../../src/core/commands/index.js';
import { loadConfig } from '../../src/core/config/index.js';
import { Engine, type EngineOptions } from '../../src/core/engine.js';
import type { CoreEvent } from '../../src/core/events.js';
import { createProvider } from '../../src/core/provider/index.js';
import { prepareSandbox } from '../../src/core/sandbox/index.js';
import { SessionStore } from '../../src/core/store/index.js';
import { validEvent } from './events.js';
import { REPO_ROOT } from './repo-root.js';
import { startFakeServer, type FakeServer } from './fake-anthropic.js';

export { REPO_ROOT };

export interface Harness {
  server: FakeServer;
  dir: string;
  projectDir: string;
  env: NodeJS.ProcessEnv;
  store: SessionStore;
  engine: Engine;
  events: CoreEvent[];
  /** A fresh engine over the same store, as a restarted process would build. */
  newEngine(overrides?: Partial<EngineOptions>): Engine;
  close(): Promise<void>;
}

export interface HarnessOptions {
  config?: Record<string, unknown>;
  files?: Record<string, string>;
  engine?: Partial<EngineOptions>;
  idleTimeoutMs?: number;
  /** Extra environment variables for the engine's start (the sandbox reads them). */
  env?: Record<string, string>;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const server = await startFakeServer();
  const dir = mkdtempSync(join(tmpdir(), 'oci-engine-'));
  const projectDir = join(dir, 'project');
  mkdirSync(join(projectDir, '.git'), { recursive: true });
  mkdirSync(join(dir, 'config'), { recursive: true });
  for (const [name, content] of Object.entries(opts.files ?? {})) {
    const file = join(projectDir, name);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, content);
  }
  if (opts.config) writeFileSync(join(projectDir, '.opencoderc.json'), JSON.stringify(opts.config));
  const env: NodeJS.ProcessEnv = {
    OPENCODE_INK_CONFIG_DIR: join(dir, 'config'),
    OPENCODE_INK_DATA_DIR: join(dir, 'data'),
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: server.url,
    HOME: dir,
    ...opts.env,
  };
  const { config } = loadConfig({ cwd: projectDir, env });
  const { agents } = loadAgents({
    builtinDir: join(REPO_ROOT, 'agents'),
    configDir: join(dir, 'config'),
    cwd: projectDir,
    configAgents: config.agent,
  });
  const { commands } = loadCommands({ configDir: join(dir, 'config'), cwd: projectDir, configCommands: config.command });
  const store = SessionStore.open(join(dir, 'data'));
  const events: CoreEvent[] = [];
  const provider = createProvider('anthropic', {
    apiKey: 'test-key',
    baseURL: server.url,
    maxRetries: 2,
    retryBaseDelayMs: 1,
    ...(opts.idleTimeoutMs ? { idleTimeoutMs: opts.idleTimeoutMs } : {}),
  });
  const newEngine = (overrides: Partial<EngineOptions> = {}) => {
    const engine = new Engine({
      cwd: projectDir,
      config,
      store,
      agents,
      commands,
      interactive: false,
      providerFor: () => provider,
      // The sandbox sees the test's folders (HOME, data and config dirs), not the machine's.
      sandbox: prepareSandbox({ config: config.sandbox, env, cwd: projectDir }),
      ...opts.engine,
      ...overrides,
    });
    // Validated as it arrives: a malformed event fails the test (EventBus rethrows listener errors).
    engine.on((e) => events.push(validEvent(e)));
    return engine;
  };
  const engine = newEngine();
  return {
    server,
    dir,
    projectDir,
    env,
    store,
    engine,
    events,
    newEngine,
    async close() {
      // A snapshot a cancel gave up on may still be finishing its git process in the data dir.
      await engine.checkpointsSettled();
      store.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
    },
  };
}

/** Resolves with the first event matching `predicate`, or rejects after `timeoutMs`. */
export function waitForEvent(engine: Engine, predicate: (e: CoreEvent) => boolean, timeoutMs = 5000): Promise<CoreEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`No matching event within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = engine.on((e) => {
      if (!predicate(e)) return;
      clearTimeout(timer);
      off();
      resolve(e);
    });
  });
}
