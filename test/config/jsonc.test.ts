import { describe, expect, it } from 'vitest';
import { JsoncSyntaxError, parseJsonc } from '../../src/core/config/jsonc.js';

function syntaxError(text: string): JsoncSyntaxError {
  try {
    parseJsonc(text);
  } catch (err) {
    if (err instanceof JsoncSyntaxError) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('parseJsonc', () => {
  it('parses plain JSON exactly like JSON.parse', () => {
    const text = '{"a": [1, -2.5e3, true, false, null], "b": {"c": "d\\n\\u00e9\\"\\\\"}, "e": ""}';
    expect(parseJsonc(text)).toEqual(JSON.parse(text));
  });

  it('skips line and block comments and allows trailing commas', () => {
    const text = '\uFEFF// head\n{ /* one */ "a": 1, // two\n "b": [1, 2, /* three */], }\n/* tail */';
    expect(parseJsonc(text)).toEqual({ a: 1, b: [1, 2] });
  });

  it('leaves comment markers inside strings alone', () => {
    expect(parseJsonc('{"url": "http://x/*y*/", "c": "// no"}')).toEqual({ url: 'http://x/*y*/', c: '// no' });
  });

  it('returns undefined for a file with only blanks and comments', () => {
    expect(parseJsonc('')).toBeUndefined();
    expect(parseJsonc('  // nothing\n/* here */\n')).toBeUndefined();
  });

  it('keeps a "__proto__" key as plain data', () => {
    const value = parseJsonc('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('points at the line and column of the problem', () => {
    expect(syntaxError('{\n  "a": 1\n  "b": 2\n}')).toMatchObject({ line: 3, column: 3 });
    expect(syntaxError('{\n  "a": tru\n}')).toMatchObject({ line: 2, column: 8, reason: 'unexpected "t", expected a value' });
    expect(syntaxError('{"a": 1')).toMatchObject({ line: 1, column: 8, reason: 'unexpected end of file, expected "," or "}" after a property value' });
    expect(syntaxError('{"a": "x\ny"}').reason).toMatch(/line break or control character/);
    expect(syntaxError('{"a": 1} x').reason).toBe('unexpected text after the end of the JSON value');
    expect(syntaxError('/* open').reason).toBe('unterminated /* comment');
    expect(syntaxError('{\'a\': 1}').reason).toBe('expected a property name in double quotes, found "\'"');
    expect(syntaxError('{"a": "x').reason).toBe('unterminated string');
  });
});
