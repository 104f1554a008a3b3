// `/fork <prompt>` (issue 37 item 8): the user starts a fork of a session that is not running a
// turn. Contract: `startUserFork` records, in that session's history, an assistant message
// holding a background `task` call with `subagent_type: "fork"` and then its result — as a
// subtask command's call is recorded (DESIGN §10) — so the fork inherits the conversation up
// to it, the session's model learns that the fork exists, and its result comes back to the
// session like any background task's (starting a turn there if none runs). No model request is
// made for the session itself. It returns the fork's session id, or throws one sentence saying
// why no fork started (the recorded call then holds that reason as its error result).
import { ConfigError } from '../errors.js';
import { newId } from '../ids.js';
import { emptyUsage, type Message, type ToolUsePart } from '../messages.js';
import type { LiveSession } from '../agent/live-session.js';
import { runToolCalls } from '../agent/tool-runner.js';
import type { SessionStore } from '../store/index.js';
import { FORK_SUBAGENT_TYPE } from './fork.js';
import { TASK_TOOL } from './gates.js';

/** The task's label: the prompt's first line, cut to a few words' length. */
function labelOf(prompt: string): string {
  const line = prompt.trim().split('\n')[0]!.trim();
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}

export async function startUserFork(
  session: LiveSession,
  prompt: string,
  deps: { store: SessionStore; persist: (sessionId: string, message: Message) => void },
): Promise<string> {
  if (!prompt.trim()) throw new ConfigError('Say what the fork should do: /fork <prompt>.');
  if (!session.tools.some((t) => t.name === TASK_TOOL)) {
    throw new ConfigError(`Agent "${session.agentName}" cannot start tasks here (it has no task tool), so it cannot be forked.`);
  }
  const append = (message: Message) => {
    session.history.push(message);
    deps.persist(session.id, message);
  };
  const call: ToolUsePart = {
    type: 'tool_use',
    id: newId('toolu'),
    name: TASK_TOOL,
    input: { description: labelOf(prompt), prompt, subagent_type: FORK_SUBAGENT_TYPE, run_in_background: true },
  };
  const messageId = newId('msg');
  session.emit('message.started', { message_id: messageId });
  append({ role: 'assistant', content: [call] });
  session.emit('message.completed', { message_id: messageId, usage: emptyUsage(), stop_reason: 'tool_use' });
  const results = await runToolCalls(session, [call], { byUser: true });
  append({ role: 'user', content: results });
  const fork = deps.store.children(session.id).find((child) => child.tool_call_id === call.id);
  if (!fork || results[0]?.is_error) throw new ConfigError(`The fork did not start: ${results[0]?.content ?? 'no result'}`);
  return fork.id;
}
