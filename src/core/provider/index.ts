// Provider registry: model names resolve to a provider instance and a provider-local id.
// `anthropic` is built in; `openai` and `ollama` are presets; any other name is a
// `provider.<name>` entry of the config (configured.ts resolves them all alike).
import type { Config } from '../config/index.js';
import { ConfigError } from '../errors.js';
import type { Usage } from '../messages.js';
import { AnthropicProvider } from './anthropic.js';
import { costFor, missingKeyMessage, requireProvider, type ResolvedProvider } from './configured.js';
import { OpenAICompatibleProvider } from './openai-compatible.js';
import { PRESETS } from './presets.js';
import { debugFromEnv } from './sdk-log.js';
import type { Provider } from './types.js';

export { costOf, knownModels, parseModelRef, resolveModelName, priceOf, limitOf, DEFAULT_LIMIT, DEFAULT_MODEL, MODEL_ALIASES, type ModelLimit, type Price } from './models.js';
export { hasCredentials, NO_CREDENTIALS_MESSAGE } from './credentials.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
export { costFor, modelPrice, modelTakesImages, missingKeyMessage, providerNames, requireProvider, resolveProvider, type ResolvedProvider } from './configured.js';
export type { Provider, ModelRequest, ModelResponse, StreamEvent, ToolSpec, ModelRef, StopReason } from './types.js';

export interface ProviderOptions {
  /** Falls back to `env.ANTHROPIC_API_KEY`; a missing key fails on the first request, not here. */
  apiKey?: string | undefined;
  /** Falls back to `env.ANTHROPIC_AUTH_TOKEN`; sent as a bearer token when there is no API key. */
  authToken?: string | undefined;
  baseURL?: string | undefined;
  maxRetries?: number | undefined;
  retryBaseDelayMs?: number | undefined;
  idleTimeoutMs?: number | undefined;
  requestTimeoutMs?: number | undefined;
  /** Where the key and base URL fall back to; `process.env` unless a test isolates it. */
  env?: NodeJS.ProcessEnv;
  /** The configuration naming the non-Anthropic providers; none = only the built-in presets. */
  config?: Pick<Config, 'provider'> | undefined;
}

/** Every provider type the config may name. */
export const PROVIDERS = ['anthropic', 'openai-compatible'] as const;

/**
 * A provider by name. `anthropic` takes its settings from `opts` (then the environment);
 * any other name is resolved against `opts.config` and the presets, with `opts` overriding
 * the retry settings. An unknown name is a ConfigError listing the close matches.
 */
export function createProvider(name: string, opts: ProviderOptions = {}): Provider {
  const env = opts.env ?? process.env;
  if (name === 'anthropic') {
    return new AnthropicProvider({
      apiKey: opts.apiKey || env.ANTHROPIC_API_KEY,
      authToken: opts.authToken || env.ANTHROPIC_AUTH_TOKEN,
      baseURL: opts.baseURL || env.ANTHROPIC_BASE_URL,
      maxRetries: opts.maxRetries,
      retryBaseDelayMs: opts.retryBaseDelayMs,
      idleTimeoutMs: opts.idleTimeoutMs,
      requestTimeoutMs: opts.requestTimeoutMs,
      debug: debugFromEnv(env),
    });
  }
  const resolved = requireProvider(name, opts.config ?? { provider: {} }, env);
  const retry = {
    maxRetries: opts.maxRetries ?? resolved.entry?.maxRetries,
    retryBaseDelayMs: opts.retryBaseDelayMs,
    idleTimeoutMs: opts.idleTimeoutMs ?? resolved.entry?.idleTimeoutMs,
    requestTimeoutMs: opts.requestTimeoutMs ?? resolved.entry?.requestTimeoutMs,
    debug: debugFromEnv(env),
  };
  const apiKey = opts.apiKey || resolved.apiKey;
  if (resolved.type === 'anthropic') {
    // A second Anthropic endpoint: its own key and URL only, never the environment's.
    return new AnthropicProvider({ apiKey, baseURL: opts.baseURL || resolved.baseURL, ...retry });
  }
  return openAICompatible({ ...resolved, apiKey }, opts.baseURL, retry);
}

function openAICompatible(
  resolved: ResolvedProvider,
  baseURL: string | undefined,
  retry: Pick<ProviderOptions, 'maxRetries' | 'retryBaseDelayMs' | 'idleTimeoutMs' | 'requestTimeoutMs'> & { debug: boolean },
): Provider {
  const url = baseURL || resolved.baseURL;
  if (!url) throw new ConfigError(`provider.${resolved.name}.baseURL: an OpenAI-compatible provider needs the server's URL, e.g. "http://127.0.0.1:11434/v1".`);
  const preset = Object.hasOwn(PRESETS, resolved.name) ? PRESETS[resolved.name] : undefined;
  return new OpenAICompatibleProvider({
    name: resolved.name,
    baseURL: url,
    apiKey: resolved.apiKey,
    missingKeyMessage: missingKeyMessage(resolved),
    headers: resolved.headers,
    unreachableHint: preset?.unreachableHint,
    outputLimits: Object.fromEntries(
      Object.entries(resolved.models).flatMap(([id, entry]) => (entry.limit?.output ? [[id, entry.limit.output]] : [])),
    ),
    maxTokensParam: preset?.maxTokensParam ?? (url === PRESETS.openai?.baseURL ? 'max_completion_tokens' : 'max_tokens'),
    ...retry,
  });
}

/** The provider a configuration means by `name` (what the engine creates sessions' providers with). */
export function providerFromConfig(name: string, config: Pick<Config, 'provider'>, env: NodeJS.ProcessEnv = process.env): Provider {
  if (name === 'anthropic') return createProvider(name, { ...(config.provider.anthropic ?? {}), env });
  return createProvider(name, { config, env });
}

/** The cost function the agent loop prices replies with, under this configuration. */
export function costFunction(config: Pick<Config, 'provider'>, env: NodeJS.ProcessEnv = process.env): (model: string, usage: Usage) => number {
  return (model, usage) => costFor(model, usage, config, env);
}
