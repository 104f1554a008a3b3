// The loader behind bin/opencode-ink.js: which bundle it picks, and the V8 code cache of the
// scripts for the interactive UI and for `run`: where it lives, when it is written, that a
// missing, corrupt or rejected cache only costs a normal compile, and that writing one is
// atomic and never throws.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeCacheDir, loadScript, readCodeCache, scriptFor, seedCacheDir, seedCodeCache, wantsTui, writeCodeCache, type ScriptName } from '../../src/boot/index.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'oci-boot-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const HASH = 'ab'.repeat(16);

/** A script in dist/tui.js's (or run.js's) shape whose `main` draws its "first frame" and returns 7 + its argument count. */
function writeScript(file: string, hash = HASH, name: ScriptName = 'tui'): void {
  const body = [
    'var __ocCli = { main: async (argv, hooks) => { hooks?.onFirstFrame?.(); return argv.length + 7; },',
    // Enough code for V8 to have something to cache, compiled by running it.
    ...Array.from({ length: 50 }, (_, i) => `f${i}: (x) => x * ${i} + String(x).length,`),
    '};',
    'for (const k of Object.keys(__ocCli)) if (k !== "main") __ocCli[k](3);',
  ].join('\n');
  writeFileSync(file, `(function (require, __ocImportMeta, __ocImport) {"use strict";/*opencode-ink-script:${name}:${hash}*/\n${body}\nreturn __ocCli;\n})\n`);
}

const nextTick = () => new Promise((resolve) => setImmediate(resolve));

describe('wantsTui', () => {
  it('is the UI in a terminal unless a command or help is named', () => {
    expect(wantsTui([], true)).toBe(true);
    expect(wantsTui(['fix the tests', '-m', 'anthropic/x'], true)).toBe(true);
    expect(wantsTui([], false)).toBe(false);
    for (const word of ['run', 'sessions', 'agents', 'help', '--help', '-h', '--version', '-p', '--print']) expect(wantsTui([word, 'x'], true)).toBe(false);
  });
});

describe('scriptFor', () => {
  it('serves `run` and `-p` from dist/run.js, in a terminal or not', () => {
    for (const interactive of [true, false]) {
      expect(scriptFor(['run', 'say ok'], interactive)).toBe('run');
      expect(scriptFor(['-p', 'say ok'], interactive)).toBe('run');
      expect(scriptFor(['--print', '-m', 'x/y', 'say ok'], interactive)).toBe('run');
    }
  });

  it('leaves arguments that only might not start the UI to dist/cli.js, which has it', () => {
    // `--agent run` starts the UI with an agent named "run": dist/run.js cannot draw it.
    expect(scriptFor(['--agent', 'run'], true)).toBeUndefined();
    expect(scriptFor(['--debug', 'run', 'x'], true)).toBeUndefined();
    expect(scriptFor(['sessions'], true)).toBeUndefined();
    expect(scriptFor([], false)).toBeUndefined();
    expect(scriptFor(['fix the tests'], true)).toBe('tui');
  });
});

describe('codeCacheDir', () => {
  it('uses the data folder, else the XDG cache folder, else ~/.cache', () => {
    expect(codeCacheDir({ OPENCODE_INK_DATA_DIR: '/d', XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe(join('/d', 'cache'));
    expect(codeCacheDir({ OPENCODE_INK_DATA_DIR: '', XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe(join('/x', 'opencode-ink'));
    expect(codeCacheDir({ XDG_CACHE_HOME: '', HOME: '/h' })).toBe(join('/h', '.cache', 'opencode-ink'));
  });

  it('has none for a relative folder, which would land in the project', () => {
    expect(codeCacheDir({ OPENCODE_INK_DATA_DIR: 'data', HOME: '/h' })).toBeUndefined();
    expect(codeCacheDir({ XDG_CACHE_HOME: 'cache', HOME: '/h' })).toBeUndefined();
  });
});

describe('the cache file', () => {
  it('reads back what was written, and leaves no temporary file', () => {
    const file = join(dir, 'sub', `tui-${HASH}-v1-x64.v8`);
    expect(writeCodeCache(file, Buffer.from('compiled code'))).toBe(true);
    expect(readCodeCache(file)?.toString()).toBe('compiled code');
    expect(readdirSync(join(dir, 'sub'))).toEqual([`tui-${HASH}-v1-x64.v8`]);
  });

  it('ignores a missing, truncated, corrupt or foreign file', () => {
    const file = join(dir, `tui-${HASH}-v1-x64.v8`);
    expect(readCodeCache(file)).toBeUndefined();
    writeCodeCache(file, Buffer.from('compiled code'));
    const good = readFileSync(file);
    writeFileSync(file, good.subarray(0, good.length - 3));
    expect(readCodeCache(file)).toBeUndefined();
    const flipped = Buffer.from(good);
    flipped.writeUInt8(flipped.readUInt8(flipped.length - 1) ^ 1, flipped.length - 1);
    writeFileSync(file, flipped);
    expect(readCodeCache(file)).toBeUndefined();
    writeFileSync(file, 'not a cache at all');
    expect(readCodeCache(file)).toBeUndefined();
  });

  it('does not throw when the folder cannot be created or written', () => {
    writeFileSync(join(dir, 'a-file'), '');
    expect(writeCodeCache(join(dir, 'a-file', `tui-${HASH}-v1-x64.v8`), Buffer.from('x'))).toBe(false);
    if (process.getuid?.() !== 0) {
      const locked = join(dir, 'locked');
      mkdirSync(locked, { mode: 0o500 });
      expect(writeCodeCache(join(locked, `tui-${HASH}-v1-x64.v8`), Buffer.from('x'))).toBe(false);
      chmodSync(locked, 0o700);
      expect(readdirSync(locked)).toEqual([]);
    }
  });

  it('removes the caches of other builds but keeps other Node versions and the other script', () => {
    const other = 'cd'.repeat(16);
    const names = [`tui-${other}-v1-x64.v8`, `tui-${other}-v1-x64.v8.123.tmp`, `tui-${HASH}-v2-x64.v8`, `run-${other}-v1-x64.v8`, 'unrelated.txt'];
    for (const name of names) writeFileSync(join(dir, name), 'x');
    writeCodeCache(join(dir, `tui-${HASH}-v1-x64.v8`), Buffer.from('x'));
    expect(readdirSync(dir).sort()).toEqual([`run-${other}-v1-x64.v8`, `tui-${HASH}-v1-x64.v8`, `tui-${HASH}-v2-x64.v8`, 'unrelated.txt']);
  });
});

describe('loadScript', () => {
  it('compiles, writes the cache after the first frame, then compiles from it', async () => {
    const script = join(dir, 'tui.js');
    writeScript(script);
    const cache = join(dir, 'cache');

    const first = loadScript(script, cache);
    expect(first?.cache).toBe('stale');
    let drawn = 0;
    expect(await first!.main(['a'], { onFirstFrame: () => drawn++ })).toBe(8);
    expect(drawn).toBe(1);
    await nextTick();
    const files = readdirSync(cache);
    expect(files).toEqual([`tui-${HASH}-${process.version}-${process.arch}.v8`]);

    const second = loadScript(script, cache);
    expect(second?.cache).toBe('used');
    expect(await second!.main([])).toBe(7);
  });

  it("writes run's cache as `main` returns, before the process may exit, then compiles from it", async () => {
    const script = join(dir, 'run.js');
    writeScript(script, HASH, 'run');
    const cache = join(dir, 'cache');
    const first = loadScript(script, cache);
    expect(first?.cache).toBe('stale');
    expect(await first!.main(['run', 'x'])).toBe(9);
    // No tick in between: bin/opencode-ink.js exits right after `main`.
    expect(readdirSync(cache)).toEqual([`run-${HASH}-${process.version}-${process.arch}.v8`]);
    const second = loadScript(script, cache);
    expect(second?.cache).toBe('used');
    expect(await second!.main([])).toBe(7);
  });

  it("starts from the build's cache beside the script until the user's own is written", async () => {
    const script = join(dir, 'run.js');
    writeScript(script, HASH, 'run');
    const seeded = seedCodeCache(script);
    expect(seeded).toBe(join(seedCacheDir(script), `run-${HASH}-${process.version}-${process.arch}.v8`));
    expect(readCodeCache(seeded!)).toBeDefined();
    const userCache = join(dir, 'user-cache');

    const first = loadScript(script, userCache);
    expect(first?.cache).toBe('seeded');
    expect(await first!.main(['run'])).toBe(8);
    // The user's cache holds what the run compiled too; from now on it is the one used.
    expect(readdirSync(userCache)).toEqual([`run-${HASH}-${process.version}-${process.arch}.v8`]);
    expect(loadScript(script, userCache)?.cache).toBe('used');
  });

  it("compiles as usual when the build's cache is rejected or corrupt", async () => {
    const script = join(dir, 'tui.js');
    writeScript(script);
    const seed = join(seedCacheDir(script), `tui-${HASH}-${process.version}-${process.arch}.v8`);
    writeCodeCache(seed, Buffer.alloc(4096, 7));
    expect(loadScript(script, join(dir, 'user-cache'))?.cache).toBe('stale');
    writeFileSync(seed, 'OCV8 not a cache at all');
    const loaded = loadScript(script, join(dir, 'user-cache-2'));
    expect(loaded?.cache).toBe('stale');
    expect(await loaded!.main([])).toBe(7);
  });

  it('compiles as usual when V8 rejects the cache, and replaces it', async () => {
    const script = join(dir, 'tui.js');
    writeScript(script);
    const cacheFile = join(dir, `tui-${HASH}-${process.version}-${process.arch}.v8`);
    // Well-formed for our checks, but not V8 data.
    writeCodeCache(cacheFile, Buffer.alloc(4096, 7));
    const loaded = loadScript(script, dir);
    expect(loaded?.cache).toBe('stale');
    expect(await loaded!.main([])).toBe(7);
    await nextTick();
    expect(loadScript(script, dir)?.cache).toBe('used');
  });

  it('does not use the cache of a different build of the same length', async () => {
    const script = join(dir, 'tui.js');
    writeScript(script);
    await loadScript(script, dir)!.main([]);
    await nextTick();
    writeScript(script, 'ef'.repeat(16));
    expect(loadScript(script, dir)?.cache).toBe('stale');
  });

  it('runs without a cache folder, and gives up on a missing or foreign script', async () => {
    const script = join(dir, 'tui.js');
    writeScript(script);
    const loaded = loadScript(script, undefined);
    expect(loaded?.cache).toBe('off');
    expect(await loaded!.main([])).toBe(7);
    expect(loadScript(join(dir, 'missing.js'), dir)).toBeUndefined();
    writeFileSync(join(dir, 'other.js'), '(function () {})');
    expect(loadScript(join(dir, 'other.js'), dir)).toBeUndefined();
  });

  it('keeps working when the cache cannot be written', async () => {
    const script = join(dir, 'tui.js');
    writeScript(script);
    writeFileSync(join(dir, 'a-file'), '');
    const loaded = loadScript(script, join(dir, 'a-file', 'cache'));
    expect(await loaded!.main([])).toBe(7);
    await nextTick();
    expect(existsSync(join(dir, 'a-file', 'cache'))).toBe(false);
  });
});

describe.each(['tui', 'run'])('the built dist/%s.js', (name) => {
  const text = () => readFileSync(join(import.meta.dirname, '..', '..', 'dist', `${name}.js`), 'utf8');

  it('names its code cache by the hash of its content', () => {
    const source = text();
    const firstLine = source.slice(0, source.indexOf('\n'));
    const hash = new RegExp(`opencode-ink-script:${name}:([0-9a-f]{32})`).exec(firstLine)?.[1];
    const body = source.slice(source.indexOf('\n') + 1, source.lastIndexOf('return __ocCli;'));
    expect(hash).toBe(createHash('sha256').update(body).digest('hex').slice(0, 32));
  });
});

describe('the built dist/run.js', () => {
  it('carries neither the UI nor the editor protocol, and has the Anthropic client inside', () => {
    const source = readFileSync(join(import.meta.dirname, '..', '..', 'dist', 'run.js'), 'utf8');
    expect(source).not.toContain('react-reconciler');
    expect(source).not.toContain('session/prompt');
    expect(source).toContain('dist/run.js does not include the interactive UI');
    expect(source).toMatch(/MessagesClient\w*=class extends BaseAnthropic/);
    // Only the Messages API: the SDK's full client class is left out.
    expect(source).not.toMatch(/class Anthropic\w* extends BaseAnthropic/);
  });
});
