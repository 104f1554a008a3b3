// The resolved form of an agent, whatever file style or config entry it came from.
import type { HookSet } from '../hooks/config.js';
import type { McpServerConfig } from '../mcp/config.js';
import type { Effort } from '../provider/effort.js';
import type { PermissionMode } from '../permission/modes.js';
import type { PermissionConfig } from '../permission/schema.js';
import type { RunnerKind } from '../runner/config.js';
import type { SandboxMode } from '../sandbox/settings.js';
import type { AgentMode, MemoryScope } from './schema.js';

export interface AgentDefinition {
  name: string;
  mode: AgentMode;
  /** What the parent model reads when choosing a sub-agent; may be empty. */
  description: string;
  /** The system prompt (the markdown body). */
  prompt: string;
  /** As written: an alias (`sonnet`), `inherit` or `provider/id`; resolved by the engine. */
  model?: string;
  temperature?: number;
  top_p?: number;
  /** Allowlist of tool names; undefined means every tool. */
  tools?: string[];
  /** Tools switched off: by an OpenCode-style `tools: { name: false }` map, or Claude Code's `disallowedTools` (names and globs). */
  disabledTools?: string[];
  permission?: PermissionConfig;
  /**
   * Rules from files of a project the user has not trusted (DESIGN §15). Each is checked as
   * a ruleset of its own beside the trusted rules, the strictest answer winning, so it can
   * only narrow what the agent may do.
   */
  restrictions?: PermissionConfig[];
  maxTurns?: number;
  /** `permissionMode:` — its own permission mode (DESIGN §26); combined with its parent's, it can only tighten. */
  permissionMode?: PermissionMode;
  /** `sandbox:` — tightens the sandbox the session inherits (DESIGN §19). */
  sandbox?: SandboxMode;
  /**
   * The `sandbox:` came from a file of an untrusted project: it may turn the sandbox on, but
   * commands that asked before still ask (auto-allow would widen what the project can do).
   */
  untrustedSandbox?: boolean;
  /** `runner:` — where its commands run (DESIGN §25): `docker` puts them in a container of its own. */
  runner?: RunnerKind;
  color?: string;
  /** Where it runs as a sub-agent when the task call does not say: its own git worktree, or the parent's folder. */
  isolation?: 'none' | 'worktree';
  /** Skills it may load, as names or globs; undefined means every skill, empty means none. */
  skills?: string[];
  /** Every `task` call that starts it runs in the background. */
  background?: boolean;
  /** Its memory folder's scope (agents/memory.ts). */
  memory?: MemoryScope;
  /**
   * Hooks of its own (its file's `hooks:`), run in its sessions beside the settings files'
   * (engine/session-factory.ts); as a sub-agent its `Stop` hooks fire as `SubagentStop`.
   */
  hooks?: HookSet;
  /**
   * `mcpServers:` servers written out in its file: its own, started for each of its sessions
   * when that session first needs tools and stopped when the session ends (engine/agent-mcp.ts);
   * no other agent or session sees them.
   */
  mcpServers?: Record<string, McpServerConfig>;
  /** `mcpServers:` names of configured servers it uses; one no configuration defines is named in a warning (project-context.ts). */
  mcpServerNames?: string[];
  /** `effort:` — how hard its model thinks, where the model takes it (provider/effort.ts). */
  effort?: Effort;
  hidden: boolean;
  disable: boolean;
  /** Absolute path of the file that defined it, or `config`. */
  source: string;
}
