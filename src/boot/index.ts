// Loaded by bin/opencode-ink.js (as dist/boot.cjs, CommonJS) to pick how the CLI starts. The
// interactive UI runs from dist/tui.js and `run` (or `-p`) from dist/run.js: the CLI as one
// classic script each, which V8 can compile from a code cache (Node 20 has none for ES
// modules). The first start stores the compiled code once the UI's first frame is drawn, or
// once the run is over; later starts skip most of the compiling. Every other command imports
// dist/cli.js, the ES module bundle, which never loads the UI.
//
// The cache is an optimisation only: a missing, corrupt or rejected file means compiling as
// usual, and failing to write one is ignored.
import { createRequire } from 'node:module';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { StartupHooks } from '../cli/main.js';
import { startupMark } from '../cli/startup-mark.js';
import { lazyBuiltin } from './lazy-builtin.js';

// Every command loads this module, so it requires what it uses when it uses it: importing
// node:crypto or node:fs as ES modules up front builds their namespaces (running lazy
// getters such as Web Crypto's), which took this module from ~2 to ~6 ms.
const require = createRequire(import.meta.url);
const fs = () => require('node:fs') as typeof import('node:fs');

export type Main = (argv: string[], hooks?: StartupHooks) => Promise<number>;

/** Arguments that name a command (or help) rather than the interactive UI. */
const COMMAND_WORDS = new Set(['run', 'sessions', 'agents', 'acp', 'help', '--help', '-h', '--version', '-v', '-p', '--print']);

/** The script's name and hash, which the build writes into its first line. */
const SCRIPT_MARK = /\/\*opencode-ink-script:(tui|run):([0-9a-f]{32})\*\//;

export type ScriptName = 'tui' | 'run';

const MAGIC = Buffer.from('OCV8');
const HEADER_BYTES = MAGIC.length + 20; // magic, then the SHA-1 of the V8 data

/** Whether these arguments start the interactive UI (a guess: only the speed differs if wrong). */
export function wantsTui(argv: readonly string[], interactive: boolean): boolean {
  return interactive && !argv.some((a) => COMMAND_WORDS.has(a));
}

/**
 * The code-cached script that serves these arguments, if any. dist/run.js lacks the UI, so
 * it is picked only when the first argument makes it certain that no UI starts: `run`, or
 * `-p` (with which the top-level command always prints instead).
 */
export function scriptFor(argv: readonly string[], interactive: boolean): ScriptName | undefined {
  const first = argv[0];
  if (first === 'run' || first === '-p' || first === '--print') return 'run';
  return wantsTui(argv, interactive) ? 'tui' : undefined;
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

/** The CLI's `main`: from dist/tui.js for the interactive UI, dist/run.js for `run`, else from dist/cli.js. */
export async function loadMain(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Main> {
  startupMark('boot:start');
  const here = dirname(fileURLToPath(import.meta.url));
  // Asked of the descriptors, not of process.stdin: creating that stream (a file or pipe
  // reader when stdin is not a terminal) loads Node's stream modules, ~4 ms a run need not pay.
  const { isatty } = require('node:tty') as typeof import('node:tty');
  const name = scriptFor(argv, isatty(0) && isatty(1));
  if (name) {
    const script = loadScript(join(here, `${name}.js`), codeCacheDir(env));
    if (script) {
      // In the start-up trace (OPENCODE_INK_TRACE_STARTUP): whether the cache was used.
      startupMark(`boot:code-cache-${script.cache}`);
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
  lazyRequire: (id: string) => object,
) => { main: Main };

/** A built-in the script may never use, loaded at its first use (lazy-builtin.ts, scripts/cli-script.mjs LAZY_BUILTINS). */
const lazyRequire = (id: string): object => lazyBuiltin(() => require(id) as object);

export interface LoadedScript {
  main: Main;
  /**
   * `used`: compiled from the user's cache; `seeded`: from the one the build made (see
   * seedCodeCache), the user's written later; `stale`: none or rejected, written later;
   * `off`: no cache folder.
   */
  cache: 'used' | 'seeded' | 'stale' | 'off';
}

/** The cache file of script `name` with content `hash`, for this Node version and architecture. */
function cacheFileName(name: string, hash: string): string {
  // V8 rejects data from another V8 version or flags; the name keeps one per Node version.
  return `${name}-${hash}-${process.version}-${process.arch}.v8`;
}

/** Where the build leaves its cache of the scripts beside them (dist/cache). */
export function seedCacheDir(scriptFile: string): string {
  return join(dirname(scriptFile), 'cache');
}

/**
 * Compiles and runs the script at `file` (using and later writing a code cache in `cacheDir`)
 * and returns its `main`; undefined when the file is missing or not one of the CLI's scripts.
 * A stale cache is written once the compiled code worth caching has run: for the UI after
 * its first frame, for `run` when `main` returns (then synchronously: the process exits next).
 */
export function loadScript(file: string, cacheDir: string | undefined): LoadedScript | undefined {
  let source: string;
  try {
    // The build keeps the scripts ASCII (scripts/cli-script.mjs): Latin-1 reads the same text, faster.
    source = fs().readFileSync(file, 'latin1');
  } catch {
    return undefined;
  }
  const mark = SCRIPT_MARK.exec(source.slice(0, 500));
  if (!mark) return undefined;
  const [, name, hash] = mark;
  const cacheFile = cacheDir ? join(cacheDir, cacheFileName(name!, hash!)) : undefined;
  const userData = cacheFile ? readCodeCache(cacheFile) : undefined;
  // The first start after installing has no cache of its own yet: the build's, if it made one.
  const cachedData = userData ?? readCodeCache(join(seedCacheDir(file), cacheFileName(name!, hash!)));
  const vm = require('node:vm') as typeof import('node:vm');
  const script = new vm.Script(source, { filename: file, ...(cachedData ? { cachedData } : {}) });
  startupMark('boot:compiled');
  const compiledFromCache = cachedData !== undefined && script.cachedDataRejected !== true;
  const url = pathToFileURL(file).href;
  const factory = script.runInThisContext() as ScriptFactory;
  const { main } = factory(createRequire(file), { url, filename: file, dirname: dirname(file) }, (specifier) => import(new URL(specifier, url).href), lazyRequire);
  if (!cacheFile) return { main, cache: 'off' };
  if (compiledFromCache && userData) return { main, cache: 'used' };
  // The build's cache holds the start-up code only: the user's, written later, holds more.
  const cache = compiledFromCache ? 'seeded' : 'stale';
  let saved = false;
  const save = () => {
    if (saved) return;
    saved = true;
    try {
      writeCodeCache(cacheFile, script.createCachedData());
    } catch {
      // no cache this time
    }
  };
  if (name === 'run') {
    return {
      cache,
      main: async (argv, hooks) => {
        const code = await main(argv, hooks);
        save();
        return code;
      },
    };
  }
  // The compiled code worth caching is what the start-up ran: write it after the first frame.
  return {
    cache,
    main: (argv, hooks) =>
      main(argv, {
        ...hooks,
        onFirstFrame: () => {
          hooks?.onFirstFrame?.();
          setImmediate(save);
        },
      }),
  };
}

/**
 * Run by the build (scripts/build.mjs), in a process of its own: compiles the script at
 * `file`, evaluates its modules as every start does (no command runs) and writes the
 * compiled code to seedCacheDir(file), so that the first start after installing need not
 * compile from scratch. Returns the file written, or undefined when that failed (the build
 * goes on: the cache is an optimisation).
 */
export function seedCodeCache(scriptFile: string): string | undefined {
  const file = resolve(scriptFile);
  const source = fs().readFileSync(file, 'latin1');
  const mark = SCRIPT_MARK.exec(source.slice(0, 500));
  if (!mark) return undefined;
  const vm = require('node:vm') as typeof import('node:vm');
  const script = new vm.Script(source, { filename: file });
  const url = pathToFileURL(file).href;
  (script.runInThisContext() as ScriptFactory)(createRequire(file), { url, filename: file, dirname: dirname(file) }, (specifier) => import(new URL(specifier, url).href), lazyRequire);
  const target = join(seedCacheDir(file), cacheFileName(mark[1]!, mark[2]!));
  // Readable by everyone: a global install is shared by the machine's users.
  return writeCodeCache(target, script.createCachedData(), 0o644) ? target : undefined;
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
export function writeCodeCache(file: string, data: Uint8Array, mode = 0o600): boolean {
  const { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } = fs();
  const dir = dirname(file);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    // A user's cache is private (0700/0600, as the data dir); the build's is shared (0755/0644).
    mkdirSync(dir, { recursive: true, mode: mode | ((mode & 0o444) >> 2) });
    writeFileSync(temp, Buffer.concat([MAGIC, sha1(data), data]), { mode });
    renameSync(temp, file);
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch {
      // nothing more to do
    }
    return false;
  }
  const [, script, hash] = /^(\w+)-([0-9a-f]{32})-/.exec(basename(file)) ?? [];
  try {
    for (const name of readdirSync(dir)) {
      const other = /^(\w+)-([0-9a-f]{32})-.*\.v8(\.\d+\.tmp)?$/.exec(name);
      if (other && other[1] === script && other[2] !== hash) rmSync(join(dir, name), { force: true });
    }
  } catch {
    // stale caches stay; they are only unused files
  }
  return true;
}
