// What a provider name means under a configuration: the built-in `anthropic`, a preset
// (`openai`, `ollama`) with any config fields laid over it, or a `provider.<name>` entry of
// its own. One resolution serves creating providers, pricing, credential checks and the
// `models` command, so they never disagree about a provider.
import { closeMatches } from '../commands/parse.js';
import type { Config } from '../config/index.js';
import type { CustomProviderConfig, ModelEntry, ProviderType } from '../config/provider-schema.js';
import { ConfigError } from '../errors.js';
import type { Usage } from '../messages.js';
import { costOf, MODEL_ALIASES, parseModelRef, priceOf, type Price } from './models.js';
import { openAIPriceOf, PRESETS } from './presets.js';

export interface ResolvedProvider {
  name: string;
  type: ProviderType;
  /** Where requests go; undefined = the SDK default (Anthropic). */
  baseURL: string | undefined;
  apiKey: string | undefined;
  /** The environment variable the key comes from by default, if any. */
  keyEnv: string | undefined;
  /** True when requests cannot be sent without a key. */
  needsKey: boolean;
  headers: Readonly<Record<string, string>> | undefined;
  models: Readonly<Record<string, ModelEntry>>;
  /** `builtin` for presets used as they are, `config` when the config names the provider. */
  source: 'builtin' | 'config';
  entry: CustomProviderConfig | undefined;
}

type ProviderConfig = Pick<Config, 'provider'>;

function customEntry(config: ProviderConfig, name: string): CustomProviderConfig | undefined {
  if (name === 'anthropic' || !Object.hasOwn(config.provider, name)) return undefined;
  return config.provider[name];
}

/** Every provider name usable here: the built-ins, then the configured ones. */
export function providerNames(config: ProviderConfig): string[] {
  const names = ['anthropic', ...Object.keys(PRESETS)];
  for (const name of Object.keys(config.provider)) if (!names.includes(name)) names.push(name);
  return names;
}

/** The provider `name` stands for, or undefined when there is none of that name. */
export function resolveProvider(name: string, config: ProviderConfig, env: NodeJS.ProcessEnv): ResolvedProvider | undefined {
  if (name === 'anthropic') {
    const entry = config.provider.anthropic;
    return {
      name,
      type: 'anthropic',
      baseURL: entry?.baseURL || env.ANTHROPIC_BASE_URL || undefined,
      apiKey: entry?.apiKey || env.ANTHROPIC_API_KEY || undefined,
      keyEnv: 'ANTHROPIC_API_KEY',
      needsKey: true,
      headers: undefined,
      models: anthropicModels(config),
      source: entry ? 'config' : 'builtin',
      entry: undefined,
    };
  }
  const entry = customEntry(config, name);
  const preset = Object.hasOwn(PRESETS, name) ? PRESETS[name] : undefined;
  if (!entry && !preset) return undefined;
  const type: ProviderType = entry?.type ?? 'openai-compatible';
  const keyEnv = type === 'openai-compatible' ? preset?.keyEnv : undefined;
  return {
    name,
    type,
    baseURL: entry?.baseURL || preset?.baseURL || undefined,
    apiKey: entry?.apiKey || (keyEnv ? env[keyEnv] : undefined) || undefined,
    keyEnv,
    // A preset that has a key variable is a hosted service; configured servers may be keyless.
    needsKey: type === 'anthropic' || (keyEnv !== undefined && !entry?.baseURL),
    headers: entry?.headers,
    models: { ...(preset?.models ?? {}), ...(entry?.models ?? {}) },
    source: entry ? 'config' : 'builtin',
    entry,
  };
}

/** Like resolveProvider, but an unknown name is a ConfigError naming the close matches. */
export function requireProvider(name: string, config: ProviderConfig, env: NodeJS.ProcessEnv): ResolvedProvider {
  const resolved = resolveProvider(name, config, env);
  if (resolved) return resolved;
  const known = providerNames(config);
  const near = closeMatches(name, known);
  const hint = near.length ? ` Did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : '';
  throw new ConfigError(
    `Unknown provider "${name}": expected one of ${known.join(', ')}, or a provider.${name} entry with "type": "openai-compatible" in the config.${hint}`,
  );
}

/** The sentence to show when `name` needs a key it does not have; undefined when all is well. */
export function missingKeyMessage(provider: ResolvedProvider): string | undefined {
  if (!provider.needsKey || provider.apiKey) return undefined;
  const source = provider.keyEnv ? `set ${provider.keyEnv} (or provider.${provider.name}.apiKey in the config)` : `set provider.${provider.name}.apiKey in the config`;
  return `No API key for provider "${provider.name}": ${source}.`;
}

function anthropicModels(config: ProviderConfig): Record<string, ModelEntry> {
  const out: Record<string, ModelEntry> = {};
  for (const ref of new Set(Object.values(MODEL_ALIASES))) out[parseModelRef(ref).model] = {};
  // Another section of the config may give Anthropic models limits too (DESIGN §3).
  const configured = (config.provider.anthropic as { models?: Record<string, ModelEntry> } | undefined)?.models;
  for (const [id, entry] of Object.entries(configured ?? {})) out[id] = { ...out[id], ...entry };
  return out;
}

/** USD per million tokens for `provider/model`: the config's price, else a built-in table, else 0. */
export function modelPrice(model: string, config: ProviderConfig, env: NodeJS.ProcessEnv): Price & { cache_read?: number } {
  const ref = parseModelRef(model);
  const provider = resolveProvider(ref.provider, config, env);
  const configured = provider?.models[ref.model]?.cost;
  if (configured) return configured;
  if (!provider || provider.type === 'anthropic') return priceOf(ref.model);
  // OpenAI's own models have list prices; a local or unknown model costs nothing we can know.
  if (provider.baseURL === PRESETS.openai?.baseURL) return openAIPriceOf(ref.model) ?? { input: 0, output: 0 };
  return { input: 0, output: 0 };
}

/** Cost in USD of one reply from `provider/model`. */
export function costFor(model: string, usage: Usage, config: ProviderConfig, env: NodeJS.ProcessEnv): number {
  const ref = parseModelRef(model);
  const provider = resolveProvider(ref.provider, config, env);
  // Anthropic models without a configured price keep the built-in rules (cache writes 1.25×).
  if ((!provider || provider.type === 'anthropic') && !provider?.models[ref.model]?.cost) return costOf(ref.model, usage);
  const price = modelPrice(model, config, env);
  const cached = price.cache_read ?? price.input;
  return (
    (usage.input_tokens * price.input +
      usage.cache_creation_input_tokens * price.input +
      usage.cache_read_input_tokens * cached +
      usage.output_tokens * price.output) /
    1_000_000
  );
}

/**
 * Whether `provider/model` takes images (DESIGN §22): the config's `models.<id>.images` when
 * set; else yes for Anthropic, yes for a model (or a dated snapshot of one) the provider's
 * table marks so (OpenAI's vision models), and no for everything else, since a server that
 * cannot see would reject the request or silently drop the picture.
 */
export function modelTakesImages(model: string, config: ProviderConfig, env: NodeJS.ProcessEnv): boolean {
  const ref = parseModelRef(model);
  const provider = resolveProvider(ref.provider, config, env);
  if (!provider) return false;
  const exact = provider.models[ref.model]?.images;
  if (exact !== undefined) return exact;
  if (provider.type === 'anthropic') return true;
  const family = Object.entries(provider.models)
    .filter(([id]) => ref.model.startsWith(`${id}-`))
    .sort(([a], [b]) => b.length - a.length)[0];
  return family?.[1].images ?? false;
}
