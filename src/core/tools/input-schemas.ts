// Tools' parameters as the JSON Schema a model request sends (`input_schema`). Converting a
// zod schema is a few milliseconds per request's tool set, on the path to the first request;
// the parameters of the built-in tools, `websearch` and `ask_user` are constants, so the build
// converts them once (scripts/tool-schemas.mjs, `__OC_TOOL_SCHEMAS__`) and a start uses that
// table for a tool whose parameters are the very object the static tool of that name has.
// `task`'s schema names the agents each session may start: the build converts it for no agent
// but `fork`, and a session's is that template with its names in the enum (offeredAgents).
// Any other tool (MCP tools) and every tool when running from source is converted here, with
// the same function the build used.
import * as z from 'zod';
import { builtSchema } from '../lazy-schema.js';
import { askUserTool } from '../subagents/ask-user-tool.js';
import { TASK_TOOL } from '../subagents/gates.js';
import { createTaskTool, offeredAgents } from '../subagents/task-tool.js';
import { BUILTIN_TOOLS } from './index.js';
import type { Tool } from './types.js';
import { WEBSEARCH_PARAMETERS, WEBSEARCH_TOOL } from './websearch.js';

export type InputSchema = Record<string, unknown>;

/** The JSON Schema of `parameters` as the model is sent it: what a call may contain, without `$schema`. */
export function convertInputSchema(parameters: z.ZodType): InputSchema {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(builtSchema(parameters), { io: 'input' }) as InputSchema;
  return schema;
}

/** The tools whose parameters are module constants, whatever the session. */
function staticTools(): ReadonlyArray<Pick<Tool, 'name' | 'parameters'>> {
  return [...BUILTIN_TOOLS, { name: WEBSEARCH_TOOL, parameters: WEBSEARCH_PARAMETERS }, askUserTool];
}

/** Every static tool's input schema by name, and `task`'s template (agents: `fork` only): the build's table. */
export function builtinInputSchemas(): Record<string, InputSchema> {
  const task = createTaskTool([], () => Promise.reject(new Error('the build never runs a task')));
  return { ...Object.fromEntries(staticTools().map((tool) => [tool.name, convertInputSchema(tool.parameters)])), [task.name]: convertInputSchema(task.parameters) };
}

declare const __OC_TOOL_SCHEMAS__: Record<string, InputSchema> | undefined;

const prebuilt: Record<string, InputSchema> | undefined = typeof __OC_TOOL_SCHEMAS__ === 'undefined' ? undefined : __OC_TOOL_SCHEMAS__;

/** `tool`'s input schema: from the build's table for an unchanged built-in tool or `task`, else converted now. */
export function inputSchemaOf(tool: Pick<Tool, 'name' | 'parameters'>): InputSchema {
  const fromBuild = prebuilt && Object.hasOwn(prebuilt, tool.name) ? prebuilt[tool.name] : undefined;
  if (fromBuild && staticTools().some((known) => known.name === tool.name && known.parameters === tool.parameters)) return fromBuild;
  const agents = offeredAgents(tool.parameters);
  if (fromBuild && agents && tool.name === TASK_TOOL) {
    const named = withAgentNames(fromBuild, agents);
    if (named) return named;
  }
  return convertInputSchema(tool.parameters);
}

/** The template with `names` as subagent_type's choices; undefined if the template has no such enum (then the schema is converted). */
function withAgentNames(template: InputSchema, names: readonly string[]): InputSchema | undefined {
  const schema = structuredClone(template);
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null || !('subagent_type' in properties)) return undefined;
  const field: unknown = properties.subagent_type;
  if (typeof field !== 'object' || field === null || !('enum' in field) || !Array.isArray(field.enum)) return undefined;
  field.enum = [...names];
  return schema;
}
