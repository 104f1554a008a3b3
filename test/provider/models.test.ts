// Model names, aliases and prices, and which models take an agent's `effort`.
import { describe, expect, it } from 'vitest';
import type { Usage } from '../../src/core/messages.js';
import { DEFAULT_MODEL, costOf, parseModelRef, priceOf, resolveModelName } from '../../src/core/provider/index.js';
import { effortOnWire, parseEffort } from '../../src/core/provider/effort.js';

const usage = (input: number, output: number, cacheWrite = 0, cacheRead = 0): Usage => ({
  input_tokens: input,
  output_tokens: output,
  cache_creation_input_tokens: cacheWrite,
  cache_read_input_tokens: cacheRead,
});
const MTOK = 1_000_000;

describe('resolveModelName', () => {
  it('defaults to sonnet 4.6, or to the fallback when one is given', () => {
    expect(DEFAULT_MODEL).toBe('anthropic/claude-sonnet-4-6');
    expect(resolveModelName(undefined)).toBe('anthropic/claude-sonnet-4-6');
    expect(resolveModelName(undefined, 'anthropic/claude-opus-4-1')).toBe('anthropic/claude-opus-4-1');
    expect(resolveModelName('')).toBe('anthropic/claude-sonnet-4-6');
  });

  it('makes inherit mean the fallback', () => {
    expect(resolveModelName('inherit', 'anthropic/claude-haiku-4-5')).toBe('anthropic/claude-haiku-4-5');
    expect(resolveModelName('inherit')).toBe(DEFAULT_MODEL);
  });

  it('expands the Claude Code aliases whatever the fallback', () => {
    expect(resolveModelName('sonnet', 'anthropic/claude-haiku-4-5')).toBe('anthropic/claude-sonnet-4-6');
    expect(resolveModelName('opus')).toBe('anthropic/claude-opus-4-5');
    expect(resolveModelName('haiku')).toBe('anthropic/claude-haiku-4-5');
    expect(resolveModelName('Haiku')).toBe('anthropic/claude-haiku-4-5');
  });

  it('prefixes bare ids with anthropic and keeps full names', () => {
    expect(resolveModelName('claude-3-5-haiku-20241022')).toBe('anthropic/claude-3-5-haiku-20241022');
    expect(resolveModelName('anthropic/claude-opus-4-5')).toBe('anthropic/claude-opus-4-5');
    expect(resolveModelName('other/some-model')).toBe('other/some-model');
  });
});

describe('parseModelRef', () => {
  it('splits provider and model at the first slash', () => {
    expect(parseModelRef('anthropic/claude-sonnet-4-5')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(parseModelRef('claude-sonnet-4-5')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(parseModelRef('x/y/z')).toEqual({ provider: 'x', model: 'y/z' });
  });
});

describe('costOf', () => {
  it('prices input, output, cache writes (1.25×) and cache reads (0.1×) for sonnet', () => {
    expect(costOf('claude-sonnet-4-5', usage(MTOK, 0))).toBeCloseTo(3, 10);
    expect(costOf('claude-sonnet-4-5', usage(0, MTOK))).toBeCloseTo(15, 10);
    expect(costOf('claude-sonnet-4-5', usage(0, 0, MTOK))).toBeCloseTo(3.75, 10);
    expect(costOf('claude-sonnet-4-5', usage(0, 0, 0, MTOK))).toBeCloseTo(0.3, 10);
    expect(costOf('claude-sonnet-4-5', usage(1234, 567))).toBeCloseTo((1234 * 3 + 567 * 15) / MTOK, 12);
    expect(costOf('claude-sonnet-4-20250514', usage(MTOK, MTOK, MTOK, MTOK))).toBeCloseTo(22.05, 10);
  });

  it('uses each model family its own prices', () => {
    const all = usage(MTOK, MTOK, MTOK, MTOK);
    expect(costOf('claude-opus-4-1', all)).toBeCloseTo(15 + 75 + 18.75 + 1.5, 10);
    expect(costOf('claude-opus-4-20250514', all)).toBeCloseTo(110.25, 10);
    expect(costOf('claude-haiku-4-5', all)).toBeCloseTo(1 + 5 + 1.25 + 0.1, 10);
    expect(costOf('claude-3-5-haiku-20241022', all)).toBeCloseTo(0.8 + 4 + 1 + 0.08, 10);
  });

  it('accepts provider-prefixed names and dated snapshots', () => {
    expect(priceOf('anthropic/claude-opus-4-1')).toEqual({ input: 15, output: 75 });
    expect(priceOf('claude-sonnet-4-5-20250929')).toEqual({ input: 3, output: 15 });
    expect(priceOf('claude-haiku-4-5-20251001')).toEqual({ input: 1, output: 5 });
  });

  it('falls back to the family for unknown ids and to sonnet for anything else', () => {
    expect(priceOf('claude-opus-9')).toEqual({ input: 15, output: 75 });
    expect(priceOf('claude-haiku-7')).toEqual({ input: 1, output: 5 });
    expect(priceOf('claude-sonnet-9')).toEqual({ input: 3, output: 15 });
    expect(priceOf('mystery-model')).toEqual({ input: 3, output: 15 });
    expect(costOf('mystery-model', usage(0, 0))).toBe(0);
  });
});

describe('effort on the wire', () => {
  it('fits each level to what the model takes, and sends none where it takes none', () => {
    const cases: Array<[string, string, string | undefined]> = [
      ['anthropic/claude-opus-4-7', 'xhigh', 'xhigh'],
      ['anthropic/claude-opus-4-6', 'xhigh', 'high'],
      ['anthropic/claude-opus-4-6', 'max', 'max'],
      ['anthropic/claude-sonnet-4-6', 'max', 'max'],
      ['anthropic/claude-opus-4-5-20251101', 'max', 'high'],
      ['anthropic/claude-opus-5', 'xhigh', 'xhigh'],
      ['anthropic/claude-sonnet-4-5-20250929', 'low', undefined],
      ['anthropic/claude-haiku-4-5', 'medium', undefined],
      ['anthropic/claude-3-7-sonnet-latest', 'high', undefined],
      ['openai/o3', 'max', 'high'],
      ['openai/gpt-5', 'low', 'low'],
      ['openai/gpt-4o', 'high', undefined],
      ['ollama/qwen3', 'medium', 'medium'],
    ];
    for (const [model, level, sent] of cases) expect([model, level, effortOnWire(model, parseEffort(level)!)]).toEqual([model, level, sent]);
    expect([parseEffort('HIGH'), parseEffort('extreme'), parseEffort(3)]).toEqual(['high', undefined, undefined]);
  });
});
