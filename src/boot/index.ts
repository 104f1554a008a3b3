// Loaded by bin/opencode-ink.js (as dist/boot.js) to pick how the CLI starts. The
// interactive UI runs from dist/tui.js, the whole CLI as one classic script that V8 can
// compile from a code cache (Node 20 has none for ES modules): the first start stores the
// compiled code once the first frame is drawn, later starts skip most of the compiling.
// Every other command imports dist/cli.js, the ES module bundle, which never loads the UI.
//
// The cache is an optimisation only: a missing, corrupt or rejected file means compiling as
// usual, and failing to write one is ignored.
import { createRequire } from 'node:module';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { StartupHooks } from '../cli/main.js';

// Every command loads this module, so it requires what it uses when it uses it: importing
// node:crypto or node:fs as ES modules up front builds their namespaces (running lazy
// getters such as Web Crypto's), which took this module from ~2 to ~6 ms.
const require = createRequire(import.meta.url);
const fs = () => require('node:fs') as typeof import('node:fs');

export type Main = (argv: string[], hooks?: StartupHooks) => Promise<number>;

/** Arguments that name a command (or help) rather than the interactive UI. */
const COMMAND_WORDS = new Set(['run', 'sessions', 'agents', 'acp', 'help', '--help', '-h', '--version', '-v', '-p', '--print']);

/** The hash the build writes into dist/tui.js's first line. */
const SCRIPT_HASH = /\/\*opencode-ink-tui:([0-9a-f]{32})\*\//;

const MAGIC = Buffer.from('OCV8');
const HEADER_BYTES = MAGIC.length + 20; // magic, then the SHA-1 of the V8 data

/** Whether these arguments start the interactive UI (a guess: only the speed differs if wrong). */
export function wantsTui(argv: readonly string[], interactive: boolean): boolean {
  return interactive && !argv.some((a) => COMMAND_WORDS.has(a));
}

/** Where the code cache lives: under OPENCODE_INK_DATA_DIR, else the XDG cache folder; undefined when that is not an absolute path. */
export function codeCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const nonEmpty = (v: string | undefined) => (v && v.length > 0 ? v : undefined);
  const data = nonEmpty(env.OPENCODE_INK_DATA_DIR);
  const xdg = nonEmpty(env.XDG_CACHE_HOME);
  const home = () => nonEmpty(env.HOME) ?? (require('node:os') as typeof import('node:os')).homedir();
  const dir = data ? join(data, 'cache') : xdg ? join(xdg, 'opencode-ink') : join(home(), '.cache', 'opencode-ink');
  return isAbsolute(dir) ? dir : undefined;
}

/** The CLI's `main`: from dist/tui.js for the interactive UI, else from dist/cli.js. */
export async function loadMain(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Main> {
  performance.mark('boot:start');
  const here = dirname(fileURLToPath(import.meta.url));
  if (wantsTui(argv, Boolean(process.stdin.isTTY && process.stdout.isTTY))) {
    const script = loadScript(join(here, 'tui.js'), codeCacheDir(env));
    if (script) {
      // In the start-up trace (OPENCODE_INK_TRACE_STARTUP): whether the cache was used.
      performance.mark(`boot:code-cache-${script.cache}`);
      return script.main;
    }
  }
  const cli = (await import(pathToFileURL(join(here, 'cli.js')).href)) as { main: Main };
  return cli.main;
}

type ScriptFactory = (
  require: NodeJS.Require,
  importMeta: { url: string; filename: string; dirname: string },
  importChunk: (specifier: string) => Promise<unknown>,
) => { main: Main };

export interface LoadedScript {
  main: Main;
  /** `used`: compiled from the cache; `stale`: none or rejected, written after the first frame; `off`: no cache folder. */
  cache: 'used' | 'stale' | 'off';
}

/**
 * Compiles and runs the script at `file` (using and later writing a code cache in `cacheDir`)
 * and returns its `main`; undefined when the file is missing or not a TUI script.
 */
export function loadScript(file: string, cacheDir: string | undefined): LoadedScript | undefined {
  let source: string;
  try {
    source = fs().readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const hash = SCRIPT_HASH.exec(source.slice(0, 500))?.[1];
  if (!hash) return undefined;
  // V8 rejects data from another V8 version or flags; the name keeps one per Node version.
  const cacheFile = cacheDir ? join(cacheDir, `tui-${hash}-${process.version}-${process.arch}.v8`) : undefined;
  const cachedData = cacheFile ? readCodeCache(cacheFile) : undefined;
  const vm = require('node:vm') as typeof import('node:vm');
  const script = new vm.Script(source, { filename: file, ...(cachedData ? { cachedData } : {}) });
  performance.mark('boot:compiled');
  const stale = cachedData === undefined || script.cachedDataRejected === true;
  const url = pathToFileURL(file).href;
  const factory = script.runInThisContext() as ScriptFactory;
  const { main } = factory(createRequire(file), { url, filename: file, dirname: dirname(file) }, (specifier) => import(new URL(specifier, url).href));
  if (!cacheFile) return { main, cache: 'off' };
  if (!stale) return { main, cache: 'used' };
  // The compiled code worth caching is what the start-up ran: write it after the first frame.
  let saved = false;
  const save = () => {
    if (saved) return;
    saved = true;
    setImmediate(() => {
      try {
        writeCodeCache(cacheFile, script.createCachedData());
      } catch {
        // no cache this time
      }
    });
  };
  return {
    cache: 'stale',
    main: (argv, hooks) =>
      main(argv, {
        ...hooks,
        onFirstFrame: () => {
          hooks?.onFirstFrame?.();
          save();
        },
      }),
  };
}

function sha1(data: Uint8Array): Buffer {
  return (require('node:crypto') as typeof import('node:crypto')).createHash('sha1').update(data).digest();
}

/** The V8 data in `file`, or undefined when it is missing, truncated or corrupt. */
export function readCodeCache(file: string): Buffer | undefined {
  try {
    const bytes = fs().readFileSync(file);
    if (bytes.length <= HEADER_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
    const data = bytes.subarray(HEADER_BYTES);
    return sha1(data).equals(bytes.subarray(MAGIC.length, HEADER_BYTES)) ? data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes `data` to `file` atomically (a temporary file renamed over it) and removes caches
 * of other builds beside it. Never throws: a cache that cannot be written is skipped.
 */
export function writeCodeCache(file: string, data: Uint8Array): boolean {
  const { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } = fs();
  const dir = dirname(file);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(temp, Buffer.concat([MAGIC, sha1(data), data]), { mode: 0o600 });
    renameSync(temp, file);
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch {
      // nothing more to do
    }
    return false;
  }
  const hash = /^tui-([0-9a-f]{32})-/.exec(basename(file))?.[1];
  try {
    for (const name of readdirSync(dir)) {
      const other = /^tui-([0-9a-f]{32})-.*\.v8(\.\d+\.tmp)?$/.exec(name);
      if (other && other[1] !== hash) rmSync(join(dir, name), { force: true });
    }
  } catch {
    // stale caches stay; they are only unused files
  }
  return true;
}
