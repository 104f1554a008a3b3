// Per-model context windows and output limits (DESIGN §3, §12).
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config/schema.js';
import { DEFAULT_LIMIT, limitOf } from '../../src/core/provider/models.js';

describe('limitOf', () => {
  it('knows Claude models, dated snapshots included, and overrides either field', () => {
    expect(limitOf('anthropic/claude-sonnet-4-5-20250929')).toEqual({ context: 200_000, output: 64_000 });
    expect(limitOf('anthropic/claude-opus-4-1')).toEqual({ context: 200_000, output: 32_000 });
    expect(limitOf('anthropic/claude-haiku-4-5')).toEqual({ context: 200_000, output: 64_000 });
    expect(limitOf('anthropic/claude-sonnet-4-6', { context: 1_000_000 })).toEqual({ context: 1_000_000, output: 64_000 });
    expect(limitOf('anthropic/mystery-model')).toEqual(DEFAULT_LIMIT);
    expect(limitOf('ollama/llama3', { context: 32_768, output: 4096 })).toEqual({ context: 32_768, output: 4096 });
  });
});

describe('config', () => {
  it('accepts limits and compaction settings with defaults', () => {
    const c = ConfigSchema.parse({ provider: { anthropic: { models: { 'x-model': { limit: { context: 4000 } } } } } });
    expect(c.provider.anthropic?.models?.['x-model']?.limit).toEqual({ context: 4000 });
    expect(c.compaction).toEqual({ auto: true, threshold: 0.8, prune: true });
  });

  it('rejects bad values with the key path', () => {
    const bad = ConfigSchema.safeParse({ provider: { anthropic: { models: { m: { limit: { context: 'big' } } } } } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['provider', 'anthropic', 'models', 'm', 'limit', 'context']);
    expect(ConfigSchema.safeParse({ compaction: { threshold: 1.5 } }).success).toBe(false);
    expect(ConfigSchema.safeParse({ compaction: { auto: true, typo: 1 } }).success).toBe(false);
  });
});
