// What the expanded TaskBlock (Ctrl+O) lists under a finished `task` call: the first lines of
// the sub-agent's report, then its tool log — the same calls, in the same order and with the
// same cap, as the `<tool_log>` its parent model read. Plain strings, no React, one row each,
// so the live layout can count the rows too.
import { childOfCall, isTaskCall, toolCallsOf } from '../../state/selectors.js';
import type { ToolCallItem, UiState } from '../../state/types.js';
import { oneLine } from '../../render/text.js';
import { toolSummary } from '../transcript/tool-summary.js';

/** Calls listed in an expanded block, as in the result the parent model read. */
const LOG_LINES = 20;
/** Lines of the report shown: enough to see what it found; the whole text is in the child's view. */
export const RESULT_LINES = 5;

/**
 * The first non-blank lines of a finished task's report (the typed outcome's `report`: what
 * its parent read), or the whole output of a call that failed before it started a child (no
 * outcome at all), then how many more.
 */
export function taskResultLines(call: ToolCallItem): string[] {
  if (!call.done) return [];
  const lines = reportText(call)
    .split('\n')
    .filter((line) => line.trim() !== '');
  const shown = lines.slice(0, RESULT_LINES).map((line) => oneLine(line));
  const more = lines.length - shown.length;
  if (more > 0) shown.push(`… ${more} more line${more === 1 ? '' : 's'}`);
  return shown;
}

/**
 * What a finished task call reports, from typed fields only: the outcome's report; nothing for
 * an outcome without one (a call loaded from history); the output of a call that ended before
 * any child ran, which is the error it ended with.
 */
export function reportText(call: ToolCallItem): string {
  if (call.taskOutcome) return call.taskOutcome.report ?? '';
  return call.isError ? (call.output ?? '') : '';
}

/**
 * The tool log of a finished task call, one line per call: from the structured log the core
 * put on the call (`tool_log` on the call's typed task outcome), or — for a call loaded from history, which has no
 * metadata — from the child's own calls when its transcript is loaded.
 */
export function taskLogLines(state: UiState, call: ToolCallItem): string[] {
  const outcome = call.taskOutcome;
  const entries = outcome?.tool_log ? { list: outcome.tool_log, earlier: outcome.tool_log_earlier ?? 0 } : undefined;
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

/**
 * The one line a running block keeps when it has no room for its latest calls: the child's
 * last call with its argument (`bash npm test`), or the bare tool name its progress reports
 * while the child's own calls are not known here.
 */
export function latestLine(state: UiState, call: ToolCallItem): string | undefined {
  const child = childOfCall(state, call);
  const last = child ? toolCallsOf(state, child.id).filter((c) => !isTaskCall(c)).at(-1) : undefined;
  return last ? toolSummary(last) : call.task?.latest_tool;
}
