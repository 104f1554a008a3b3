// The text a parent model reads back from a `task` call (DESIGN §7, §17). The id lets it resume
// the child later with `session_id`; the state tells it whether the text is a final answer;
// the tool log (after the child has run) shows how the answer was reached; for a task run in
// its own worktree, the merge outcome says what reached the parent's files and where the rest is.
import type { TaskMerge } from '../events.js';
import { formatToolLog, type ToolLog } from './tool-log.js';

export type TaskState = 'completed' | 'limited' | 'failed' | 'cancelled' | 'running';

/** `log` is left out only while the child has not run yet (a background start); `merge` only for a task without isolation. */
export function formatTaskResult(childId: string, state: TaskState, body: string, log?: ToolLog, merge?: TaskMerge): string {
  const toolLog = log ? `<tool_log>\n${formatToolLog(log)}\n</tool_log>` : '';
  const mergeAttrs = merge ? ` merge="${merge.state}"${merge.branch ? ` branch="${merge.branch}"` : ''}` : '';
  const mergeText = merge ? `<merge>${mergeSentence(merge)}</merge>` : '';
  return `<task id="${childId}" state="${state}"${mergeAttrs}><task_result>${body}</task_result>${mergeText}${toolLog}</task>`;
}

/** What happened to the work of an isolated task, in words the parent model can act on. */
export function mergeSentence(merge: TaskMerge): string {
  const list = (files: readonly string[]) => files.join(', ');
  const see = merge.branch && merge.base ? ` (see its changes with \`git diff ${merge.base.slice(0, 12)} ${merge.branch}\`)` : '';
  switch (merge.state) {
    case 'merged':
      return `Its changes were merged into your working tree as uncommitted changes: ${list(merge.files)}.`;
    case 'conflict':
      return `Not merged: ${merge.reason ?? 'conflict'} in ${list(merge.files)}. Nothing was written to your working tree; the sub-agent's work is committed on branch ${merge.branch ?? '(none)'}${see}. Resolve it yourself or ask a task to.`;
    case 'none':
      if (merge.branch && merge.files.length > 0) {
        return `Not merged (${merge.reason ?? 'not finished'}); its changes to ${list(merge.files)} are kept on branch ${merge.branch}${see}.`;
      }
      return merge.reason ? `Nothing merged: ${merge.reason}.` : 'It changed no files; nothing to merge.';
  }
}

/** Joins the child's last text with a note on why it stopped early, when it did. */
export function withNote(text: string, note: string | undefined): string {
  if (!note) return text;
  return text ? `${text}\n\n[${note}]` : `[${note}]`;
}
