// The options of `query()` (DESIGN §21) and their checking. Contract: `checkQueryOptions`
// either returns the options with defaults filled in and the in-process tools resolved to
// core tools, or throws a TypeError whose message is one sentence naming the option and what
// was wrong with it. Nothing is loaded or started here: the project, its configuration and
// the credentials are checked when the query runs, and their problems reject `result()`.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { agentConfigEntrySchema, type AgentConfigEntry } from '../core/agents/schema.js';
import type { EventOf } from '../core/events.js';
import { badModeMessage, isPermissionMode, type PermissionMode } from '../core/permission/modes.js';
import { ASK_USER_TOOL, TASK_TOOL } from '../core/subagents/index.js';
import { BUILTIN_TOOLS } from '../core/tools/index.js';
import type { Tool } from '../core/tools/types.js';
import { WEBSEARCH_TOOL } from '../core/tools/websearch.js';
import { coreToolOf, type InProcessTool } from './tool.js';

/**
 * A permission ask from any session of the tree: the `permission.asked` event, plus the asking
 * call's input when known, and `title`: the tool and its target in one line (`write plan.md`,
 * `bash npm test`), never a diff — that is in `subject`.
 */
export type PermissionRequest = EventOf<'permission.asked'> & { input?: unknown; title: string };

/** `once` allows this call; `always` also allows what the ask's `always` patterns cover for the rest of the query's session tree; `reject` refuses it. */
export type PermissionAnswer = 'once' | 'always' | 'reject';

/** An `ask_user` question from any session of the tree: the `question.asked` event. */
export type QuestionRequest = EventOf<'question.asked'>;

/** An agent a program defines: the fields of the config's `agent` key (DESIGN §4), with its `prompt`. */
export type AgentSpec = AgentConfigEntry;

export interface QueryOptions {
  /** The user's message. `/command args` and `@agent text` work as in `run`. */
  prompt: string;
  /** The project folder; default: the process's working directory. */
  cwd?: string;
  /** `provider/model` or an alias (`sonnet`); default: the agent's, then the configuration's. */
  model?: string;
  /** The primary agent of a new session (default: the configuration's `default_agent`), or the one an existing session switches to. */
  agent?: string;
  /** Continues this root session (its id or a unique prefix) instead of starting a new one. */
  sessionId?: string;
  /** Agents defined by the program, by name; they override files and configuration of the same name. */
  agents?: Record<string, AgentSpec>;
  /** In-process tools made with `tool()`. */
  tools?: readonly InProcessTool[];
  /** Answers every permission ask, from any depth. Without it, asks are refused as in `run`. */
  canUseTool?: (request: PermissionRequest) => PermissionAnswer | Promise<PermissionAnswer>;
  /** Answers `ask_user`; a string is the answer, undefined declines. Without it, the model learns nobody can answer. */
  onQuestion?: (question: QuestionRequest) => string | undefined | Promise<string | undefined>;
  /** Cancels the whole run: every session of the tree and the processes they started. */
  signal?: AbortSignal;
  /** Trust the project's own files for this query (DESIGN §15), like `run --trust`. */
  trust?: boolean;
  /**
   * The permission mode of the query's session (DESIGN §26), like `run --permission-mode`:
   * `acceptEdits` writes inside the project unasked, `plan` is read-only, `dontAsk` refuses what
   * would ask, `bypassPermissions` allows it (never past a deny rule, a control file or the
   * sandbox). Default: the project's (`permission_mode`), else `default`.
   */
  permissionMode?: PermissionMode;
  /** One-line warnings (an agent file that did not load, an ignored setting of an untrusted project); default: stderr. */
  onWarning?: (line: string) => void;
}

export interface CheckedOptions extends Omit<QueryOptions, 'cwd' | 'tools' | 'agents'> {
  cwd: string;
  tools: Tool[];
  agents?: Record<string, AgentConfigEntry>;
}

/** Names the model already knows, which an in-process tool may not take. */
function reservedToolNames(): Set<string> {
  return new Set([...BUILTIN_TOOLS.map((t) => t.name), TASK_TOOL, ASK_USER_TOOL, WEBSEARCH_TOOL]);
}

const OPTION_NAMES = new Set(['prompt', 'cwd', 'model', 'agent', 'sessionId', 'agents', 'tools', 'canUseTool', 'onQuestion', 'signal', 'trust', 'permissionMode', 'onWarning']);

export function checkQueryOptions(options: QueryOptions): CheckedOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('query() needs an options object, e.g. query({ prompt: "explain this repository" }).');
  const unknown = Object.keys(options).find((key) => !OPTION_NAMES.has(key));
  if (unknown !== undefined) throw new TypeError(`query(): unknown option "${unknown}"; the options are ${[...OPTION_NAMES].join(', ')}.`);
  const { prompt, cwd, model, agent, sessionId, agents, tools, canUseTool, onQuestion, signal, trust, permissionMode, onWarning } = options;
  if (typeof prompt !== 'string' || prompt.trim() === '') throw new TypeError('query(): prompt must be a non-empty string.');
  for (const [key, value] of Object.entries({ cwd, model, agent, sessionId })) {
    if (value !== undefined && (typeof value !== 'string' || value.trim() === '')) throw new TypeError(`query(): ${key} must be a non-empty string when given.`);
  }
  for (const [key, value] of Object.entries({ canUseTool, onQuestion, onWarning })) {
    if (value !== undefined && typeof value !== 'function') throw new TypeError(`query(): ${key} must be a function when given.`);
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new TypeError('query(): signal must be an AbortSignal (from an AbortController) when given.');
  if (trust !== undefined && typeof trust !== 'boolean') throw new TypeError('query(): trust must be true or false when given.');
  if (permissionMode !== undefined && !isPermissionMode(permissionMode)) throw new TypeError(`query(): ${badModeMessage('permissionMode', permissionMode)}`);
  const folder = resolve(cwd ?? process.cwd());
  if (!isFolder(folder)) throw new TypeError(`query(): cwd "${folder}" is not a folder.`);
  return {
    ...options,
    cwd: folder,
    tools: checkTools(tools),
    ...(agents !== undefined ? { agents: checkAgents(agents) } : {}),
  };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function checkTools(tools: readonly InProcessTool[] | undefined): Tool[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) throw new TypeError('query(): tools must be an array of tools made with tool().');
  const reserved = reservedToolNames();
  const seen = new Set<string>();
  return tools.map((handle: unknown, index) => {
    const core = coreToolOf(handle);
    if (!core) throw new TypeError(`query(): tools[${index}] was not made with tool() from opencode-ink/sdk.`);
    if (reserved.has(core.name)) throw new TypeError(`query(): tool "${core.name}" has the name of a built-in tool; choose another.`);
    if (core.name.startsWith('mcp__')) throw new TypeError(`query(): tool "${core.name}": names starting with "mcp__" belong to MCP servers.`);
    if (seen.has(core.name)) throw new TypeError(`query(): two tools are named "${core.name}".`);
    seen.add(core.name);
    return core;
  });
}

function checkAgents(agents: Record<string, AgentSpec>): Record<string, AgentConfigEntry> {
  if (typeof agents !== 'object' || agents === null || Array.isArray(agents)) throw new TypeError('query(): agents must be an object of agent definitions by name.');
  const checked: Record<string, AgentConfigEntry> = {};
  for (const [name, entry] of Object.entries(agents)) {
    if (name.trim() === '') throw new TypeError('query(): agents has an entry with an empty name.');
    const parsed = agentConfigEntrySchema().safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = ['agents', name, ...issue.path.map(String)].join('.');
      throw new TypeError(`query(): ${where}: ${issue.message}.`);
    }
    checked[name] = parsed.data;
  }
  return checked;
}
