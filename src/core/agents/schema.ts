// Fields of an agent definition, shared by markdown front-matter (Claude Code and OpenCode
// styles) and the `agent` key of the config. Lenient on purpose: both ecosystems' files
// must load unchanged, so unknown keys are ignored and aliases are accepted.
//
// Each schema is built on first use: a start that parses no agent file and has no `agent`
// entries in its config (the built-in agents come parsed with the build) never builds them.
import * as z from 'zod';
import { once } from '../once.js';
import { permissionConfigSchema } from '../permission/schema.js';
import { RunnerKindSchema } from '../runner/config.js';
import { sandboxModeSchema } from '../sandbox/settings.js';

export const agentModeSchema = once(() => z.enum(['primary', 'subagent', 'all']));
export type AgentMode = z.infer<ReturnType<typeof agentModeSchema>>;

/** `Read, Grep` | `[Read, Grep]` | `{ write: false, bash: true }` */
const agentToolsSchema = once(() => z.union([z.string(), z.array(z.string()), z.record(z.string(), z.boolean())]));
export type AgentToolsField = z.infer<ReturnType<typeof agentToolsSchema>>;

export const agentFieldsSchema = once(() => z.object({
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  mode: agentModeSchema().optional(),
  model: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  tools: agentToolsSchema().optional(),
  permission: permissionConfigSchema().optional(),
  max_turns: z.number().int().positive().optional(),
  steps: z.number().int().positive().optional(),
  maxTurns: z.number().int().positive().optional(),
  /** Claude Code's `permissionMode` (DESIGN §26): checked by permission-mode.ts, where a bad value is a warning. */
  permissionMode: z.unknown().optional(),
  color: z.string().optional(),
  hidden: z.boolean().optional(),
  disable: z.boolean().optional(),
  /** `worktree`: the agent runs as a sub-agent in its own git worktree (DESIGN §17). */
  isolation: z.enum(['none', 'worktree']).optional(),
  /** Runs this agent's commands in a sandbox at least this tight (DESIGN §19); never loosens the one it inherits. */
  sandbox: sandboxModeSchema().optional(),
  /** `docker`: this agent's commands run in a container of its own (DESIGN §25); `host`: on this machine, unless its parent is in a container. */
  runner: RunnerKindSchema.optional(),
  /** The skills this agent may load (DESIGN §20): names or globs, as a list or a comma string; `none` or `[]` for none. */
  skills: z.union([z.string(), z.array(z.string())]).optional(),
  /** Claude Code's `disallowedTools`: names taken away after `tools` is applied; `Bash(rm:*)` becomes a deny rule. */
  disallowedTools: z.union([z.string(), z.array(z.string())]).optional(),
  /** Claude Code's spelling of `disable`. */
  disabled: z.boolean().optional(),
  /** OpenCode's older name for `steps`. */
  maxSteps: z.number().int().positive().optional(),
  /** Always run as a background task (`run_in_background`), whatever the call says. */
  background: z.boolean().optional(),
  /** `user | project | local`: a memory folder of its own (agents/memory.ts); anything else is a warning. */
  memory: z.string().optional(),
  // Checked in build.ts, where a bad value is a warning: accepted in any shape so the file still loads.
  /** Claude Code's `effort` (low, medium, high, xhigh, max): sent where the model takes it. */
  effort: z.unknown().optional(),
  /** Names of configured MCP servers, or servers of its own written out (build.ts). */
  mcpServers: z.unknown().optional(),
  hooks: z.unknown().optional(),
}));

/**
 * Front-matter keys the program reads elsewhere than this schema: `permissionMode` belongs to
 * the permission modes (DESIGN §26). Every other key outside the schema is named in a warning.
 */
export const FIELDS_READ_ELSEWHERE: readonly string[] = ['permissionMode'];

/** The memory scopes of Claude Code's `memory:` field. */
export const MEMORY_SCOPES = ['user', 'project', 'local'] as const;
export type MemoryScope = (typeof MEMORY_SCOPES)[number];
export type AgentFields = z.infer<ReturnType<typeof agentFieldsSchema>>;

/** An agent entry under the config's `agent` key: the same fields plus its prompt. */
export const agentConfigEntrySchema = once(() =>
  agentFieldsSchema().extend({
    prompt: z.string().optional(),
  }),
);
export type AgentConfigEntry = z.infer<ReturnType<typeof agentConfigEntrySchema>>;
