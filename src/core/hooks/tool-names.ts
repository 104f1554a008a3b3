// How our tools look to a Claude Code hook: the tool's name in Claude Code's spelling (what
// `tool_name` carries and what matchers are written against) and its input with Claude Code's
// field names and absolute paths. Our tools already take Claude Code's parameter names
// (`file_path`, `old_string`, `command`, `pattern`…), so the input changes only where paths
// are relative. Matchers see both spellings, so `Bash` and `bash` both match our `bash`.
import { isAbsolute, resolve } from 'node:path';
import { isPlainObject } from '../config/merge.js';

/** Our tool name → Claude Code's. MCP tools (`mcp__server__tool`) are named alike in both. */
const CLAUDE_NAMES: Readonly<Record<string, string>> = {
  read: 'Read',
  write: 'Write',
  edit: 'Edit',
  bash: 'Bash',
  glob: 'Glob',
  grep: 'Grep',
  list: 'LS',
  webfetch: 'WebFetch',
  websearch: 'WebSearch',
  task: 'Task',
  todowrite: 'TodoWrite',
  todoread: 'TodoRead',
  ask_user: 'AskUserQuestion',
  bash_output: 'BashOutput',
  kill_shell: 'KillShell',
  skill: 'Skill',
  send_message: 'SendMessage',
};

/** Other names Claude Code has used for the same tool (its `Task` tool is called `Agent` in newer versions). */
const ALIASES: Readonly<Record<string, readonly string[]>> = {
  task: ['Agent'],
  edit: ['MultiEdit'],
  // Claude Code splits its team task list over four tools; a matcher naming any of them means ours.
  task_list: ['TaskCreate', 'TaskList', 'TaskUpdate', 'TaskGet'],
};

/** The name a hook receives as `tool_name`. */
export function claudeToolName(tool: string): string {
  return CLAUDE_NAMES[tool] ?? tool;
}

/** Every name a matcher may use for this tool: Claude Code's, ours, and former spellings. */
export function matcherNames(tool: string): string[] {
  return [...new Set([claudeToolName(tool), tool, ...(ALIASES[tool] ?? [])])];
}

/** Fields that hold a path, made absolute against the session's folder as Claude Code sends them. */
const PATH_FIELDS = ['file_path', 'path', 'notebook_path'] as const;

/** The tool's input as Claude Code would send it to a hook. */
export function claudeToolInput(input: unknown, cwd: string): Record<string, unknown> {
  if (!isPlainObject(input)) return {};
  const out: Record<string, unknown> = { ...input };
  for (const field of PATH_FIELDS) {
    const value = out[field];
    if (typeof value === 'string' && value !== '' && !isAbsolute(value)) out[field] = resolve(cwd, value);
  }
  return out;
}
