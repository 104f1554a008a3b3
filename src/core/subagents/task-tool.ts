// `task`: the tool a parent model calls to start a sub-agent. Its description carries the
// catalogue of sub-agents and its schema names them, so the model picks from what exists;
// everything it does is delegated to the supervisor.
import * as z from 'zod';
import { builtSchema, lazySchema } from '../lazy-schema.js';
import type { AgentDefinition } from '../agents/index.js';
import { defineTool, type Tool, type ToolContext, type ToolResult } from '../tools/types.js';
import { FORK_SUBAGENT_TYPE } from './fork.js';
import { TASK_TOOL } from './gates.js';

export interface TaskArgs {
  description: string;
  prompt: string;
  subagent_type: string;
  session_id?: string | undefined;
  model?: string | undefined;
  tools?: string[] | undefined;
  system_prompt?: string | undefined;
  run_in_background?: boolean | undefined;
  max_turns?: number | undefined;
  command?: string | undefined;
  isolation?: 'none' | 'worktree' | undefined;
  /** Start a fork: a copy of the caller with its conversation so far (./fork.ts). */
  fork?: boolean | undefined;
  /** Start (or message) a teammate of this name (DESIGN §24, team/teammates.ts). */
  name?: string | undefined;
}

/** Generous for a written identity, small enough that a runaway argument cannot fill a context. */
const MAX_SYSTEM_PROMPT_CHARS = 50_000;

/** The agents each `task` tool's parameters offer as subagent_type, by parameters object. */
const offers = new WeakMap<z.ZodType, readonly string[]>();

/** The subagent_type choices of `parameters` if they are a `task` tool's (tools/input-schemas.ts makes its JSON Schema from them). */
export function offeredAgents(parameters: z.ZodType): readonly string[] | undefined {
  return offers.get(parameters);
}

export type RunTask = (args: TaskArgs, ctx: ToolContext) => Promise<ToolResult>;

/**
 * Builds the `task` tool for one parent session, offering the given sub-agents. `denied` names
 * the types its permission rules deny: left out of the offer, and named as denied if called.
 */
export function createTaskTool(subagents: readonly AgentDefinition[], run: RunTask, denied: readonly string[] = []): Tool {
  const { description, parameters, userParameters } = taskShape(subagents, denied);
  return defineTool({
    name: TASK_TOOL,
    description,
    parameters,
    // A command may run any agent as a task, primary ones too; the model picks from the catalogue.
    userParameters,
    readOnly: false,
    // Each sub-agent records its own changes.
    fileChanges: 'reported',
    runsTogether: true,
    execute: (args, ctx) => run(args, ctx),
  });
}

/**
 * The tool's description and schemas for one offer of sub-agents, built once per offer: every
 * session that may start sub-agents gets its own `task` tool, and ten children of one parent
 * offer the same agents, so they share one schema (converted to JSON Schema once, agent/loop.ts).
 */
const shapes = new Map<string, ReturnType<typeof buildTaskShape>>();
const MAX_SHAPES = 32;

function taskShape(subagents: readonly AgentDefinition[], denied: readonly string[]): ReturnType<typeof buildTaskShape> {
  const key = JSON.stringify([subagents.map((a) => [a.name, a.description]), denied]);
  let shape = shapes.get(key);
  if (!shape) {
    // Offers change only with the configuration: a bound keeps a long session's edits from piling up.
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shape = buildTaskShape(subagents, denied);
    shapes.set(key, shape);
  }
  return shape;
}

function buildTaskShape(subagents: readonly AgentDefinition[], denied: readonly string[]) {
  // `fork` is Claude Code's name for a copy of the caller; an agent of that name cannot take it.
  const names = [...subagents.map((a) => a.name).filter((n) => n !== FORK_SUBAGENT_TYPE), FORK_SUBAGENT_TYPE];
  const listing = names.join(', ');
  const parameters = lazySchema(() =>
    z.object({
      description: z.string().min(1).describe('A short (3-5 words) label for the task, shown to the user.'),
      prompt: z
        .string()
        .min(1)
        .describe(
          'The full task for the sub-agent. It sees nothing else of this conversation (unless it is a fork), so include goals, paths, constraints and what to report back.',
        ),
      subagent_type: z
        .enum(names as [string, ...string[]], {
          error: (issue) =>
            denied.includes(String(issue.input))
              ? `Sub-agent type "${String(issue.input)}" is denied by the permission rules (permission.task); use one of: ${listing}`
              : `"${String(issue.input)}" is not an available sub-agent type; use one of: ${listing}`,
        })
        .describe('Which sub-agent to run; "fork" starts a fork (see `fork`).'),
      session_id: z
        .string()
        .optional()
        .describe(
          'Continue an earlier task of yours: the id from its <task id="..."> result. Its history is kept. If that task is still running, `prompt` is delivered to it as a message at its next step and the call returns at once.',
        ),
      model: z
        .string()
        .optional()
        .describe('Model for this task (sonnet, opus, haiku, or provider/model). Defaults to the agent\'s model, then yours.'),
      tools: z
        .array(z.string())
        .optional()
        .describe('Restrict the sub-agent to these tool names. Can only narrow its tools, never add ones it would not have.'),
      system_prompt: z
        .string()
        .max(MAX_SYSTEM_PROMPT_CHARS)
        .refine((s) => s.trim() !== '', { error: 'system_prompt must not be empty; leave it out to use the agent\'s own prompt' })
        .optional()
        .describe(
          "An identity for this sub-agent in place of its agent's own system prompt (e.g. \"You are a security reviewer...\"). Its tools and permissions still come from subagent_type. Kept when the task is resumed.",
        ),
      run_in_background: z
        .boolean()
        .optional()
        .describe('Return at once; the result arrives later as a message. Use for long work you do not need right away.'),
      max_turns: z.number().int().positive().max(500).optional().describe('Cap on the sub-agent\'s model requests.'),
      command: z.string().optional().describe('The slash command that triggered this task, if any.'),
      isolation: z
        .enum(['none', 'worktree'])
        .optional()
        .describe(
          '"worktree": run the sub-agent in its own git worktree made from your working tree as it is now, and merge its changes back when it ends. Use it for tasks that change files in parallel with others. A conflict leaves your files untouched and keeps its work on a branch.',
        ),
      fork: z
        .boolean()
        .optional()
        .describe(
          'Start a fork: a copy of you that inherits this whole conversation, with your instructions, tools and model, and works on `prompt` on its own (subagent_type is then ignored; model, tools and system_prompt cannot be set). Cheap to start: the shared conversation is read from the prompt cache. Use it for a side task that needs what you already know.',
        ),
      name: z
        .string()
        .max(40)
        .optional()
        .describe(
          'Start a teammate with this name (e.g. "backend"): it runs in the background and, after each piece of work, goes idle instead of ending; you are told when it does, with its last line. Wake it with send_message or by assigning it a task (task_list owner = its name). Naming a teammate that exists sends it `prompt` as a message instead of starting another. Teammates share the task list and message each other (send_message).',
        ),
    }),
  );

  const catalogue = [
    ...subagents.filter((a) => a.name !== FORK_SUBAGENT_TYPE).map((a) => `- ${a.name}: ${a.description || '(no description)'}`),
    `- ${FORK_SUBAGENT_TYPE}: a copy of you with this conversation so far (same as fork: true)`,
  ].join('\n');
  const description = [
    'Start a sub-agent that works on a task in its own session, with its own context window and tools, and returns its final report to you.',
    'Use it for broad searches across the codebase, for independent pieces of work that can proceed in parallel, and for work whose details would flood your context. For a quick lookup of a known file, use read or grep directly instead.',
    'Several task calls in one message run in parallel. The sub-agent sees only your prompt: make it self-contained and say exactly what it should return. Its report is for you, not the user: pass on what matters.',
    'The result looks like <task id="..." state="completed|limited|failed|cancelled|running"><task_result>...</task_result><tool_log>...</tool_log></task> (limited: it stopped at its cap on model requests; its work may be unfinished): the sub-agent\'s final report, then one line per tool call it made (marked "(error)" when the call failed), so you can judge how it reached its answer. Pass that id as session_id to follow up with the same sub-agent.',
    'A fork (fork: true, or subagent_type "fork") is a copy of you that knows everything said so far, so its prompt only needs to say what to do; its result comes back the same way.',
    'With isolation "worktree" the sub-agent works in its own copy of your working tree; the result then also says merge="merged|conflict|none": which files reached your working tree, or, on a conflict, which files clashed and the branch holding its work (your files are left untouched).',
    '',
    'Available sub-agents:',
    catalogue,
  ].join('\n');
  offers.set(parameters, names);
  return { description, parameters, userParameters: lazySchema(() => builtSchema(parameters).extend({ subagent_type: z.string().min(1) })) };
}
