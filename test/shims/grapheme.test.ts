// The bundle's stand-ins for Intl.Segmenter and string-width (src/shims/, wired in by
// scripts/grapheme-plugins.mjs) must answer exactly as the real ones on any text: checked
// here against them on random strings mixing the characters the fast paths take with ones
// they must leave to ICU (combining marks, emoji, CJK, Hangul, CR LF, ANSI codes).
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { narrowPattern, simpleGraphemeCodePoints, simpleGraphemePattern } from '../../scripts/grapheme-allowlist.mjs';
import { lazySegmenterClass } from '../../src/shims/intl-segmenter.js';
import { fastStringWidth, type StringWidth } from '../../src/shims/string-width.js';

const REPO = join(import.meta.dirname, '..', '..');
let codePoints: number[];

beforeAll(() => {
  codePoints = simpleGraphemeCodePoints();
});

/** Deterministic random strings from a pool of characters and fragments. */
function* samples(count: number, pool: readonly string[], seed = 1): Generator<string> {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < count; i++) {
    let s = '';
    const length = Math.floor(next() * 12);
    for (let j = 0; j < length; j++) s += pool[Math.floor(next() * pool.length)]!;
    yield s;
  }
}

function pool(): string[] {
  const allowed = codePoints.filter((_, i) => i % 7 === 0).map((cp) => String.fromCodePoint(cp));
  return [
    ...'ab ~·─│╭╮…→✓⠋█▶é',
    ...allowed,
    '\u0301', // combining acute
    '\u200d', // zero-width joiner
    '\ufe0f', // emoji presentation selector
    '👍',
    '👨‍👩‍👧',
    '🇫🇷',
    '漢',
    '한',
    '\u1100\u1161',
    '\r',
    '\n',
    '\t',
    '\r\n',
    '\u001b[31m',
    '\u001b[39m',
    '\u001b]8;;https://x\u0007',
    '\u009b1m',
    '\u00ad', // soft hyphen
    '\u0600', // Arabic number sign (prepend)
    '\u0e33', // Thai sara am (spacing mark)
    '\ud800', // lone surrogate
  ];
}

describe('the lazy Intl.Segmenter', () => {
  it('splits every string as the native segmenter does', () => {
    const Lazy = lazySegmenterClass(Intl.Segmenter, new RegExp(simpleGraphemePattern(codePoints)));
    const lazy = new Lazy();
    const native = new Intl.Segmenter();
    for (const s of samples(4000, pool())) {
      expect([...lazy.segment(s)], JSON.stringify(s)).toEqual([...native.segment(s)]);
      for (const i of [-1, 0, 1, s.length - 1, s.length]) expect(lazy.segment(s).containing(i)).toEqual(native.segment(s).containing(i));
    }
  });

  it('creates the native segmenter only for text that needs it', () => {
    let created = 0;
    const Counting = class extends Intl.Segmenter {
      constructor(...args: ConstructorParameters<typeof Intl.Segmenter>) {
        super(...args);
        created++;
      }
    };
    const Lazy = lazySegmenterClass(Counting, new RegExp(simpleGraphemePattern(codePoints)));
    const segmenter = new Lazy(undefined, { granularity: 'grapheme' });
    const plain = '\u001b[1m╭─ build · ok ─╮\u001b[22m';
    expect([...segmenter.segment(plain)].map((s) => s.segment)).toEqual([...plain]);
    expect(created).toBe(0);
    expect([...segmenter.segment('e\u0301')].map((s) => s.segment)).toEqual(['e\u0301']);
    expect(created).toBe(1);
    const words = new Lazy('en', { granularity: 'word' });
    expect([...words.segment('two words')].map((s) => s.segment)).toEqual(['two', ' ', 'words']);
    expect(words.resolvedOptions().granularity).toBe('word');
  });
});

describe('the fast string-width', () => {
  // Ink's copy, and wrap-ansi's older one when npm nested it.
  const versions = [join(REPO, 'node_modules', 'string-width', 'index.js'), join(REPO, 'node_modules', 'wrap-ansi', 'node_modules', 'string-width', 'index.js')].filter((f) => existsSync(f));

  it.each(versions)('measures every string as %s does', async (file) => {
    const real = ((await import(pathToFileURL(file).href)) as { default: StringWidth }).default;
    const stripAnsiFile = createRequire(file).resolve('strip-ansi');
    const stripAnsi = ((await import(pathToFileURL(stripAnsiFile).href)) as { default: (s: string) => string }).default;
    let loaded = 0;
    const fast = fastStringWidth(
      () => {
        loaded++;
        return real;
      },
      stripAnsi,
      new RegExp(narrowPattern(real, codePoints)),
    );
    expect(fast('\u001b[2m╭─ build · claude-sonnet-4-6 · $0.00 ─╮\u001b[22m')).toBe(real('\u001b[2m╭─ build · claude-sonnet-4-6 · $0.00 ─╮\u001b[22m'));
    expect(loaded).toBe(0);
    const options = [undefined, {}, { ambiguousIsNarrow: false }, { ambiguousIsNarrow: true }, { countAnsiEscapeCodes: true }];
    for (const s of samples(3000, pool(), 7)) {
      for (const o of options) expect(fast(s, o), `${JSON.stringify(s)} ${JSON.stringify(o)}`).toBe(real(s, o));
    }
    expect(dirname(stripAnsiFile)).toContain('strip-ansi');
  });
});
