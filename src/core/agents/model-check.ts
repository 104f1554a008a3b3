// An agent's or skill's `model:` checked when its file loads, so a bad id (`model: fable`) is
// named in the load warnings rather than failing only when that agent runs. Contract:
// - Fine: `inherit`, an alias (sonnet, opus, haiku), a model the config lists under its
//   provider (`provider.<p>.models.<id>`), a known Anthropic id or a dated snapshot of one,
//   and any id under another provider (those cannot be listed offline).
// - Anything else gets one sentence naming the value and what was expected; a bare id that
//   the config lists under another provider is told to name that provider, and an unknown
//   `claude-…` id (perhaps newer than this program) that it is sent as written.
import type { Config } from '../config/schema.js';
import { MODEL_ALIASES, modelProblem, parseModelRef, resolveModelName } from '../provider/models.js';

type Providers = Config['provider'];

function configured(providers: Providers, provider: string, model: string): boolean {
  const entry: { models?: Record<string, unknown> | undefined } | undefined = providers[provider];
  return entry?.models !== undefined && Object.hasOwn(entry.models, model);
}

/** Why `model` cannot run, in one sentence for a load warning; undefined when it can (or cannot be known offline). */
export function unknownModelWarning(model: string, providers: Providers): string | undefined {
  const trimmed = model.trim();
  const lower = trimmed.toLowerCase();
  if (lower === 'inherit' || MODEL_ALIASES[lower] !== undefined) return undefined;
  const ref = parseModelRef(resolveModelName(trimmed));
  if (configured(providers, ref.provider, ref.model)) return undefined;
  if (ref.provider !== 'anthropic' || modelProblem(trimmed) === undefined) return undefined;
  const shown = JSON.stringify(trimmed.length > 60 ? `${trimmed.slice(0, 57)}...` : trimmed).slice(1, -1);
  const elsewhere = trimmed.includes('/') ? undefined : Object.keys(providers).find((name) => name !== 'anthropic' && configured(providers, name, trimmed));
  // A Claude id newer than this program's table still runs if Anthropic has it.
  if (/^claude-/i.test(ref.model)) return `"model: ${shown}" is not a Claude model this program knows; it is sent as written, and fails when it runs unless Anthropic has that model.`;
  if (elsewhere) return `"model: ${shown}" is a model of provider "${elsewhere}": write "model: ${elsewhere}/${trimmed}" (a bare id means an Anthropic model), or this fails when it runs.`;
  return `"model: ${shown}" names no model this program knows (expected inherit, an alias (${Object.keys(MODEL_ALIASES).join(', ')}), an Anthropic id such as claude-sonnet-4-6, or provider/id of a configured provider), so this fails when it runs.`;
}
