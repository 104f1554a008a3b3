// `opencode-ink agents`: every agent with its mode, model, tools and where it came from.
import type { AgentDefinition } from '../../core/agents/index.js';
import { agentToolNames } from '../../core/engine.js';
import type { CliContext } from '../context.js';
import { table } from '../format.js';
import { terminalSafe } from '../../core/text/terminal-safe.js';

export interface AgentListing {
  name: string;
  mode: AgentDefinition['mode'];
  description: string;
  model: string | null;
  tools: string[];
  source: string;
}

export function agentListings(ctx: CliContext): AgentListing[] {
  const hasSubagents = [...ctx.agents.values()].some((a) => a.mode !== 'primary' && !a.disable);
  return [...ctx.agents.values()]
    .filter((a) => !a.disable)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((agent) => {
      return {
        name: agent.name,
        mode: agent.mode,
        description: agent.description,
        model: agent.model ?? null,
        tools: agentToolNames(agent, ctx.config, hasSubagents),
        source: agent.source,
      };
    });
}

export function agentsCommand(ctx: CliContext, opts: { json: boolean }): string {
  const listings = agentListings(ctx);
  if (opts.json) return JSON.stringify(listings, null, 2);
  // Agent files come from the project: their text reaches the terminal without escape sequences.
  return terminalSafe(
    table([
      ['NAME', 'MODE', 'MODEL', 'SOURCE', 'DESCRIPTION'],
      ...listings.map((a) => [a.name, a.mode, a.model ?? '(default)', a.source, a.description.split('\n')[0] ?? '']),
    ]),
  );
}
