// `opencode-ink mcp list [--json]`: starts every configured MCP server (as a session would),
// reports each one's state and tools, and stops them again. Then the same for each agent's own
// servers (inline `mcpServers` in its file), each named with its agent and that agent's file:
// they are checked the way configured ones are, one agent's set at a time beside the others,
// and stopped before the command returns. Servers of an untrusted project's `.mcp.json` or
// agent files are not started; the trust notice names them.
import { isAbsolute, relative } from 'node:path';
import { mcpStateLines } from '../../core/mcp/format.js';
import { McpManager, type McpServerConfig, type McpServerState } from '../../core/mcp/index.js';
import type { OpenedProject } from '../../core/project-context.js';
import { terminalSafe } from '../../core/text/terminal-safe.js';

/** A server an agent's file defines: its state, and which agent (and file) it belongs to. */
export interface AgentMcpServerState extends McpServerState {
  agent: { name: string; file: string };
}

async function statesOf(servers: Record<string, McpServerConfig>, cwd: string): Promise<McpServerState[]> {
  const manager = new McpManager(servers, { cwd });
  try {
    await manager.start();
    return manager.states();
  } finally {
    await manager.close();
  }
}

export async function mcpStates(ctx: OpenedProject): Promise<McpServerState[]> {
  return statesOf(ctx.mcp, ctx.cwd);
}

/** Every agent's own servers, checked like configured ones; agents in name order. */
export async function agentMcpStates(ctx: OpenedProject): Promise<AgentMcpServerState[]> {
  const owners = [...ctx.agents.values()].filter((agent) => agent.mcpServers !== undefined).sort((a, b) => a.name.localeCompare(b.name));
  const perAgent = await Promise.all(
    owners.map(async (agent) => {
      const states = await statesOf(agent.mcpServers ?? {}, ctx.cwd);
      return states.map((state) => ({ ...state, agent: { name: agent.name, file: agent.source } }));
    }),
  );
  return perAgent.flat();
}

/** A file inside the project by its path from there; anything else (the user's folders, `config`) as it is. */
function shownPath(cwd: string, file: string): string {
  const inside = relative(cwd, file);
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? file : inside;
}

export async function mcpListCommand(ctx: OpenedProject, opts: { json: boolean }): Promise<string> {
  const [states, agentStates] = await Promise.all([mcpStates(ctx), agentMcpStates(ctx)]);
  if (opts.json) return JSON.stringify([...states, ...agentStates], null, 2);
  if (states.length === 0 && agentStates.length === 0) return 'No MCP servers configured (add them under "mcp" in .opencoderc.json, or in .mcp.json).';
  const blocks = states.map((state) => mcpStateLines(state).join('\n'));
  for (const state of agentStates) {
    const file = shownPath(ctx.cwd, state.agent.file);
    const head = terminalSafe(`agent ${state.agent.name} (${file}):`);
    blocks.push([head, ...mcpStateLines(state).map((line) => `  ${line}`)].join('\n'));
  }
  return blocks.join('\n\n');
}
