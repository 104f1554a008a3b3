// `opencode-ink mcp list [--json]`: starts every configured MCP server (as a session would),
// reports each one's state and tools, and stops them again. Servers of an untrusted
// project's `.mcp.json` are not started; the trust notice names them.
import { McpManager, type McpServerState } from '../../core/mcp/index.js';
import { terminalSafe } from '../../core/text/terminal-safe.js';
import type { CliContext } from '../context.js';
import { table } from '../format.js';

export async function mcpStates(ctx: CliContext): Promise<McpServerState[]> {
  const manager = new McpManager(ctx.mcp, { cwd: ctx.cwd });
  try {
    await manager.start();
    return manager.states();
  } finally {
    await manager.close();
  }
}

export async function mcpListCommand(ctx: CliContext, opts: { json: boolean }): Promise<string> {
  const states = await mcpStates(ctx);
  if (opts.json) return JSON.stringify(states, null, 2);
  if (states.length === 0) return 'No MCP servers configured (add them under "mcp" in .opencoderc.json, or in .mcp.json).';
  return states.map(formatState).join('\n\n');
}

/** One server as text: its state line, then its tools. Shared with the TUI's `/mcp`. */
export function formatState(state: McpServerState): string {
  const head = table([
    [
      state.name,
      state.status === 'connected' ? `connected (${state.tools.length} tool${state.tools.length === 1 ? '' : 's'})` : state.status,
      state.type,
    ],
  ]);
  const lines = [head];
  if (state.error) lines.push(`  error: ${state.error}`);
  for (const tool of state.tools) {
    const about = tool.description ? ` — ${tool.description.split('\n')[0]!.slice(0, 100)}` : '';
    lines.push(`  ${tool.name}${about}`);
  }
  return terminalSafe(lines.join('\n'));
}
