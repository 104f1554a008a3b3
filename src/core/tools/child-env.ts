// The environment of commands the model runs: the user's, minus the credentials this
// program itself uses. A model that can run `env` (or a script it wrote) must not be able
// to read the user's API keys back: the well-known variables are always dropped, and so is
// any variable whose value equals a provider key from the config, whatever its name.

/** Credentials dropped by name. */
export const SECRET_VARIABLES: readonly string[] = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'OPENAI_API_KEY'];

const configuredSecrets = new Set<string>();

/** Remembers configured provider keys (`provider.<name>.apiKey`), so variables holding them are dropped too. */
export function registerSecrets(values: Iterable<unknown>): void {
  for (const value of values) if (typeof value === 'string' && value !== '') configuredSecrets.add(value);
}

/** The `apiKey` of every configured provider. */
export function providerKeys(providers: Readonly<Record<string, unknown>> | undefined): string[] {
  return Object.values(providers ?? {}).flatMap((p) =>
    p && typeof p === 'object' && 'apiKey' in p && typeof p.apiKey === 'string' ? [p.apiKey] : [],
  );
}

/** `base` (the process environment by default) without credentials, with `extra` on top. */
export function childEnv(extra: Readonly<Record<string, string>>, base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || SECRET_VARIABLES.includes(name) || configuredSecrets.has(value)) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}
