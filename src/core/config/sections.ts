// The configuration's schema, one top-level key at a time (DESIGN §3). Each key's zod schema
// is built the first time a config file sets that key, so a start whose files set few keys (or
// none) does not build the whole schema: building it costs more than every other part of
// reading the configuration. A key no file sets takes its default from a table the build
// computes with the full schema (scripts/config-defaults.mjs, `__OC_CONFIG_DEFAULTS__`);
// running from source the table is computed the same way on first use.
//
// Contract: parseConfigFile and parseMergedConfig accept and reject exactly what the full
// schemas (fullConfigFileSchema, fullConfigSchema) do, and give the same value, keys in the
// same order. A failure is reported from the full schema, so its message (and the key it
// suggests for a misspelt one) does not depend on which keys were built.
//
// Strict objects: a misspelt key would otherwise be dropped silently and the user would
// wonder why the setting does nothing. Nested sections use `prefault` so a partial section is
// filled in with the other defaults.
import * as z from 'zod';
import { agentConfigEntrySchema } from '../agents/schema.js';
import { mcpConfigSchema } from '../mcp/config.js';
import { PERMISSION_MODES } from '../permission/modes.js';
import { permissionConfigSchema } from '../permission/schema.js';
import { sandboxConfigSchema } from '../sandbox/settings.js';
import { runnerConfigSchema } from '../runner/config.js';
import { baseUrlSchema, customProviderSchema, modelEntrySchema, requireProviderType } from './provider-schema.js';
import { DEFAULT_MODEL } from '../provider/models.js';
import { isPlainObject } from './merge.js';
import { once } from '../once.js';

// The default model is a provider fact, named once in provider/models.ts.
export { DEFAULT_MODEL };
export const DEFAULT_AGENT = 'build';

export const DEFAULT_KEYBINDS = {
  leader: 'ctrl+x',
  session_child_cycle: '<leader>right',
  session_child_cycle_reverse: '<leader>left',
  session_parent: '<leader>up',
  session_child_first: '<leader>down',
  session_list: '<leader>l',
  /** Cancels the sub-agent whose view is open, alone (DESIGN §23). */
  session_child_cancel: '<leader>k',
  /** Reverts the finished sub-agent whose view is open: its changes and its descendants' only (DESIGN §18). */
  session_child_revert: '<leader>u',
  /** Selects a sub-agent block in the view: ↑/↓ move, Enter opens, u reverts, o shows its diff, Esc leaves. */
  session_child_select: '<leader>s',
  /** Opens the team's shared task list (DESIGN §24): ↑/↓ move, Enter opens the owner's view, Esc closes. As Claude Code's Ctrl+T. */
  team_tasks: 'ctrl+t',
  /** Shows or hides the panel of every live sub-agent and teammate of the tree, which stays across turns (DESIGN §24). */
  agents_panel: '<leader>a',
} as const;

/** When and how a session's context is compacted (DESIGN §12). */
export const compactionSchema = once(() =>
  z.strictObject({
    auto: z.boolean().default(true),
    threshold: z.number().gt(0).max(1).default(0.8),
    prune: z.boolean().default(true),
  }),
);

const anthropicProviderSchema = once(() =>
  z.strictObject({
    apiKey: z.string().optional(),
    baseURL: baseUrlSchema().optional(),
    maxRetries: z.number().int().min(0).max(10).optional(),
    idleTimeoutMs: z.number().int().min(1000).optional(),
    requestTimeoutMs: z.number().int().min(1000).optional(),
    // `limit` overrides the built-in context window and output limit; `cost` the built-in prices.
    models: z.record(z.string(), modelEntrySchema()).optional(),
  }),
);

export const commandConfigSchema = once(() =>
  z.strictObject({
    template: z.string(),
    description: z.string().optional(),
    agent: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    subtask: z.boolean().optional(),
  }),
);

/** Sub-agents that run in their own git worktree (DESIGN §17). */
export const worktreeSettingsSchema = once(() =>
  z.strictObject({
    /** Folders linked into a child's worktree: relative to the top of the repository, never leaving it. */
    link: z
      .array(
        z
          .string()
          .min(1)
          .refine((p) => !p.startsWith('/') && !p.split(/[\\/]/).includes('..'), {
            error: 'expected a folder relative to the repository root, without ".." (e.g. "node_modules")',
          }),
      )
      .default(['node_modules']),
    /** Finished children's trees kept per project, so the next child's worktree writes only the files that differ (0: none). */
    pool: z.number().int().min(0).max(64).default(10),
  }),
);

export const isolationSchema = once(() => z.enum(['none', 'worktree']));

export const subagentSettingsSchema = once(() =>
  z.strictObject({
    max_depth: z.number().int().min(1).max(5).default(1),
    max_concurrency: z.number().int().min(1).default(5),
    max_per_batch: z.number().int().min(1).default(10),
    max_turns: z.number().int().min(1).default(20),
    timeout_seconds: z.number().min(1).default(600),
    approvals: z.enum(['bubble', 'deny']).default('bubble'),
    isolation: isolationSchema().default('none'),
    worktree: worktreeSettingsSchema().prefault({}),
  }),
);

/** Agent teams (DESIGN §24): how many teammates (`task` with `name`) one team may hold at once. */
export const teamSettingsSchema = once(() =>
  z.strictObject({
    max_teammates: z.number().int().min(1).max(64).default(8),
  }),
);

export const keybindsSchema = once(() =>
  z.strictObject({
    leader: z.string().min(1).default(DEFAULT_KEYBINDS.leader),
    session_child_cycle: z.string().min(1).default(DEFAULT_KEYBINDS.session_child_cycle),
    session_child_cycle_reverse: z.string().min(1).default(DEFAULT_KEYBINDS.session_child_cycle_reverse),
    session_parent: z.string().min(1).default(DEFAULT_KEYBINDS.session_parent),
    session_child_first: z.string().min(1).default(DEFAULT_KEYBINDS.session_child_first),
    session_list: z.string().min(1).default(DEFAULT_KEYBINDS.session_list),
    session_child_cancel: z.string().min(1).default(DEFAULT_KEYBINDS.session_child_cancel),
    session_child_revert: z.string().min(1).default(DEFAULT_KEYBINDS.session_child_revert),
    session_child_select: z.string().min(1).default(DEFAULT_KEYBINDS.session_child_select),
    team_tasks: z.string().min(1).default(DEFAULT_KEYBINDS.team_tasks),
    agents_panel: z.string().min(1).default(DEFAULT_KEYBINDS.agents_panel),
  }),
);

/** Snapshots of the project's files for undo and rewind (DESIGN §18). */
export const checkpointSettingsSchema = once(() =>
  z.strictObject({
    enabled: z.boolean().default(true),
    /** Files larger than this many megabytes are left out of snapshots (and named once). */
    max_file_mb: z.number().positive().default(5),
  }),
);

/** Terminal notifications from the interactive UI (DESIGN §9): a long turn ended, or someone waits. */
export const notifySettingsSchema = once(() =>
  z.strictObject({
    enabled: z.boolean().default(true),
    /** A turn that ran at least this long notifies when it ends. */
    after_seconds: z.number().min(0).default(20),
  }),
);

// `anthropic` has its own entry; any other name is an OpenAI-compatible (or second Anthropic) provider.
const providersSchema = once(() => z.object({ anthropic: anthropicProviderSchema().optional() }).catchall(customProviderSchema()));

/**
 * Each top-level key of one config file on its own. Files add up (a project file may give
 * `models` to a provider the user's file defines), so the rules about a whole provider entry
 * are left to the merged configuration's `provider` (MERGED_PROVIDER).
 */
const FILE_KEYS = {
  $schema: () => z.string().optional(),
  model: () => z.string().min(1).default(DEFAULT_MODEL),
  default_agent: () => z.string().min(1).default(DEFAULT_AGENT),
  provider: () => providersSchema().prefault({}),
  agent: () => z.record(z.string(), agentConfigEntrySchema()).prefault({}),
  command: () => z.record(z.string(), commandConfigSchema()).prefault({}),
  permission: () => permissionConfigSchema().prefault({}),
  // The permission mode sessions start in (DESIGN §26); `--permission-mode` and Shift+Tab change it.
  permission_mode: () => z.enum(PERMISSION_MODES).optional(),
  subagents: () => subagentSettingsSchema().prefault({}),
  team: () => teamSettingsSchema().prefault({}),
  keybinds: () => keybindsSchema().prefault({}),
  compaction: () => compactionSchema().prefault({}),
  mcp: () => mcpConfigSchema().prefault({}),
  sandbox: () => sandboxConfigSchema().prefault({}),
  // Where sub-agents' commands run: the host, or containers on Docker/Podman hosts (DESIGN §25).
  runner: () => runnerConfigSchema().prefault({}),
  // Claude Code's hook format (DESIGN §20), checked entry by entry by hooks/config.ts, where a
  // bad entry is a warning naming the file and key: a hook copied from a newer Claude Code
  // (an `http` hook, a new event) must not stop the program from starting.
  hooks: () => z.record(z.string(), z.unknown()).optional(),
  checkpoints: () => checkpointSettingsSchema().prefault({}),
  notify: () => notifySettingsSchema().prefault({}),
};

type KeyBuilders = Record<string, () => z.ZodType>;
type Shape<B extends KeyBuilders> = { -readonly [K in keyof B]: ReturnType<B[K]> };

/** The merged configuration's `provider`: the file's, and each entry complete. */
const MERGED_PROVIDER = () => providersSchema().superRefine(requireProviderType).prefault({});
const MERGED_KEYS = { ...FILE_KEYS, provider: MERGED_PROVIDER };

/** The top-level keys, in the order the parsed configuration lists them. */
export const CONFIG_KEYS: readonly string[] = Object.keys(FILE_KEYS);

/** Each key's schema, built once. */
const built = new Map<string, z.ZodType>();

function keySchema(builders: KeyBuilders, key: string): z.ZodType {
  const id = builders === MERGED_KEYS && key === 'provider' ? 'merged provider' : key;
  let schema = built.get(id);
  if (!schema) {
    schema = builders[key]!();
    built.set(id, schema);
  }
  return schema;
}

function shapeOf<B extends KeyBuilders>(builders: B, keys: readonly string[]): Shape<B> {
  const shape: Record<string, z.ZodType> = {};
  for (const key of keys) shape[key] = keySchema(builders, key);
  // Built key by key from the builders' own types.
  return shape as Shape<B>;
}

/** What one config file may contain, every key built (for tests, the UI and error messages). */
export const fullConfigFileSchema = once(() => z.strictObject(shapeOf(FILE_KEYS, CONFIG_KEYS)));

/** The whole configuration: the files merged, each provider complete, every key built. */
export const fullConfigSchema = once(() => z.strictObject(shapeOf(MERGED_KEYS, CONFIG_KEYS)));

/** The validated configuration, every default filled in. */
export type Config = z.output<ReturnType<typeof fullConfigSchema>>;
/** What a config file may contain. */
export type ConfigInput = z.input<ReturnType<typeof fullConfigSchema>>;

export type ParseOutcome<T> = { ok: true; value: T } | { ok: false; schema: z.ZodType; issue: z.core.$ZodIssue | undefined };

/** Parses `data` with the schemas of the known keys it has only; a failure comes from `full`. */
function parseSome<T>(builders: KeyBuilders, full: () => z.ZodType<T>, data: unknown): ParseOutcome<T> {
  if (isPlainObject(data)) {
    const present = CONFIG_KEYS.filter((key) => Object.hasOwn(data, key));
    // A key the schema does not know fails below, with the full schema's message.
    if (Object.keys(data).length === present.length) {
      // jitless: parsed once per start, where zod's compiled validator (made with `new
      // Function`, which no code cache covers) costs more than it saves.
      const result = z.strictObject(shapeOf(builders, present)).safeParse(data, { jitless: true });
      // The same keys' schemas as `full` has: the value `full` gives for the keys present.
      if (result.success) return { ok: true, value: result.data as T };
    }
  }
  const schema = full();
  const result = schema.safeParse(data, { jitless: true });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, schema, issue: result.error.issues[0] };
}

/** One file's settings checked (without defaults: those are applied once, after merging). */
export function parseConfigFile(data: unknown): ParseOutcome<z.output<ReturnType<typeof fullConfigFileSchema>>> {
  return parseSome(FILE_KEYS, fullConfigFileSchema, data);
}

/** The merged files checked, and every key they do not set given its default. */
export function parseMergedConfig(merged: Record<string, unknown>): ParseOutcome<Config> {
  const parsed = parseSome(MERGED_KEYS, fullConfigSchema, merged);
  if (!parsed.ok) return parsed;
  const defaults = configDefaults();
  const value: Record<string, unknown> = {};
  // The full schema's key order, whichever keys came from the files.
  for (const key of CONFIG_KEYS) {
    if (Object.hasOwn(merged, key)) value[key] = (parsed.value as Record<string, unknown>)[key];
    else if (Object.hasOwn(defaults, key)) value[key] = structuredClone(defaults[key]);
  }
  // Every key of the full schema's output: parsed above or its default.
  return { ok: true, value: value as Config };
}

/** One top-level key of the configuration of no file at all (configDefaults), shared: never to be changed. */
export function defaultSetting<K extends keyof Config>(key: K): Readonly<Config[K]> {
  // The table is the full schema's output for `{}`, so each key holds that key's output type.
  return configDefaults()[key] as Config[K];
}

declare const __OC_CONFIG_DEFAULTS__: Record<string, unknown> | undefined;

let computedDefaults: Record<string, unknown> | undefined;

/** The configuration of no file at all: the build's table, or (from source) the full schema's. */
export function configDefaults(): Record<string, unknown> {
  if (typeof __OC_CONFIG_DEFAULTS__ !== 'undefined') return __OC_CONFIG_DEFAULTS__;
  computedDefaults ??= fullConfigSchema().parse({}, { jitless: true });
  return computedDefaults;
}
