// Builds a session's transcript from stored messages (resuming a session, or entering a
// child that already finished) so it renders exactly like one followed live.

import type { ImagePart, Message } from '../../core/messages.js';
import type { SessionStatus, TaskOutcome } from '../../core/events.js';
import { emptyUsage } from '../../core/messages.js';
import { terminalSafe, terminalSafeDeep } from '../../core/text/terminal-safe.js';
import { TASK_TOOL } from '../../core/subagents/gates.js';
import { Draft, newSessionNode } from './draft.js';
import { attachPromptImages, isFinalStatus } from './reducer.js';
import { safeImages } from './safe-input.js';
import type { ImageRef, SessionMeta, StoredChild, UiState } from './types.js';

const STATUSES: ReadonlySet<string> = new Set(['queued', 'running', 'idle', 'completed', 'limited', 'failed', 'cancelled', 'interrupted']);

/** Replaces the session's items with the stored history; live fields of a running session are kept. */
export function loadHistory(state: UiState, sessionId: string, messages: Message[], meta: SessionMeta, undone: readonly boolean[] = []): UiState {
  const d = new Draft(state);
  const parent = meta.parent_id ? d.session(meta.parent_id) : undefined;
  const path = parent ? [...parent.path, sessionId] : meta.parent_id ? [meta.parent_id, sessionId] : [sessionId];
  const status: SessionStatus = STATUSES.has(meta.status) ? (meta.status as SessionStatus) : 'idle';
  const fields = {
    parentId: meta.parent_id,
    agent: meta.agent,
    // Stored text is drawn as it would be live: without escape sequences.
    title: terminalSafe(meta.title),
    description: terminalSafe(meta.parent_id ? (meta.task_description ?? meta.title) : ''),
    toolCallId: meta.tool_call_id ?? null,
    status,
    path,
    depth: path.length - 1,
    createdAt: meta.created_at,
    usage: { ...emptyUsage(), input_tokens: meta.input_tokens ?? 0, output_tokens: meta.output_tokens ?? 0 },
    turnUsage: emptyUsage(),
    turnCost: 0,
    cost: meta.cost ?? 0,
    ...(isFinalStatus(status) && meta.updated_at !== undefined ? { finishedAt: meta.updated_at } : {}),
  };
  if (d.session(sessionId)) Object.assign(d.editSession(sessionId) ?? {}, fields);
  else d.addSession(newSessionNode({ id: sessionId, ...fields }));

  // Start from an empty list: loading twice must not duplicate.
  const items = d.editItems(sessionId);
  items.length = 0;
  const ts = meta.created_at;
  const byCall = new Map<string, number>();
  const storedChildren = new Map((meta.children ?? []).flatMap((c) => (c.tool_call_id ? [[c.tool_call_id, c] as const] : [])));
  for (const [at, message] of messages.entries()) {
    const first = items.length;
    for (const part of message.content) {
      if (part.type === 'text' && part.compaction) {
        d.pushItem(sessionId, (id) => ({ kind: 'notice', id, text: 'Context compacted here: the model continued from a summary of the turns above.', ts }));
      } else if (part.type === 'text' && part.text) {
        const text = terminalSafe(part.text);
        if (message.role === 'user') d.pushItem(sessionId, (id) => ({ kind: 'user', id, text, ts }));
        else d.pushItem(sessionId, (id) => ({ kind: 'assistant', id, messageId: null, text, cuts: [], done: true, ts }));
      } else if (part.type === 'tool_use') {
        const stored = storedChildren.get(part.id);
        const isTask = part.name === TASK_TOOL;
        const child = isTask ? (findChildFor(d, sessionId, part.id) ?? stored?.id) : undefined;
        const outcome = isTask && stored ? outcomeOf(stored) : undefined;
        d.pushItem(sessionId, (id) => ({
          kind: 'tool',
          id,
          callId: part.id,
          tool: terminalSafe(part.name),
          input: terminalSafeDeep(part.input),
          isError: false,
          startedAt: ts,
          done: false,
          ...(child ? { childSessionId: child } : {}),
          ...(outcome ? { taskOutcome: outcome } : {}),
        }));
        byCall.set(part.id, items.length - 1);
      } else if (part.type === 'image') {
        if (message.role === 'user') attachPromptImages(d, sessionId, safeImages([imageRef(part)]), ts);
      } else if (part.type === 'tool_result') {
        const index = byCall.get(part.tool_use_id);
        const call = index === undefined ? undefined : items[index];
        if (index === undefined || call?.kind !== 'tool') continue;
        const images = safeImages((part.images ?? []).map(imageRef));
        items[index] = {
          ...call,
          output: terminalSafe(part.content),
          isError: part.is_error === true,
          done: true,
          endedAt: ts,
          ...(images.length ? { images } : {}),
        };
      }
    }
    // The message's own items (a later tool result only completes an earlier call).
    if (undone[at]) for (let i = first; i < items.length; i++) items[i] = { ...items[i]!, undone: true };
  }
  // A stored call without a result was cut off (crash, cancel): it will never finish.
  if (status !== 'running' && status !== 'queued') {
    items.forEach((item, index) => {
      if (item.kind === 'tool' && !item.done) items[index] = { ...item, done: true, isError: true };
    });
  }

  // Link both ways, whichever of parent and child was loaded first.
  if (meta.tool_call_id && meta.parent_id) {
    const loc = d.callLocation(meta.tool_call_id);
    const call = loc ? d.items(loc.sessionId)[loc.index] : undefined;
    if (loc && call?.kind === 'tool') d.replaceItem(loc.sessionId, loc.index, { ...call, childSessionId: sessionId });
  }
  return d.finish(state);
}

function findChildFor(d: Draft, parentId: string, callId: string): string | undefined {
  return (d.state.children[parentId] ?? []).find((id) => d.session(id)?.toolCallId === callId);
}

/** What a stored child's row says about the task that started it, once that task has ended. */
function outcomeOf(child: StoredChild): TaskOutcome | undefined {
  switch (child.status) {
    case 'completed':
    case 'limited':
    case 'failed':
    case 'cancelled':
      return { session_id: child.id, agent: child.agent, state: child.status };
    case 'interrupted':
      return { session_id: child.id, agent: child.agent, state: 'cancelled' };
    default:
      return undefined;
  }
}

function imageRef({ name, width, height, media_type }: ImagePart): ImageRef {
  return { name, width, height, media_type };
}
