// Makes a stored history valid for the Messages API before it is sent. A crash or a cancel
// can leave an assistant `tool_use` without its `tool_result`, and a failed turn can leave
// two user messages in a row; the API rejects both, so repair rather than refuse.
import type { Message, Part, ToolResultPart, ToolUsePart } from '../messages.js';

const INTERRUPTED_RESULT = 'The tool call was interrupted before it finished; its outcome is unknown.';
const TASK_TOOL_NAME = 'task';

/**
 * The result for a tool call cut short by a crash. A `task` call whose child session is known
 * says so in the task result format (DESIGN §7), so the model can resume that child.
 */
export function interruptedResult(use: ToolUsePart, childSessionId?: string): ToolResultPart {
  if (use.name === TASK_TOOL_NAME && childSessionId) {
    const body = `The sub-agent was interrupted before it finished (outcome unknown). Resume it with task(session_id="${childSessionId}", …) to continue where it stopped.`;
    return { type: 'tool_result', tool_use_id: use.id, content: `<task id="${childSessionId}" state="interrupted"><task_result>${body}</task_result></task>`, is_error: true };
  }
  return { type: 'tool_result', tool_use_id: use.id, content: INTERRUPTED_RESULT, is_error: true };
}

/** Tool calls of the newest assistant message that no result answers (a crash mid-tool). */
export function unansweredToolUses(history: readonly Message[]): ToolUsePart[] {
  let i = history.length - 1;
  while (i >= 0 && history[i]!.role !== 'assistant') i--;
  if (i < 0) return [];
  const answered = new Set<string>();
  for (const m of history.slice(i + 1)) for (const p of m.content) if (p.type === 'tool_result') answered.add(p.tool_use_id);
  return history[i]!.content.filter((p): p is ToolUsePart => p.type === 'tool_use' && !answered.has(p.id));
}

export function repairHistory(history: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < history.length; i++) {
    const message = history[i]!;
    if (message.content.length === 0) continue;
    const prev = out[out.length - 1];
    if (prev && prev.role === message.role) {
      out[out.length - 1] = { role: prev.role, content: mergeContent(prev.content, message.content) };
    } else {
      out.push({ role: message.role, content: [...message.content] });
    }
  }
  // Second pass: every tool_use needs a tool_result in the message right after it.
  for (let i = 0; i < out.length; i++) {
    const message = out[i]!;
    if (message.role !== 'assistant') continue;
    const uses = message.content.filter((p): p is ToolUsePart => p.type === 'tool_use');
    if (uses.length === 0) continue;
    const next = out[i + 1];
    const answered = new Set(
      next?.role === 'user'
        ? next.content.filter((p): p is ToolResultPart => p.type === 'tool_result').map((p) => p.tool_use_id)
        : [],
    );
    const missing: ToolResultPart[] = uses
      .filter((u) => !answered.has(u.id))
      .map((u) => interruptedResult(u));
    if (missing.length === 0) continue;
    if (next?.role === 'user') {
      out[i + 1] = { role: 'user', content: mergeContent(missing, next.content) };
    } else {
      out.splice(i + 1, 0, { role: 'user', content: missing });
    }
  }
  // Results for tool calls that no assistant message holds would be rejected too.
  const known = new Set<string>();
  for (const m of out) for (const p of m.content) if (p.type === 'tool_use') known.add(p.id);
  return out
    .map((m) =>
      m.role === 'user'
        ? { role: m.role, content: m.content.filter((p) => p.type !== 'tool_result' || known.has(p.tool_use_id)) }
        : m,
    )
    .filter((m) => m.content.length > 0);
}

/** tool_result blocks must come first in a user message. */
function mergeContent(a: readonly Part[], b: readonly Part[]): Part[] {
  const all = [...a, ...b];
  return [...all.filter((p) => p.type === 'tool_result'), ...all.filter((p) => p.type !== 'tool_result')];
}
