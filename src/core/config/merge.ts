// How configuration files combine: `{env:VAR}` references are resolved per file, then
// files are merged so a project file only has to name the keys it changes.

const ENV_REFERENCE = /\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Replaces `{env:NAME}` inside every string value (not keys) with that variable. A missing
 * variable becomes '' so a shared config file works on machines that do not set it.
 */
export function substituteEnv(value: unknown, env: NodeJS.ProcessEnv): unknown {
  if (typeof value === 'string') return value.replace(ENV_REFERENCE, (_, name: string) => env[name] ?? '');
  if (Array.isArray(value)) return value.map((item) => substituteEnv(item, env));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) setOwn(out, key, substituteEnv(item, env));
    return out;
  }
  return value;
}

/**
 * Objects merge key by key, recursively; anything else (lists included) in `over` replaces
 * what `base` had. Keys new in `over` come after the existing ones, which keeps permission
 * patterns from a nearer file after (and so winning over) those from a farther one.
 */
export function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(base)) setOwn(out, key, value);
  for (const [key, value] of Object.entries(over)) {
    const existing = out[key];
    setOwn(out, key, isPlainObject(existing) && isPlainObject(value) && Object.hasOwn(out, key) ? deepMerge(existing, value) : value);
  }
  return out;
}

// A key spelt "__proto__" must stay data (and be reported as unknown), not reach the prototype.
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
