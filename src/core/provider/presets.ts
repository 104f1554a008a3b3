// Built-in OpenAI-compatible presets (DESIGN §13) and a small price table for OpenAI's own
// models. A preset applies when its name is used without configuration; a config entry of
// the same name overrides its fields one by one (a remote Ollama only sets `baseURL`).
import type { ModelEntry } from '../config/provider-schema.js';
import type { Price } from './models.js';

export interface OpenAIPreset {
  baseURL: string;
  /** The environment variable holding the key; absent for servers that need none. */
  keyEnv?: string;
  /** Known models listed by `opencode-ink models` even when the config names none. */
  models: Readonly<Record<string, ModelEntry>>;
  /** Said when the server cannot be reached, after "Cannot reach …". */
  unreachableHint: string;
  /** OpenAI's newer models refuse `max_tokens` and want `max_completion_tokens`. */
  maxTokensParam: 'max_tokens' | 'max_completion_tokens';
}

/** USD per million tokens; `cache_read` is the price of cached input. */
export interface OpenAIPrice extends Price {
  cache_read?: number;
}

// Keyed by id prefix; the longest matching prefix wins (`gpt-4.1-mini` beats `gpt-4.1`).
// Public list prices; a config `cost` always wins over this table.
export const OPENAI_PRICES: Readonly<Record<string, OpenAIPrice>> = {
  'gpt-5': { input: 1.25, output: 10, cache_read: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cache_read: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cache_read: 0.005 },
  'gpt-4.1': { input: 2, output: 8, cache_read: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cache_read: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cache_read: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cache_read: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cache_read: 0.075 },
  o3: { input: 2, output: 8, cache_read: 0.5 },
  'o3-mini': { input: 1.1, output: 4.4, cache_read: 0.55 },
  'o4-mini': { input: 1.1, output: 4.4, cache_read: 0.275 },
};

const OPENAI_CONTEXT: Readonly<Record<string, number>> = {
  'gpt-5': 400_000,
  'gpt-5-mini': 400_000,
  'gpt-4.1': 1_047_576,
  'gpt-4.1-mini': 1_047_576,
  'gpt-4o': 128_000,
  'gpt-4o-mini': 128_000,
  o3: 200_000,
  'o4-mini': 200_000,
};

export const PRESETS: Readonly<Record<string, OpenAIPreset>> = {
  openai: {
    baseURL: 'https://api.openai.com/v1',
    keyEnv: 'OPENAI_API_KEY',
    models: Object.fromEntries(
      // Every model listed here takes images too.
      Object.entries(OPENAI_CONTEXT).map(([id, context]) => [id, { limit: { context }, cost: OPENAI_PRICES[id]!, images: true }]),
    ),
    unreachableHint: 'check the network connection',
    maxTokensParam: 'max_completion_tokens',
  },
  ollama: {
    baseURL: 'http://127.0.0.1:11434/v1',
    models: {},
    unreachableHint: 'is Ollama running?',
    maxTokensParam: 'max_tokens',
  },
};

/** The table price of an OpenAI model id (dated snapshots price like their family). */
export function openAIPriceOf(modelId: string): OpenAIPrice | undefined {
  const id = modelId.toLowerCase();
  let best: string | undefined;
  for (const key of Object.keys(OPENAI_PRICES)) {
    if ((id === key || id.startsWith(`${key}-`)) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : OPENAI_PRICES[best];
}
