// The tool log of a finished `task` call as the expanded TaskBlock lists it (Ctrl+O): the
// same calls, in the same order and with the same cap, as the `<tool_log>` its parent model
// read. Plain strings, no React, so the live layout can count the rows too.
import { childOfCall, toolCallsOf } from '../../state/selectors.js';
import { isRecord } from '../../state/reducer.js';
import type { ToolCallItem, UiState } from '../../state/types.js';
import { oneLine } from '../../render/text.js';
import { toolSummary } from '../transcript/tool-summary.js';

/** Calls listed in an expanded block, as in the result the parent model read. */
const LOG_LINES = 20;

/**
 * The tool log of a finished task call, one line per call: from the structured log the core
 * put on the call (`metadata.tool_log`), or — for a call loaded from history, which has no
 * metadata — from the child's own calls when its transcript is loaded.
 */
export function taskLogLines(state: UiState, call: ToolCallItem): string[] {
  const entries = logFromMetadata(call.metadata);
  let shown: Array<{ line: string; status: string }>;
  let earlier: number;
  if (entries) {
    shown = entries.list.map((e) => ({ line: e.arg ? `${e.tool} ${e.arg}` : e.tool, status: e.status }));
    earlier = entries.earlier;
  } else {
    const child = childOfCall(state, call);
    const calls = child ? toolCallsOf(state, child.id) : [];
    if (calls.length === 0) return [];
    shown = calls.slice(-LOG_LINES).map((c) => ({ line: toolSummary(c), status: !c.done ? 'unfinished' : c.isError ? 'error' : 'ok' }));
    earlier = Math.max(0, calls.length - LOG_LINES);
  }
  const lines = shown.map(({ line, status }) => `${status === 'error' ? '✗' : status === 'unfinished' ? '·' : '⎿'} ${oneLine(line)}${status === 'unfinished' ? ' (not finished)' : ''}`);
  if (earlier > 0) lines.unshift(`${earlier} earlier call${earlier === 1 ? '' : 's'} not shown`);
  return lines;
}

function logFromMetadata(metadata: Record<string, unknown>): { list: Array<{ tool: string; arg: string; status: string }>; earlier: number } | undefined {
  const raw = metadata['tool_log'];
  if (!Array.isArray(raw)) return undefined;
  const list = raw.flatMap((e: unknown) =>
    isRecord(e) && typeof e['tool'] === 'string'
      ? [{ tool: e['tool'], arg: typeof e['arg'] === 'string' ? e['arg'] : '', status: typeof e['status'] === 'string' ? e['status'] : 'ok' }]
      : [],
  );
  const earlier = typeof metadata['tool_log_earlier'] === 'number' ? metadata['tool_log_earlier'] : 0;
  return { list, earlier };
}
