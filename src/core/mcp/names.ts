// How MCP tools are named for the model: `mcp__<server>__<tool>` (Claude Code's naming, so
// agent files' allowlists such as `mcp__github__*` keep working). The API accepts only
// [A-Za-z0-9_-] and at most 64 characters, so both parts are sanitised and the whole capped.

export const MCP_TOOL_PREFIX = 'mcp__';
const MAX_TOOL_NAME = 64;

export function sanitizeName(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_-]/g, '_');
  return clean || '_';
}

export function mcpToolName(server: string, tool: string): string {
  return `${MCP_TOOL_PREFIX}${sanitizeName(server)}__${sanitizeName(tool)}`.slice(0, MAX_TOOL_NAME);
}
