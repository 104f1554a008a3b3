// `opencode-ink agents`: every agent with its mode, model, tools and where it came from, and
// what loading the agent files warned about (start-up sums some of it up in one line).
import type { AgentDefinition } from '../../core/agents/index.js';
import { agentToolNames } from '../../core/engine.js';
import type { OpenedProject } from '../../core/project-context.js';
import { table } from '../format.js';
import { terminalSafe } from '../../core/text/terminal-safe.js';

export interface AgentListing {
  name: string;
  mode: AgentDefinition['mode'];
  description: string;
  model: string | null;
  tools: string[];
  source: string;
  /** Claude Code's agent-file fields that change how it runs; each only present when its file or config sets it. */
  permissionMode?: string;
  maxTurns?: number;
  isolation?: 'none' | 'worktree';
  background?: boolean;
  memory?: string;
  color?: string;
  effort?: string;
  runner?: string;
  /** Skills preloaded into its prompt. */
  skills?: string[];
  /** Names of the MCP servers its file defines for its own sessions. */
  mcpServers?: string[];
  /** Hook events its file sets hooks for. */
  hooks?: string[];
  /** What loading its file warned about (unknown tools, scopes not applied, …); only present when something did. */
  warnings?: string[];
}

export function agentListings(ctx: OpenedProject): AgentListing[] {
  const hasSubagents = [...ctx.agents.values()].some((a) => a.mode !== 'primary' && !a.disable);
  return [...ctx.agents.values()]
    .filter((a) => !a.disable)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((agent) => {
      const warnings = [...ctx.agentWarnings.filter((w) => w.source === agent.source).map((w) => w.message), ...missingSkills(ctx, agent)];
      return {
        name: agent.name,
        mode: agent.mode,
        description: agent.description,
        model: agent.model ?? null,
        tools: agentToolNames(agent, ctx.config, hasSubagents, ctx.skills.skills.values()),
        source: agent.source,
        ...runFields(agent),
        ...(warnings.length > 0 ? { warnings } : {}),
      };
    });
}

/** The fields of an agent's file beyond name, tools and model, as set (absent when not). */
function runFields(agent: AgentDefinition): Partial<AgentListing> {
  const hookEvents = Object.entries(agent.hooks ?? {}).filter(([, groups]) => (groups?.length ?? 0) > 0).map(([event]) => event);
  const servers = Object.keys(agent.mcpServers ?? {});
  return {
    ...(agent.permissionMode !== undefined ? { permissionMode: agent.permissionMode } : {}),
    ...(agent.maxTurns !== undefined ? { maxTurns: agent.maxTurns } : {}),
    ...(agent.isolation !== undefined ? { isolation: agent.isolation } : {}),
    ...(agent.background !== undefined ? { background: agent.background } : {}),
    ...(agent.memory !== undefined ? { memory: agent.memory } : {}),
    ...(agent.color !== undefined ? { color: agent.color } : {}),
    ...(agent.effort !== undefined ? { effort: agent.effort } : {}),
    ...(agent.runner !== undefined ? { runner: agent.runner } : {}),
    ...(agent.skills !== undefined && agent.skills.length > 0 ? { skills: [...agent.skills] } : {}),
    ...(servers.length > 0 ? { mcpServers: servers } : {}),
    ...(hookEvents.length > 0 ? { hooks: hookEvents } : {}),
  };
}

/** Skills an agent names exactly (to preload them) that no skills folder holds: nothing of theirs reaches its prompt. */
function missingSkills(ctx: OpenedProject, agent: AgentDefinition): string[] {
  const missing = (agent.skills ?? []).filter((name) => !name.includes('*') && !ctx.skills.skills.has(name));
  return missing.length === 0 ? [] : [`agent "${agent.name}": no skill named ${missing.map((n) => `"${n}"`).join(', ')} was found, so its "skills" preloads nothing for ${missing.length > 1 ? 'them' : 'it'}.`];
}

export function agentsCommand(ctx: OpenedProject, opts: { json: boolean }): string {
  const listings = agentListings(ctx);
  if (opts.json) return JSON.stringify(listings, null, 2);
  const listed = table([
    ['NAME', 'MODE', 'MODEL', 'SOURCE', 'DESCRIPTION'],
    ...listings.map((a) => [a.name, a.mode, a.model ?? '(default)', a.source, a.description.split('\n')[0] ?? '']),
  ]);
  // Every warning, also those of files whose agent another one overrode or that were skipped.
  const warnings = [
    ...ctx.agentWarnings.map((w) => `  ${w.source}: ${w.message}`),
    ...[...ctx.agents.values()].filter((a) => !a.disable).flatMap((agent) => missingSkills(ctx, agent).map((message) => `  ${agent.source}: ${message}`)),
  ];
  const text = warnings.length > 0 ? `${listed}\n\nWarnings:\n${warnings.join('\n')}` : listed;
  // Agent files come from the project: their text reaches the terminal without escape sequences.
  return terminalSafe(text);
}
