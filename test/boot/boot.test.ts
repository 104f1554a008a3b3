// The loader behind bin/opencode-ink.js: which bundle it picks, and the V8 code cache of the
// interactive UI's script: where it lives, that a missing, corrupt or rejected cache only
// costs a normal compile, and that writing one is atomic and never throws.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeCacheDir, loadScript, readCodeCache, wantsTui, writeCodeCache } from '../../src/boot/index.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'oci-boot-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const HASH = 'ab'.repeat(16);

/** A script in dist/tui.js's shape whose `main` draws its "first frame" and returns 7. */
function writeScript(file: string, hash = HASH): void {
  const body = [
    'var __ocTui = { main: async (argv, hooks) => { hooks?.onFirstFrame?.(); return argv.length + 7; },',
    // Enough code for V8 to have something to cache, compiled by running it.
    ...Array.from({ length: 50 }, (_, i) => `f${i}: (x) => x * ${i} + String(x).length,`),
    '};',
    'for (const k of Object.keys(__ocTui)) if (k !== "main") __ocTui[k](3);',
  ].join('\n');
  writeFileSync(file, `(function (require, __ocImportMeta, __ocImport) {"use strict";/*opencode-ink-tui:${hash}*/\n${body}\nreturn __ocTui;\n})\n`);
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

  it('removes the caches of other builds but keeps other Node versions of this one', () => {
    const other = 'cd'.repeat(16);
    for (const name of [`tui-${other}-v1-x64.v8`, `tui-${other}-v1-x64.v8.123.tmp`, `tui-${HASH}-v2-x64.v8`, 'unrelated.txt']) writeFileSync(join(dir, name), 'x');
    writeCodeCache(join(dir, `tui-${HASH}-v1-x64.v8`), Buffer.from('x'));
    expect(readdirSync(dir).sort()).toEqual([`tui-${HASH}-v1-x64.v8`, `tui-${HASH}-v2-x64.v8`, 'unrelated.txt']);
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

describe('the built dist/tui.js', () => {
  it('names its code cache by the hash of its content', () => {
    const text = readFileSync(join(import.meta.dirname, '..', '..', 'dist', 'tui.js'), 'utf8');
    const firstLine = text.slice(0, text.indexOf('\n'));
    const hash = /opencode-ink-tui:([0-9a-f]{32})/.exec(firstLine)?.[1];
    const body = text.slice(text.indexOf('\n') + 1, text.lastIndexOf('return __ocTui;'));
    expect(hash).toBe(createHash('sha256').update(body).digest('hex').slice(0, 32));
  });
});
