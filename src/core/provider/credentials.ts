// Whether the provider a run starts on has something to authenticate with. Shared by `run`
// and the TUI so both accept exactly what the provider will actually send. For Anthropic:
// an API key (config or ANTHROPIC_API_KEY) or a bearer token (ANTHROPIC_AUTH_TOKEN, as the
// SDK names it); a custom base URL alone is not enough: a keyless proxy can be given any
// placeholder key, which is clearer than the provider inventing one. Other providers need a
// key only when they are a hosted service (the `openai` preset); local servers need none.
import type { Config } from '../config/index.js';
import { missingKeyMessage, requireProvider } from './configured.js';
import { parseModelRef, resolveModelName } from './models.js';

export const NO_CREDENTIALS_MESSAGE =
  'No API key: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (or provider.anthropic.apiKey in the config) to use the Anthropic API, or try the offline demo with opencode-ink --demo.';

/** `model` is the `-m` flag, if any; the config's model otherwise decides the provider. Throws as credentialProblem does. */
export function hasCredentials(config: Pick<Config, 'provider' | 'model'>, env: NodeJS.ProcessEnv, model?: string): boolean {
  return credentialProblem(config, env, model) === undefined;
}

/** The provider a run starts on: the one `-m` names, else the config's model's, else the default's. */
export function startingProvider(config: Pick<Config, 'model'>, model?: string): string {
  return parseModelRef(resolveModelName(model, resolveModelName(config.model))).provider;
}

/**
 * The sentence saying which key is missing, or undefined when the provider has what it
 * needs. An unknown provider throws a ConfigError (exit 2) naming the close matches.
 */
export function credentialProblem(config: Pick<Config, 'provider' | 'model'>, env: NodeJS.ProcessEnv, model?: string): string | undefined {
  const provider = startingProvider(config, model);
  if (provider === 'anthropic') {
    return config.provider?.anthropic?.apiKey || env.ANTHROPIC_API_KEY || env.ANTHROPIC_AUTH_TOKEN ? undefined : NO_CREDENTIALS_MESSAGE;
  }
  return missingKeyMessage(requireProvider(provider, config, env));
}
