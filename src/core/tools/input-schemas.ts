// Tools' parameters as the JSON Schema a model request sends (`input_schema`). Converting a
// zod schema is a few milliseconds per request's tool set, on the path to the first request;
// the parameters of the built-in tools, `websearch` and `ask_user` are constants, so the build
// converts them once (scripts/tool-schemas.mjs, `__OC_TOOL_SCHEMAS__`) and a start uses that
// table for a tool whose parameters are the very object the static tool of that name has.
// Any other tool (`task`, whose schema names the agents; MCP tools) and every tool when
// running from source is converted here, with the same function the build used.
import { z } from 'zod';
import { askUserTool } from '../subagents/ask-user-tool.js';
import { BUILTIN_TOOLS } from './index.js';
import type { Tool } from './types.js';
import { WEBSEARCH_PARAMETERS, WEBSEARCH_TOOL } from './websearch.js';

export type InputSchema = Record<string, unknown>;

/** The JSON Schema of `parameters` as the model is sent it: what a call may contain, without `$schema`. */
export function convertInputSchema(parameters: z.ZodType): InputSchema {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(parameters, { io: 'input' }) as InputSchema;
  return schema;
}

/** The tools whose parameters are module constants, whatever the session. */
function staticTools(): ReadonlyArray<Pick<Tool, 'name' | 'parameters'>> {
  return [...BUILTIN_TOOLS, { name: WEBSEARCH_TOOL, parameters: WEBSEARCH_PARAMETERS }, askUserTool];
}

/** Every static tool's input schema by name: the build's table. */
export function builtinInputSchemas(): Record<string, InputSchema> {
  return Object.fromEntries(staticTools().map((tool) => [tool.name, convertInputSchema(tool.parameters)]));
}

declare const __OC_TOOL_SCHEMAS__: Record<string, InputSchema> | undefined;

const prebuilt: Record<string, InputSchema> | undefined = typeof __OC_TOOL_SCHEMAS__ === 'undefined' ? undefined : __OC_TOOL_SCHEMAS__;

/** `tool`'s input schema: from the build's table for an unchanged built-in tool, else converted now. */
export function inputSchemaOf(tool: Pick<Tool, 'name' | 'parameters'>): InputSchema {
  const fromBuild = prebuilt && Object.hasOwn(prebuilt, tool.name) ? prebuilt[tool.name] : undefined;
  if (fromBuild && staticTools().some((known) => known.name === tool.name && known.parameters === tool.parameters)) return fromBuild;
  return convertInputSchema(tool.parameters);
}
