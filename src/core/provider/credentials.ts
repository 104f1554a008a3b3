// Whether the Anthropic provider has something to authenticate with. Shared by `run` and the
// TUI so both accept exactly what the provider will actually send: an API key (config or
// ANTHROPIC_API_KEY) or a bearer token (ANTHROPIC_AUTH_TOKEN, as the SDK names it). A custom
// base URL alone is not enough: a keyless proxy can be given any placeholder key, which is
// clearer than the provider inventing one.
import type { Config } from '../config/index.js';

export const NO_CREDENTIALS_MESSAGE =
  'No API key: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (or provider.anthropic.apiKey in the config) to use the Anthropic API, or try the offline demo with opencode-ink --demo.';

export function hasCredentials(config: Pick<Config, 'provider'>, env: NodeJS.ProcessEnv): boolean {
  return Boolean(config.provider?.anthropic?.apiKey || env.ANTHROPIC_API_KEY || env.ANTHROPIC_AUTH_TOKEN);
}
