// The configuration's shape and defaults (DESIGN §3). Strict objects: a misspelt key would
// otherwise be dropped silently and the user would wonder why the setting does nothing.
// Nested sections use `prefault` so a partial section is filled in with the other defaults.
import { z } from 'zod';
import { AgentConfigEntrySchema } from '../agents/schema.js';
import { McpConfigSchema } from '../mcp/config.js';
import { PERMISSION_MODES } from '../permission/modes.js';
import { PermissionConfigSchema } from '../permission/schema.js';
import { SandboxConfigSchema } from '../sandbox/settings.js';
import { RunnerConfigSchema } from '../runner/config.js';
import { BaseUrlSchema, CustomProviderSchema, ModelEntrySchema, requireProviderType } from './provider-schema.js';
import { DEFAULT_MODEL } from '../provider/models.js';

export { ModelLimitSchema } from './provider-schema.js';

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
export const CompactionSchema = z.strictObject({
  auto: z.boolean().default(true),
  threshold: z.number().gt(0).max(1).default(0.8),
  prune: z.boolean().default(true),
});

const AnthropicProviderSchema = z.strictObject({
  apiKey: z.string().optional(),
  baseURL: BaseUrlSchema.optional(),
  maxRetries: z.number().int().min(0).max(10).optional(),
  idleTimeoutMs: z.number().int().min(1000).optional(),
  requestTimeoutMs: z.number().int().min(1000).optional(),
  // `limit` overrides the built-in context window and output limit; `cost` the built-in prices.
  models: z.record(z.string(), ModelEntrySchema).optional(),
});

export const CommandConfigSchema = z.strictObject({
  template: z.string(),
  description: z.string().optional(),
  agent: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  subtask: z.boolean().optional(),
});

/** A folder linked into a child's worktree: relative to the top of the repository, never leaving it. */
const LinkedFolderSchema = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !p.split(/[\\/]/).includes('..'), {
    error: 'expected a folder relative to the repository root, without ".." (e.g. "node_modules")',
  });

/** Sub-agents that run in their own git worktree (DESIGN §17). */
export const WorktreeSettingsSchema = z.strictObject({
  link: z.array(LinkedFolderSchema).default(['node_modules']),
  /** Finished children's trees kept per project, so the next child's worktree writes only the files that differ (0: none). */
  pool: z.number().int().min(0).max(64).default(10),
});

export const IsolationSchema = z.enum(['none', 'worktree']);

export const SubagentSettingsSchema = z.strictObject({
  max_depth: z.number().int().min(1).max(5).default(1),
  max_concurrency: z.number().int().min(1).default(5),
  max_per_batch: z.number().int().min(1).default(10),
  max_turns: z.number().int().min(1).default(20),
  timeout_seconds: z.number().min(1).default(600),
  approvals: z.enum(['bubble', 'deny']).default('bubble'),
  isolation: IsolationSchema.default('none'),
  worktree: WorktreeSettingsSchema.prefault({}),
});

/** Agent teams (DESIGN §24): how many teammates (`task` with `name`) one team may hold at once. */
export const TeamSettingsSchema = z.strictObject({
  max_teammates: z.number().int().min(1).max(64).default(8),
});

export const KeybindsSchema = z.strictObject({
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
});

/** Snapshots of the project's files for undo and rewind (DESIGN §18). */
export const CheckpointSettingsSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** Files larger than this many megabytes are left out of snapshots (and named once). */
  max_file_mb: z.number().positive().default(5),
});

/** Terminal notifications from the interactive UI (DESIGN §9): a long turn ended, or someone waits. */
export const NotifySettingsSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** A turn that ran at least this long notifies when it ends. */
  after_seconds: z.number().min(0).default(20),
});

// `anthropic` has its own entry; any other name is an OpenAI-compatible (or second Anthropic) provider.
const ProvidersSchema = z.object({ anthropic: AnthropicProviderSchema.optional() }).catchall(CustomProviderSchema);

/**
 * One config file on its own. Files add up (a project file may give `models` to a provider
 * the user's file defines), so the rules about a whole provider entry are left to
 * ConfigSchema, which checks the merged result.
 */
export const ConfigFileSchema = z.strictObject({
  $schema: z.string().optional(),
  model: z.string().min(1).default(DEFAULT_MODEL),
  default_agent: z.string().min(1).default(DEFAULT_AGENT),
  provider: ProvidersSchema.prefault({}),
  agent: z.record(z.string(), AgentConfigEntrySchema).prefault({}),
  command: z.record(z.string(), CommandConfigSchema).prefault({}),
  permission: PermissionConfigSchema.prefault({}),
  // The permission mode sessions start in (DESIGN §26); `--permission-mode` and Shift+Tab change it.
  permission_mode: z.enum(PERMISSION_MODES).optional(),
  subagents: SubagentSettingsSchema.prefault({}),
  team: TeamSettingsSchema.prefault({}),
  keybinds: KeybindsSchema.prefault({}),
  compaction: CompactionSchema.prefault({}),
  mcp: McpConfigSchema.prefault({}),
  sandbox: SandboxConfigSchema.prefault({}),
  // Where sub-agents' commands run: the host, or containers on Docker/Podman hosts (DESIGN §25).
  runner: RunnerConfigSchema.prefault({}),
  // Claude Code's hook format (DESIGN §20), checked entry by entry by hooks/config.ts, where a
  // bad entry is a warning naming the file and key: a hook copied from a newer Claude Code
  // (an `http` hook, a new event) must not stop the program from starting.
  hooks: z.record(z.string(), z.unknown()).optional(),
  checkpoints: CheckpointSettingsSchema.prefault({}),
  notify: NotifySettingsSchema.prefault({}),
});

/** The whole configuration: the files merged, each provider complete. */
export const ConfigSchema = ConfigFileSchema.extend({
  provider: ProvidersSchema.superRefine(requireProviderType).prefault({}),
});

/** The validated configuration, every default filled in. */
export type Config = z.output<typeof ConfigSchema>;
/** What a config file may contain. */
export type ConfigInput = z.input<typeof ConfigSchema>;
export type CommandConfig = z.output<typeof CommandConfigSchema>;
export type CompactionSettings = z.output<typeof CompactionSchema>;
export type CheckpointSettings = z.output<typeof CheckpointSettingsSchema>;
