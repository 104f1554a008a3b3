// The text a parent model reads back from a `task` call (DESIGN §7). The id lets it resume
// the child later with `session_id`; the state tells it whether the text is a final answer;
// the tool log (after the child has run) shows how the answer was reached.
import { formatToolLog, type ToolLog } from './tool-log.js';

export type TaskState = 'completed' | 'failed' | 'cancelled' | 'running';

/** `log` is left out only while the child has not run yet (a background start). */
export function formatTaskResult(childId: string, state: TaskState, body: string, log?: ToolLog): string {
  const toolLog = log ? `<tool_log>\n${formatToolLog(log)}\n</tool_log>` : '';
  return `<task id="${childId}" state="${state}"><task_result>${body}</task_result>${toolLog}</task>`;
}

/** Joins the child's last text with a note on why it stopped early, when it did. */
export function withNote(text: string, note: string | undefined): string {
  if (!note) return text;
  return text ? `${text}\n\n[${note}]` : `[${note}]`;
}
