// Model names and prices. Aliases follow Claude Code (`sonnet`, `opus`, `haiku`, `inherit`)
// so agent files from either ecosystem resolve to the same ids.
import type { Usage } from '../messages.js';
import type { ModelRef } from './types.js';

export const DEFAULT_MODEL = 'anthropic/claude-sonnet-4-6';

export const MODEL_ALIASES: Readonly<Record<string, string>> = {
  sonnet: 'anthropic/claude-sonnet-4-6',
  opus: 'anthropic/claude-opus-4-5',
  haiku: 'anthropic/claude-haiku-4-5',
};

/** `anthropic/claude-sonnet-4-5` → { provider, model }; a bare id belongs to anthropic. */
export function parseModelRef(ref: string): ModelRef {
  const trimmed = ref.trim();
  const slash = trimmed.indexOf('/');
  if (slash <= 0) return { provider: 'anthropic', model: trimmed };
  return { provider: trimmed.slice(0, slash), model: trimmed.slice(slash + 1) };
}

/**
 * A full `provider/id` for whatever an agent file, the config or a flag says. `inherit`
 * and an absent name mean the fallback (the parent's model, or the default).
 */
export function resolveModelName(name: string | undefined, fallback?: string): string {
  const trimmed = name?.trim();
  if (!trimmed || trimmed.toLowerCase() === 'inherit') return fallback ?? DEFAULT_MODEL;
  const alias = MODEL_ALIASES[trimmed.toLowerCase()];
  if (alias) return alias;
  return trimmed.includes('/') ? trimmed : `anthropic/${trimmed}`;
}

/** USD per million tokens. */
export interface Price {
  input: number;
  output: number;
}

// Keyed by id prefix so dated snapshots (`claude-sonnet-4-5-20250929`) price like their
// family; the longest matching prefix wins, so `claude-opus-4-1` beats `claude-opus-4`.
const PRICES: Readonly<Record<string, Price>> = {
  'claude-opus-4-6': { input: 5, output: 25 },
  'claude-opus-4-5': { input: 5, output: 25 },
  'claude-opus-4-1': { input: 15, output: 75 },
  'claude-opus-4': { input: 15, output: 75 },
  'claude-sonnet-4-6': { input: 3, output: 15 },
  'claude-sonnet-4-5': { input: 3, output: 15 },
  'claude-sonnet-4': { input: 3, output: 15 },
  'claude-3-7-sonnet': { input: 3, output: 15 },
  'claude-haiku-4-5': { input: 1, output: 5 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
  'claude-3-haiku': { input: 0.25, output: 1.25 },
};

// For ids the table does not know yet: a new snapshot of a family usually keeps its
// prices, and overestimating an unknown model is safer than reporting it as free.
const FAMILY_PRICES: ReadonlyArray<[family: string, price: Price]> = [
  ['opus', { input: 15, output: 75 }],
  ['haiku', { input: 1, output: 5 }],
  ['sonnet', { input: 3, output: 15 }],
];
const FALLBACK_PRICE: Price = { input: 3, output: 15 };

/** Prices of a model id, with or without its `provider/` prefix. */
export function priceOf(modelId: string): Price {
  const id = parseModelRef(modelId.toLowerCase()).model;
  let best: string | undefined;
  for (const key of Object.keys(PRICES)) {
    if (id.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  if (best !== undefined) return PRICES[best]!;
  return FAMILY_PRICES.find(([family]) => id.includes(family))?.[1] ?? FALLBACK_PRICE;
}

/** Cost in USD: cache writes cost 1.25× the input price, cache reads 0.1×. */
export function costOf(modelId: string, usage: Usage): number {
  const p = priceOf(modelId);
  const inputSide =
    usage.input_tokens * p.input + usage.cache_creation_input_tokens * p.input * 1.25 + usage.cache_read_input_tokens * p.input * 0.1;
  return (inputSide + usage.output_tokens * p.output) / 1_000_000;
}

/** A model's context window and the most output tokens one reply may have. */
export interface ModelLimit {
  context: number;
  output: number;
}

/** For models nobody told us about: small enough for most servers, large enough to work. */
export const DEFAULT_LIMIT: ModelLimit = { context: 128_000, output: 8_192 };

// Keyed by id prefix like PRICES (longest match wins).
const LIMITS: Readonly<Record<string, ModelLimit>> = {
  'claude-opus-4-6': { context: 200_000, output: 128_000 },
  'claude-opus-4-5': { context: 200_000, output: 64_000 },
  'claude-opus-4-1': { context: 200_000, output: 32_000 },
  'claude-opus-4': { context: 200_000, output: 32_000 },
  'claude-sonnet-4-6': { context: 200_000, output: 64_000 },
  'claude-sonnet-4-5': { context: 200_000, output: 64_000 },
  'claude-sonnet-4': { context: 200_000, output: 64_000 },
  'claude-3-7-sonnet': { context: 200_000, output: 64_000 },
  'claude-haiku-4-5': { context: 200_000, output: 64_000 },
  'claude-3-5-haiku': { context: 200_000, output: 8_192 },
  'claude-3-haiku': { context: 200_000, output: 4_096 },
};

/**
 * The limits of `provider/model`: the configured override (either field alone is fine),
 * else the built-in table for Anthropic models, else DEFAULT_LIMIT.
 */
export function limitOf(modelRef: string, override?: Partial<ModelLimit>): ModelLimit {
  const ref = parseModelRef(modelRef.toLowerCase());
  let base = DEFAULT_LIMIT;
  if (ref.provider === 'anthropic') {
    let best: string | undefined;
    for (const key of Object.keys(LIMITS)) {
      if (ref.model.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
    }
    if (best !== undefined) base = LIMITS[best]!;
  }
  return { context: override?.context ?? base.context, output: override?.output ?? base.output };
}

/** Models `/model` offers and accepts for Anthropic: the aliases, then every priced family. */
export function knownModels(): Array<{ name: string; description: string }> {
  return [
    ...Object.entries(MODEL_ALIASES).map(([alias, id]) => ({ name: alias, description: id })),
    ...Object.keys(PRICES).map((id) => ({ name: `anthropic/${id}`, description: `$${PRICES[id]!.input}/$${PRICES[id]!.output} per M tokens` })),
  ];
}

/**
 * Why `name` is not a model this program knows, or undefined when it is: an alias, a
 * priced Anthropic family, a dated snapshot of one (`claude-sonnet-4-5-20250929`) or its
 * `-latest`.
 * Ids under another provider (`openai/…`, `ollama/…`) cannot be listed offline and pass.
 */
export function modelProblem(name: string): string | undefined {
  const trimmed = name.trim();
  if (trimmed === '') return 'Name a model, e.g. /model sonnet.';
  const ref = parseModelRef(resolveModelName(trimmed));
  if (ref.provider !== 'anthropic') return undefined;
  const id = ref.model.toLowerCase();
  if (Object.keys(PRICES).some((key) => id === key || (id.startsWith(key) && /^-(?:\d{8}|latest)$/.test(id.slice(key.length))))) return undefined;
  const aliases = Object.keys(MODEL_ALIASES).join(', ');
  return `Unknown model "${trimmed}". Use ${aliases}, an Anthropic id such as anthropic/claude-sonnet-4-6, or provider/id for another provider (Tab completes).`;
}
