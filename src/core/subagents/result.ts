// The text a parent model reads back from a `task` call (DESIGN §7). The id lets it resume
// the child later with `session_id`; the state tells it whether the text is a final answer.

export type TaskState = 'completed' | 'failed' | 'cancelled' | 'running';

export function formatTaskResult(childId: string, state: TaskState, body: string): string {
  return `<task id="${childId}" state="${state}"><task_result>${body}</task_result></task>`;
}

/** Joins the child's last text with a note on why it stopped early, when it did. */
export function withNote(text: string, note: string | undefined): string {
  if (!note) return text;
  return text ? `${text}\n\n[${note}]` : `[${note}]`;
}
