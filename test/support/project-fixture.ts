// A throwaway project for tests that load it as the CLI does (`loadProject`) and run it in a
// real Engine against the fake Messages API: a temp folder (real path, so it compares equal
// to what loaders resolve) holding a `.git` project, HOME and the config and data dirs, plus
// a fresh fake server and an in-memory store. `close()` undoes all of it.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SessionStore } from '../../src/core/store/index.js';
import { startFakeServer, type FakeServer } from './fake-anthropic.js';

export interface ProjectFixture {
  /** The temp folder: HOME, with `config/` and `data/` inside. */
  dir: string;
  /** A git project folder inside `dir`. */
  project: string;
  /** HOME and the config and data dirs; no API key (engines get their provider directly). */
  env: NodeJS.ProcessEnv;
  server: FakeServer;
  store: SessionStore;
  close(): Promise<void>;
}

/** `prefix` names the temp folder, so a leftover one says which test file made it. */
export async function openProjectFixture(prefix: string): Promise<ProjectFixture> {
  const server = await startFakeServer();
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const project = join(dir, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  const env: NodeJS.ProcessEnv = { HOME: dir, OPENCODE_INK_CONFIG_DIR: join(dir, 'config'), OPENCODE_INK_DATA_DIR: join(dir, 'data') };
  const store = SessionStore.open(':memory:');
  return {
    dir,
    project,
    env,
    server,
    store,
    async close() {
      store.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes `content` to `path`, creating its folders; returns the path. */
export function put(path: string, content: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return path;
}
