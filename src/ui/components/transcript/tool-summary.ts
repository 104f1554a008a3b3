// The one-line description of a tool call (`read src/a.ts`, `bash npm test`,
// `edit src/x.ts (+3 −1)`), shared by the transcript and the sub-agent tree.

import { isRecord } from '../../state/reducer.js';
import type { ToolCallItem } from '../../state/types.js';
import { diffStats, diffStrings, parseUnifiedDiff, type DiffLine } from '../../render/diff-lines.js';
import { oneLine } from '../../render/text.js';
import { ASK_USER_TOOL, TASK_TOOL } from '../../../core/subagents/gates.js';

function str(input: Record<string, unknown>, key: string): string | undefined {
  const value = input[key];
  return typeof value === 'string' ? value : undefined;
}

/** The diff an edit or write call made (once done), or would make (from its input). */
export function callDiff(call: ToolCallItem): DiffLine[] | undefined {
  const diff = call.fileChange?.diff;
  if (diff) return parseUnifiedDiff(diff);
  const input = isRecord(call.input) ? call.input : {};
  if (call.tool === 'edit') {
    const oldText = str(input, 'old_string');
    const newText = str(input, 'new_string');
    if (oldText !== undefined && newText !== undefined) return diffStrings(oldText, newText);
  }
  if (call.tool === 'write') {
    const content = str(input, 'content');
    if (content !== undefined) return diffStrings('', content);
  }
  return undefined;
}

/** Everything after the tool name; the caller truncates to the width it has. */
export function toolArgument(call: ToolCallItem): string {
  const input = isRecord(call.input) ? call.input : {};
  switch (call.tool) {
    case 'read':
    case 'write':
    case 'edit': {
      const path = str(input, 'file_path') ?? '';
      if (call.tool === 'read') return path;
      const lines = callDiff(call);
      if (!lines) return path;
      const { added, removed } = diffStats(lines);
      return `${path} (+${added} −${removed})`;
    }
    case 'bash':
      return oneLine(str(input, 'command') ?? '');
    case 'glob':
      return [str(input, 'pattern'), str(input, 'path') && `in ${str(input, 'path')}`].filter(Boolean).join(' ');
    case 'grep': {
      const pattern = str(input, 'pattern');
      return [pattern !== undefined ? JSON.stringify(pattern) : '', str(input, 'path') && `in ${str(input, 'path')}`, str(input, 'glob') && `(${str(input, 'glob')})`]
        .filter(Boolean)
        .join(' ');
    }
    case 'list':
      return str(input, 'path') ?? '.';
    case 'webfetch':
      return str(input, 'url') ?? '';
    case 'todowrite': {
      const todos = input['todos'];
      return Array.isArray(todos) ? `${todos.length} todo${todos.length === 1 ? '' : 's'}` : '';
    }
    case ASK_USER_TOOL:
      return oneLine(str(input, 'question') ?? '');
    case TASK_TOOL:
      return [str(input, 'subagent_type'), str(input, 'description')].filter(Boolean).join(': ');
    default: {
      // Unknown (custom or MCP-like) tools: show the first string argument, if any.
      const first = Object.values(input).find((v): v is string => typeof v === 'string');
      return first ? oneLine(first) : '';
    }
  }
}

export function toolSummary(call: ToolCallItem): string {
  const arg = toolArgument(call);
  return arg ? `${call.tool} ${arg}` : call.tool;
}
