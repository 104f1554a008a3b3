/*
 * The tool log of a sub-agent run (DESIGN §7 Result): one short line per tool call the child
 * made — the tool and its main argument (`read notes.txt`, `grep "auth" in src`,
 * `bash npm test`, `task explore: Find routes`) — so the parent can judge how an answer was
 * reached without reading the child's transcript. Never the child's text or thinking.
 *
 * Contract
 * - A recorder keeps the last LIMIT calls in order and counts the earlier ones, so a child
 *   that makes thousands of calls costs the parent a bounded amount of context and memory.
 * - An entry is `ok`, `error` (its result was an error: failed, denied, bad arguments) or
 *   `unfinished` (the run ended before the call returned: a cancel or a timeout).
 * - Lines are single-line and capped; text that would close the result's own tags is
 *   defused, so a hostile command string cannot forge the end of the log.
 */

export type ToolLogStatus = 'ok' | 'error' | 'unfinished';

/** One call as the parent model reads it and the UI draws it (tool.completed metadata `tool_log`). */
export interface ToolLogEntry {
  tool: string;
  /** The call's main argument, one line, possibly empty. */
  arg: string;
  status: ToolLogStatus;
}

export interface ToolLog {
  /** The newest calls, oldest first. */
  entries: ToolLogEntry[];
  /** Calls made before `entries[0]` that are not listed. */
  earlier: number;
}

export const TOOL_LOG_LIMIT = 20;
const MAX_ARG_CHARS = 100;

export class ToolLogRecorder {
  private readonly entries: Array<ToolLogEntry & { callId: string }> = [];
  private dropped = 0;

  constructor(private readonly limit = TOOL_LOG_LIMIT) {}

  started(callId: string, tool: string, input: unknown): void {
    this.entries.push({ callId, tool, arg: mainArgument(tool, input), status: 'unfinished' });
    if (this.entries.length > this.limit) {
      this.entries.shift();
      this.dropped++;
    }
  }

  completed(callId: string, status: ToolLogStatus): void {
    const entry = this.entries.find((e) => e.callId === callId);
    if (entry) entry.status = status;
  }

  snapshot(): ToolLog {
    return { entries: this.entries.map(({ tool, arg, status }) => ({ tool, arg, status })), earlier: this.dropped };
  }
}

/** The log as the parent model reads it, inside `<tool_log>`: one line per call. */
export function formatToolLog(log: ToolLog): string {
  if (log.entries.length === 0 && log.earlier === 0) return '(no tool calls)';
  const lines = log.entries.map(toolLogLine);
  if (log.earlier > 0) lines.unshift(`${log.earlier} earlier call${log.earlier === 1 ? '' : 's'} not shown`);
  return lines.join('\n');
}

export function toolLogLine(entry: ToolLogEntry): string {
  const mark = entry.status === 'error' ? ' (error)' : entry.status === 'unfinished' ? ' (not finished)' : '';
  return defuse(`${entry.arg ? `${entry.tool} ${entry.arg}` : entry.tool}${mark}`);
}

/** What a call was about, in a few words: the path, pattern, command or question it names. */
export function mainArgument(tool: string, input: unknown): string {
  const args = isRecord(input) ? input : {};
  const str = (key: string): string | undefined => (typeof args[key] === 'string' && args[key] !== '' ? (args[key] as string) : undefined);
  let arg: string;
  switch (tool) {
    case 'read':
    case 'write':
    case 'edit':
      arg = str('file_path') ?? '';
      break;
    case 'bash':
      arg = str('command') ?? '';
      break;
    case 'glob':
      arg = [str('pattern'), str('path') && `in ${str('path')}`].filter(Boolean).join(' ');
      break;
    case 'grep': {
      const pattern = str('pattern');
      arg = [pattern !== undefined ? JSON.stringify(pattern) : undefined, str('path') && `in ${str('path')}`, str('glob') && `(${str('glob')})`]
        .filter(Boolean)
        .join(' ');
      break;
    }
    case 'list':
      arg = str('path') ?? '.';
      break;
    case 'webfetch':
      arg = str('url') ?? '';
      break;
    case 'websearch':
      arg = str('query') !== undefined ? JSON.stringify(str('query')) : '';
      break;
    case 'todowrite':
      arg = Array.isArray(args['todos']) ? `${args['todos'].length} todo${args['todos'].length === 1 ? '' : 's'}` : '';
      break;
    case 'todoread':
      arg = '';
      break;
    case 'ask_user':
      arg = str('question') ?? '';
      break;
    case 'task': {
      const label = [str('subagent_type'), str('description')].filter(Boolean).join(': ');
      arg = str('session_id') ? `${label} (resumed ${str('session_id')})` : label;
      break;
    }
    case 'task_list': {
      // `create "Write the docs"`, `claim 3`, `claim`, `complete 2`.
      const id = typeof args['id'] === 'string' || typeof args['id'] === 'number' ? String(args['id']) : undefined;
      const title = str('title');
      arg = [str('action'), id, title !== undefined ? JSON.stringify(title) : undefined].filter(Boolean).join(' ');
      break;
    }
    default:
      // MCP and custom tools: their first string argument says the most in the least space.
      arg = Object.values(args).find((v): v is string => typeof v === 'string' && v !== '') ?? '';
  }
  return clip(oneLine(arg), MAX_ARG_CHARS);
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

function clip(s: string, max: number): string {
  const chars = [...s];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : s;
}

/** `</tool_log>` or `</task>` inside a line would end the parent's view of the result early. */
function defuse(line: string): string {
  return line.replace(/<\/(tool_log|task_result|task)>/gi, '<\\/$1>');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
