// Provider registry: model names resolve to a provider instance and a provider-local id.
import { ConfigError } from '../errors.js';
import { AnthropicProvider } from './anthropic.js';
import type { Provider } from './types.js';

export { costOf, parseModelRef, resolveModelName, priceOf, limitOf, DEFAULT_LIMIT, DEFAULT_MODEL, MODEL_ALIASES, type ModelLimit, type Price } from './models.js';
export { hasCredentials, NO_CREDENTIALS_MESSAGE } from './credentials.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
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
}

export const PROVIDERS = ['anthropic'] as const;

export function createProvider(name: string, opts: ProviderOptions = {}): Provider {
  const env = opts.env ?? process.env;
  switch (name) {
    case 'anthropic':
      return new AnthropicProvider({
        apiKey: opts.apiKey || env.ANTHROPIC_API_KEY,
        authToken: opts.authToken || env.ANTHROPIC_AUTH_TOKEN,
        baseURL: opts.baseURL || env.ANTHROPIC_BASE_URL,
        maxRetries: opts.maxRetries,
        retryBaseDelayMs: opts.retryBaseDelayMs,
        idleTimeoutMs: opts.idleTimeoutMs,
        requestTimeoutMs: opts.requestTimeoutMs,
      });
    default:
      throw new ConfigError(`Unknown provider "${name}": expected ${PROVIDERS.join(', ')}.`);
  }
}
