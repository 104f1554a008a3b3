// `opencode-ink mcp list [--json]`: starts every configured MCP server (as a session would),
// reports each one's state and tools, and stops them again. Servers of an untrusted
// project's `.mcp.json` are not started; the trust notice names them.
import { mcpStateLines } from '../../core/mcp/format.js';
import { McpManager, type McpServerState } from '../../core/mcp/index.js';
import type { OpenedProject } from '../../core/project-context.js';

export async function mcpStates(ctx: OpenedProject): Promise<McpServerState[]> {
  const manager = new McpManager(ctx.mcp, { cwd: ctx.cwd });
  try {
    await manager.start();
    return manager.states();
  } finally {
    await manager.close();
  }
}

export async function mcpListCommand(ctx: OpenedProject, opts: { json: boolean }): Promise<string> {
  const states = await mcpStates(ctx);
  if (opts.json) return JSON.stringify(states, null, 2);
  if (states.length === 0) return 'No MCP servers configured (add them under "mcp" in .opencoderc.json, or in .mcp.json).';
  return states.map((state) => mcpStateLines(state).join('\n')).join('\n\n');
}
