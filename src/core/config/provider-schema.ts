// The schema of a `provider.<name>` entry other than `anthropic` (DESIGN §3, §13): any
// OpenAI-compatible server (OpenAI, Ollama, vLLM, LM Studio, OpenRouter), or a second
// Anthropic endpoint. `type` may be left out only for the built-in presets (`openai`,
// `ollama`), whose type is known; every other name must say what it is.
//
// The schemas are built on first use (once.ts): a start whose files configure no provider never builds them.
import * as z from 'zod';
import { once } from '../once.js';

export const PROVIDER_TYPES = ['anthropic', 'openai-compatible'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/** The names that work without any configuration (src/core/provider/presets.ts fills them in). */
export const PRESET_PROVIDER_NAMES: readonly string[] = ['anthropic', 'openai', 'ollama'];

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * A provider's `baseURL`. Empty is allowed: an unset `{env:…}` becomes '' and then means
 * "the default endpoint" (the SDK's, or the preset's).
 */
export const baseUrlSchema = once(() =>
  z.string().refine((v) => v === '' || isHttpUrl(v), { message: 'must be an http:// or https:// URL' }),
);

/** `models.<id>.limit`: the model's context window and output cap, in tokens. */
export const modelLimitSchema = once(() =>
  z.strictObject({
    context: z.number().int().positive().optional(),
    output: z.number().int().positive().optional(),
  }),
);

/** `models.<id>.cost`: USD per million tokens. */
export const modelCostSchema = once(() =>
  z.strictObject({
    input: z.number().min(0),
    output: z.number().min(0),
    /** Cached input tokens, when the server reports them; the input price when absent. */
    cache_read: z.number().min(0).optional(),
  }),
);

export const modelEntrySchema = once(() =>
  z.strictObject({
    limit: modelLimitSchema().optional(),
    cost: modelCostSchema().optional(),
    /** The model takes images (DESIGN §22). Claude and OpenAI's vision models do without saying; others must say so. */
    images: z.boolean().optional(),
  }),
);

export const customProviderSchema = once(() =>
  z.strictObject({
    type: z.enum(PROVIDER_TYPES).optional(),
    baseURL: baseUrlSchema().optional(),
    apiKey: z.string().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    models: z.record(z.string(), modelEntrySchema()).optional(),
    maxRetries: z.number().int().min(0).max(10).optional(),
    idleTimeoutMs: z.number().int().min(1000).optional(),
    requestTimeoutMs: z.number().int().min(1000).optional(),
  }),
);

export type CustomProviderConfig = z.output<ReturnType<typeof customProviderSchema>>;
export type ModelEntry = z.output<ReturnType<typeof modelEntrySchema>>;

/**
 * Adds the rules a lone entry cannot check: a name that is not a preset must say its `type`,
 * and an OpenAI-compatible one its `baseURL` (there is no default server to fall back to).
 */
export function requireProviderType(value: Record<string, unknown>, ctx: z.RefinementCtx): void {
  for (const [name, entry] of Object.entries(value)) {
    if (PRESET_PROVIDER_NAMES.includes(name) || typeof entry !== 'object' || entry === null) continue;
    const { type, baseURL } = entry as { type?: unknown; baseURL?: unknown };
    if (type === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [name, 'type'],
        message: `Is required: "openai-compatible" or "anthropic" (only ${PRESET_PROVIDER_NAMES.join(', ')} work without it)`,
        input: entry,
      });
    } else if (type === 'openai-compatible' && !baseURL) {
      ctx.addIssue({
        code: 'custom',
        path: [name, 'baseURL'],
        message: 'Is required for an OpenAI-compatible server, e.g. "http://127.0.0.1:11434/v1"',
        input: entry,
      });
    }
  }
}
