// An MCP server's tool as one of ours: named `mcp__<server>__<tool>`, offered with the
// server's own input schema, asking permission under its own name (default `ask`, so rules
// like `"mcp__github__*": "allow"` decide), and returning the server's result as text.
import * as z from 'zod';
import type { McpToolInfo } from './connection.js';
import { mcpToolName } from './names.js';
import { formatCallResult, type McpCallResult } from './result.js';
import { defineTool, type Tool } from '../tools/types.js';

export type McpCall = (tool: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<McpCallResult>;

/** Like bash's output: enough for the model to work with, never a flood. */
export const MAX_MCP_OUTPUT_CHARS = 30_000;
const MAX_DESCRIPTION = 2000;

export function createMcpTool(server: string, info: McpToolInfo, call: McpCall): Tool {
  const name = mcpToolName(server, info.name);
  // The server validates its own arguments; its schema is what the model sees (merged over
  // an open object, which z.toJSONSchema renders, so the request carries the server's schema).
  const parameters = z.looseObject({}).meta(schemaForApi(info.inputSchema));
  const description = `${(info.description ?? `Tool "${info.name}" of MCP server "${server}".`).slice(0, MAX_DESCRIPTION)}\n(MCP server: ${server})`;
  return defineTool({
    name,
    description,
    parameters,
    readOnly: info.readOnly,
    async execute(args, ctx) {
      await ctx.ask({ permission: name, patterns: ['*'], subject: `${server} → ${info.name} ${preview(args)}` });
      let result: McpCallResult;
      try {
        result = await call(info.name, args, ctx.signal);
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        return { output: `MCP tool "${info.name}" of server "${server}" failed: ${err instanceof Error ? err.message : String(err)}`, isError: true };
      }
      const { output, isError } = formatCallResult(result);
      const capped =
        output.length > MAX_MCP_OUTPUT_CHARS
          ? `${output.slice(0, MAX_MCP_OUTPUT_CHARS)}\n\n[Output truncated: ${output.length - MAX_MCP_OUTPUT_CHARS} more characters omitted.]`
          : output;
      return { output: capped, ...(isError ? { isError: true } : {}), metadata: { server, tool: info.name } };
    },
  });
}

/** The server's schema minus keys the Messages API does not take at the top level. */
function schemaForApi(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _s, ...rest } = schema;
  return { ...rest, type: 'object' };
}

function preview(args: Record<string, unknown>): string {
  const text = JSON.stringify(args);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
