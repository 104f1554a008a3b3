// Claude Code's `effort` (an agent file's field): how hard the model should think, and where
// a model takes it. Contract: `parseEffort` reads the field (case-insensitive) or returns
// undefined; `effortOnWire(modelRef, effort)` is what a request to that model carries — for
// Anthropic models `output_config.effort`, for OpenAI-compatible ones `reasoning_effort` — or
// undefined where the model takes no effort setting, so the request is sent without one (the
// session factory warns once per agent and model). Pure: no I/O, no SDK.
import { parseModelRef } from './models.js';

export const EFFORT_LEVELS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export type Effort = (typeof EFFORT_LEVELS)[number];

/** `High` → `high`; anything that is not a level → undefined. */
export function parseEffort(value: unknown): Effort | undefined {
  if (typeof value !== 'string') return undefined;
  const lower = value.trim().toLowerCase();
  return EFFORT_LEVELS.find((level) => level === lower);
}

/**
 * Anthropic (per its model notes): Opus 4.5 and later, Sonnet 4.6 and later, and every model of
 * a family numbered 5 or above take `effort`; Sonnet 4.5, Haiku 4.5 and older refuse it. `max`
 * needs Opus 4.6+, Sonnet 4.6+ or 5+; `xhigh` Opus 4.7+ or 5+; a level the model lacks becomes
 * the next one down that it has. OpenAI's own API: only its reasoning models (o1, o3, o4,
 * gpt-5…). Any other OpenAI-compatible server is sent `reasoning_effort`, the field such
 * servers share (vLLM, Ollama, OpenRouter, DeepSeek); levels above `high` become `high`, the
 * most the common servers accept.
 */
export function effortOnWire(modelRef: string, effort: Effort): Effort | undefined {
  const { provider, model } = parseModelRef(modelRef);
  const id = model.toLowerCase();
  if (provider === 'anthropic') {
    const version = claudeVersion(id);
    if (!version) return undefined;
    const { family, major, minor } = version;
    const atLeast = (m: number, n: number) => major > m || (major === m && minor >= n);
    const from = (opus: [number, number], sonnet?: [number, number]) => major >= 5 || (family === 'opus' && atLeast(...opus)) || (sonnet !== undefined && family === 'sonnet' && atLeast(...sonnet));
    if (!from([4, 5], [4, 6])) return undefined;
    const has: Record<Effort, boolean> = { low: true, medium: true, high: true, xhigh: from([4, 7]), max: from([4, 6], [4, 6]) };
    const order = EFFORT_LEVELS.slice(0, EFFORT_LEVELS.indexOf(effort) + 1).reverse();
    return order.find((level) => has[level]);
  }
  if (provider === 'openai' && !/^(o\d|gpt-5)/.test(id)) return undefined;
  return effort === 'low' || effort === 'medium' ? effort : 'high';
}

/** `claude-opus-4-6`, `claude-sonnet-4-5-20250929`, `claude-opus-5` → family and version; older names → undefined. */
function claudeVersion(id: string): { family: string; major: number; minor: number } | undefined {
  const match = /^claude-([a-z]+)-(\d+)(?:-(\d{1,2}))?(?:-|$)/.exec(id);
  if (!match) return undefined;
  return { family: match[1]!, major: Number(match[2]), minor: match[3] === undefined ? 0 : Number(match[3]) };
}
