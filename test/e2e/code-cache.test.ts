// End-to-end: the interactive UI started from dist/tui.js in a real terminal (tmux), three
// times over the same data folder: the first start writes the V8 code cache once its first
// frame is drawn, the second compiles from it (and leaves it alone), and a corrupt cache
// costs nothing but a normal start that replaces it. Keys typed during start-up arrive.
// `run` does the same from dist/run.js, writing its cache when the run is over.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCodeCache } from '../../src/boot/index.js';
import { runCli, startCliProject } from '../support/cli.js';
import { text } from '../support/fake-anthropic.js';
import { REPO_ROOT } from '../support/repo-root.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';
import { waitFor as sharedWaitFor } from '../support/wait.js';

let home: string;

const server = tmuxServer(`oci-cache-${process.pid}`);
const tmux = server.run;

function waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  return sharedWaitFor(probe, what, { timeoutMs, intervalMs: 50 });
}

/** Starts the UI (no request is sent, so the API is never reached), types `keys` at once, waits for the first frame. */
async function startUi(name: string, keys?: string): Promise<string> {
  const env = [`OPENCODE_INK_TRACE_STARTUP=${home}/trace-${name}.jsonl`, `HOME=${home}`, `OPENCODE_INK_DATA_DIR=${home}/data`, `OPENCODE_INK_CONFIG_DIR=${home}/config`, 'ANTHROPIC_API_KEY=test', 'ANTHROPIC_BASE_URL=http://127.0.0.1:9', 'TERM=xterm-256color'];
  tmux('new-session', '-d', '-s', name, '-x', '100', '-y', '30', `cd ${home}/project && env ${env.join(' ')} node ${join(REPO_ROOT, 'bin/opencode-ink.js')}; sleep 30`);
  if (keys) tmux('send-keys', '-t', name, '-l', keys);
  const screen = () => tmux('capture-pane', '-p', '-t', name);
  return waitFor(() => {
    const s = screen();
    return s.includes('build · New session') && s.includes('build · claude-') ? s : undefined;
  }, 'the first frame');
}

/** Finished cache files (a write in progress is a `.tmp` file beside them). */
function cacheFiles(): string[] {
  try {
    return readdirSync(join(home, 'data', 'cache')).filter((name) => name.endsWith('.v8'));
  } catch {
    return [];
  }
}

describe.runIf(hasTmux || process.env.CI)('the code cache of the interactive UI', () => {
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'oci-cache-'));
    mkdirSync(join(home, 'project', '.git'), { recursive: true });
  });
  afterAll(() => {
    server.kill();
    // The killed program may still be closing its store in there: retry while it finishes.
    rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  });

  it('is written after the first start, used by the next, and replaced when corrupt', async () => {
    await startUi('first');
    const [file] = await waitFor(() => (cacheFiles().length ? cacheFiles() : undefined), 'the cache file');
    // The very first start compiled from the cache the build left in dist/cache.
    const firstTrace = await waitFor(() => {
      try {
        return readFileSync(join(home, 'trace-first.jsonl'), 'utf8') || undefined;
      } catch {
        return undefined;
      }
    }, 'the first start-up trace');
    expect(firstTrace).toContain('boot:code-cache-seeded');
    expect(cacheFiles()).toEqual([file]);
    expect(file).toMatch(/^tui-[0-9a-f]{32}-v\d+\.\d+\.\d+-\w+\.v8$/);
    const path = join(home, 'data', 'cache', file!);
    expect(readCodeCache(path)).toBeDefined();
    const written = statSync(path).mtimeMs;

    // Typed before the first frame: the keys wait in the terminal and reach the prompt.
    const second = await startUi('second', 'hello there');
    expect(second).not.toContain('Error');
    await waitFor(() => (tmux('capture-pane', '-p', '-t', 'second').includes('hello there') ? true : undefined), 'the early keys');
    // The start-up trace says the compile used the cache, and a used cache is left as it is.
    const trace = await waitFor(() => {
      try {
        return readFileSync(join(home, 'trace-second.jsonl'), 'utf8') || undefined;
      } catch {
        return undefined;
      }
    }, 'the start-up trace');
    expect(trace).toContain('boot:code-cache-used');
    // Nothing on the first frame needs Node's fetch (Yoga's loader used to fetch its own wasm).
    expect(trace).toContain('"undici:before-first-frame":0');
    expect(statSync(path).mtimeMs).toBe(written);

    writeFileSync(path, 'OCV8 this is not a code cache');
    await startUi('third');
    await waitFor(() => (readCodeCache(path) ? true : undefined), 'the replaced cache');
    expect(cacheFiles()).toEqual([file]);
  }, 60_000);
});

describe('the code cache of `run`', () => {
  it('is written by the first run, used by the next, and not rejected for the flags a run sets', async () => {
    const p = await startCliProject();
    try {
      p.server.setHandler(() => text('ok'));
      const cacheDir = join(p.dir, 'data', 'cache');
      const files = () => readdirSync(cacheDir).filter((name) => name.endsWith('.v8'));
      const first = await runCli(['run', 'say ok'], { cwd: p.project, env: p.env });
      expect(first).toMatchObject({ code: 0, stdout: 'ok\n' });
      // Written before the process exits: no waiting needed.
      const [file] = files();
      expect(file).toMatch(/^run-[0-9a-f]{32}-v\d+\.\d+\.\d+-\w+\.v8$/);
      const path = join(cacheDir, file!);
      const written = readFileSync(path);

      // A run that V8 refused the cache to (after a changed flag, say) would write it anew.
      const second = await runCli(['-p', 'say ok again'], { cwd: p.project, env: p.env });
      expect(second).toMatchObject({ code: 0, stdout: 'ok\n' });
      expect(files()).toEqual([file]);
      expect(readFileSync(path).equals(written)).toBe(true);

      writeFileSync(path, 'OCV8 this is not a code cache');
      expect(await runCli(['run', 'once more'], { cwd: p.project, env: p.env })).toMatchObject({ code: 0, stdout: 'ok\n' });
      expect(readCodeCache(path)).toBeDefined();
      expect(p.server.requests).toHaveLength(3);
    } finally {
      await p.close();
    }
  }, 30_000);
});
