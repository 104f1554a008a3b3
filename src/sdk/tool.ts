// In-process tools for the library (DESIGN §21). Contract: `tool({ name, description, input,
// run })` checks its definition at once (a bad one throws one sentence naming the tool and
// the field) and returns a handle that `query({ tools })` accepts. The model sees the tool
// like a built-in one: its zod object becomes the JSON Schema of its parameters, arguments
// are validated before `run` is called, and whatever `run` throws becomes an error tool
// result the model reads, never a crash. Every call passes the permission gate under the
// tool's own name (allowed unless a `permission` rule says otherwise), so a config's deny
// rule or a parent's narrower rules hold for it too. Sub-agents get it when their `tools`
// allowlist names it or they have none.
import type * as z from 'zod';
import { defineTool, type Tool } from '../core/tools/types.js';

/** What `run` may return: the text the model reads, or that text marked as an error. */
export type ToolOutput = string | { output: string; isError?: boolean };

/** Where a call of an in-process tool comes from. */
export interface ToolCallContext {
  /** The session making the call (a sub-agent's own session for a sub-agent). */
  sessionId: string;
  /** The agent making the call, e.g. `build` or `explore`. */
  agent: string;
  /** The session's working directory. */
  cwd: string;
  /** The model's id for this call. */
  callId: string;
  /** Aborted when the turn is cancelled: stop work and return. */
  signal: AbortSignal;
}

export interface ToolDefinition<Input extends z.ZodObject> {
  /** What the model calls it: letters, digits, `_` and `-`, at most 64 (the providers' limit). */
  name: string;
  /** What the model reads to decide when to call it. */
  description: string;
  /** The arguments, as a zod object schema (`z.object({...})`). */
  input: Input;
  run(input: z.infer<Input>, context: ToolCallContext): ToolOutput | Promise<ToolOutput>;
  /** Calls with no side effects may run alongside the model's other read-only calls. Default false. */
  readOnly?: boolean;
}

/** A tool made by `tool()`, to pass in `query({ tools })`. */
export interface InProcessTool {
  readonly name: string;
  readonly description: string;
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The core tool behind each handle; a handle not made by `tool()` has none. */
const coreTools = new WeakMap<object, Tool>();

/** Defines a tool the model can call, run in this process. Throws on a bad definition. */
export function tool<Input extends z.ZodObject>(definition: ToolDefinition<Input>): InProcessTool {
  const { name, description, input, run, readOnly } = definition ?? {};
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw new TypeError(`tool(): name must be 1 to 64 letters, digits, "_" or "-" (got ${JSON.stringify(name)}).`);
  }
  if (typeof description !== 'string' || description.trim() === '') throw new TypeError(`tool "${name}": description must be a non-empty string.`);
  if (!isZodObject(input)) throw new TypeError(`tool "${name}": input must be a zod object schema, e.g. z.object({ city: z.string() }) (zod 4).`);
  if (typeof run !== 'function') throw new TypeError(`tool "${name}": run must be a function.`);
  const core = defineTool({
    name,
    description,
    parameters: input,
    readOnly: readOnly === true,
    async execute(args, ctx) {
      await ctx.ask({ permission: name, patterns: ['*'], subject: `${name} ${preview(args)}` });
      const output = await run(args, { sessionId: ctx.sessionId, agent: ctx.agent, cwd: ctx.cwd, callId: ctx.callId, signal: ctx.signal });
      if (typeof output === 'string') return { output };
      if (output && typeof output === 'object' && typeof output.output === 'string') return { output: output.output, isError: output.isError === true };
      return { output: `Tool "${name}" returned neither a string nor { output: string }.`, isError: true };
    },
  });
  const handle: InProcessTool = Object.freeze({ name, description });
  coreTools.set(handle, core);
  return handle;
}

/** The core tool behind a handle made by `tool()`; undefined for anything else. */
export function coreToolOf(handle: unknown): Tool | undefined {
  return typeof handle === 'object' && handle !== null ? coreTools.get(handle) : undefined;
}

/**
 * Zod 4 schemas carry their definition under `_zod`; checked by shape rather than
 * `instanceof`, so a schema made with the program's own copy of zod 4 is accepted too.
 */
function isZodObject(value: unknown): value is z.ZodObject {
  if (typeof value !== 'object' || value === null || !('_zod' in value)) return false;
  const internals = (value as { _zod: unknown })._zod;
  if (typeof internals !== 'object' || internals === null || !('def' in internals)) return false;
  const def = (internals as { def: unknown }).def;
  return typeof def === 'object' && def !== null && (def as { type?: unknown }).type === 'object' && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}

/** The arguments on one short line, for the approval's subject. */
function preview(args: unknown): string {
  const text = JSON.stringify(args) ?? '';
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
