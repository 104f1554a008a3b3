// A throwaway project for tests that load it as the CLI does (`loadProject`), and optionally
// run it in a real Engine against the fake Messages API: a temp folder (real path, so it
// compares equal to what loaders resolve) holding a `.git` project, HOME and the config and
// data dirs (`ProjectFolder`), plus a fresh fake server and an in-memory store
// (`ProjectFixture`). `close()` undoes all of it. The `…ForEachTest` forms open a new one
// before each test of the calling file and close it after.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { SessionStore } from '../../src/core/store/index.js';
import { startFakeServer, type FakeServer } from './fake-anthropic.js';

export interface ProjectFolder {
  /** The temp folder: HOME, with `config/` and `data/` inside. */
  dir: string;
  /** A git project folder inside `dir`. */
  project: string;
  /** HOME and the config and data dirs, plus what the test asked for. */
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export interface ProjectFixture extends ProjectFolder {
  server: FakeServer;
  store: SessionStore;
}

/** `prefix` names the temp folder, so a leftover one says which test file made it; `env` is added to the folder's. */
export function makeProjectFolder(prefix: string, env: NodeJS.ProcessEnv = {}): ProjectFolder {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const project = join(dir, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  return {
    dir,
    project,
    env: { HOME: dir, OPENCODE_INK_CONFIG_DIR: join(dir, 'config'), OPENCODE_INK_DATA_DIR: join(dir, 'data'), ...env },
    async close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A project folder with a fake server and a store; no API key (engines get their provider directly). */
export async function openProjectFixture(prefix: string): Promise<ProjectFixture> {
  const server = await startFakeServer();
  const folder = makeProjectFolder(prefix);
  const store = SessionStore.open(':memory:');
  return {
    ...folder,
    server,
    store,
    async close() {
      store.close();
      await server.close();
      await folder.close();
    },
  };
}

/**
 * Calls `open` before each test of the calling file and closes what it made after the test;
 * returns a reader of the current test's, which throws outside a test and its hooks.
 */
function forEachTest<T extends { close(): Promise<void> }>(open: () => T | Promise<T>): () => T {
  let current: T | undefined;
  beforeEach(async () => {
    current = await open();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error('The project fixture exists only while a test runs (in the test or its hooks).');
    return current;
  };
}

/**
 * A new `makeProjectFolder(prefix, env)` for each test of the calling file. The returned
 * object always reads the current test's folder, so it can be kept in a module-level constant.
 */
export function projectFolderForEachTest(prefix: string, env: NodeJS.ProcessEnv = {}): Omit<ProjectFolder, 'close'> {
  const current = forEachTest(() => makeProjectFolder(prefix, env));
  return {
    get dir() { return current().dir; },
    get project() { return current().project; },
    get env() { return current().env; },
  };
}

/** A new `openProjectFixture(prefix)` for each test of the calling file, read as `projectFolderForEachTest`'s. */
export function projectFixtureForEachTest(prefix: string): Omit<ProjectFixture, 'close'> {
  const current = forEachTest(() => openProjectFixture(prefix));
  return {
    get dir() { return current().dir; },
    get project() { return current().project; },
    get env() { return current().env; },
    get server() { return current().server; },
    get store() { return current().store; },
  };
}

/** Writes `content` to `path`, creating its folders; returns the path. */
export function put(path: string, content: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return path;
}
