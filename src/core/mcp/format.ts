// One MCP server's state as plain lines, the same in `opencode-ink mcp list` and the TUI's
// `/mcp`: a head line (name, state, transport), its error, then one line per tool.
import { terminalSafe } from '../text/terminal-safe.js';
import type { McpServerState } from './manager.js';

export function mcpStateLines(state: McpServerState): string[] {
  const status = state.status === 'connected' ? `connected (${state.tools.length} tool${state.tools.length === 1 ? '' : 's'})` : state.status;
  const lines = [`${state.name}  ${status}  ${state.type}`];
  if (state.error) lines.push(`  error: ${state.error}`);
  for (const tool of state.tools) {
    const about = tool.description ? ` — ${tool.description.split('\n')[0]!.slice(0, 100)}` : '';
    lines.push(`  ${tool.name}${about}`);
  }
  // Names, errors and descriptions come from servers and config: no escape sequence reaches the terminal.
  return lines.map((line) => terminalSafe(line));
}
