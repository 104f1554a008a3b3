// Folds core events (and the user's own messages) into UiState. Pure: same state and
// event give the same result, and unchanged parts keep their identity.

import { isFileChange, isTaskCompletion, isTaskProgress, type CoreEvent, type EventOf } from '../../core/events.js';
import { addUsage, emptyUsage, totalInputTokens } from '../../core/messages.js';
import { Draft, newSessionNode } from './draft.js';
import { countLines, findSafeCut } from './markdown-split.js';
import type { AssistantItem, DiffStatAction, FileDiff, ImageRef, PromptSettledAction, SessionChangesAction, SessionStatus, ToolCallItem, UiState, UserMessageAction } from './types.js';
import { terminalSafe } from '../../core/text/terminal-safe.js';
import { safeEvent } from './safe-input.js';

export type UiInput = CoreEvent | UserMessageAction | PromptSettledAction | DiffStatAction | SessionChangesAction;

/** A live tail longer than this is cut at a safe markdown boundary into <Static>. */
export const LIVE_TAIL_LINES = 20;

const FINAL: ReadonlySet<SessionStatus> = new Set(['completed', 'limited', 'failed', 'cancelled', 'interrupted']);

export function isFinalStatus(status: SessionStatus): boolean {
  return FINAL.has(status);
}

export function reduce(state: UiState, input: UiInput): UiState {
  const d = new Draft(state);
  step(d, input);
  return d.finish(state);
}

/**
 * Folds a batch of inputs in one copy-on-write step: the same result as reducing them one
 * by one, but each map, session and item list is copied once per batch instead of once
 * per event. The store applies the events of a frame this way (ten children streaming
 * deliver hundreds of deltas between two frames).
 */
export function reduceAll(state: UiState, inputs: readonly UiInput[]): UiState {
  if (inputs.length === 0) return state;
  const d = new Draft(state);
  for (const input of inputs) step(d, input);
  return d.finish(state);
}

/** Events that exist only once a session's model request was sent. */
const SIGNS_OF_A_REQUEST: ReadonlySet<string> = new Set(['message.started', 'message.retrying', 'request.retrying', 'text.delta', 'thinking.delta', 'tool.started', 'message.completed']);

function step(d: Draft, input: UiInput): void {
  if (input.type === 'ui.diff_stat') {
    const s = d.session(input.session_id) ? d.editSession(input.session_id) : undefined;
    if (s) s.diffStat = input.stat;
    return;
  }
  if (input.type === 'ui.session_changes') {
    const s = d.session(input.session_id) ? d.editSession(input.session_id) : undefined;
    if (s) s.changes = input.files.map(safeFileDiff);
    return;
  }
  if (input.type === 'ui.user_message') {
    ensureKnown(d, input.session_id, undefined, [input.session_id], input.ts);
    closeAssistant(d, input.session_id);
    const text = terminalSafe(input.text);
    settlePrompt(d, input.session_id);
    d.pushItem(input.session_id, (id) => ({ kind: 'user', id, text, ts: input.ts, awaitingCore: true }));
    const s = d.editSession(input.session_id);
    if (s) s.promptPending = true;
    return;
  }
  if (input.type === 'ui.prompt_settled') {
    settlePrompt(d, input.session_id);
    return;
  }
  // Model, tool and page text never reaches a component with its escape sequences.
  const e = safeEvent(input);
  if (e.type === 'session.created') {
    onCreated(d, e);
    return;
  }
  ensureKnown(d, e.session_id, e.agent, e.path, e.ts);
  const sid = e.session_id;
  // The core's first word on the session after a prompt (its pictures, or its turn starting):
  // the prompt is taken up. Its pictures still land on it below.
  settlePrompt(d, sid);
  // Anything the model said means its first request went out: no longer `starting`.
  if (SIGNS_OF_A_REQUEST.has(e.type) && d.session(sid)?.awaitingRequest) {
    const s = d.editSession(sid);
    if (s) delete s.awaitingRequest;
  }
  switch (e.type) {
    case 'session.status':
      onStatus(d, e);
      break;
    case 'message.started': {
      closeAssistant(d, sid);
      const s = d.editSession(sid);
      if (s) s.messageId = e.message_id;
      break;
    }
    case 'message.retrying':
      onRetrying(d, sid, e.reason);
      break;
    case 'request.retrying': {
      const s = d.editSession(sid);
      if (s) s.retry = { attempt: e.attempt, maxAttempts: e.max_attempts, reason: e.reason, at: e.ts + e.delay_ms, delayMs: e.delay_ms };
      break;
    }
    case 'text.delta':
      endRetry(d, sid);
      onText(d, sid, e.text, e.ts);
      break;
    case 'thinking.delta':
      endRetry(d, sid);
      if (!d.session(sid)?.thinking) setThinking(d, sid, true);
      break;
    case 'tool.started':
      endRetry(d, sid);
      onToolStarted(d, e);
      break;
    case 'tool.progress':
      // Only a task's progress is drawn; other tools' progress (a command's output tail) is not kept.
      if (isTaskProgress(e)) editCall(d, e.call_id, (call) => ({ ...call, task: e.metadata, childSessionId: e.metadata.session_id }));
      break;
    case 'tool.completed':
      editCall(d, e.call_id, (call) => ({
        ...call,
        output: e.output,
        isError: e.is_error,
        endedAt: e.ts,
        done: true,
        ...(isTaskCompletion(e) && e.metadata ? { taskOutcome: e.metadata, childSessionId: e.metadata.session_id } : {}),
        // The diff an edit really made (with its line numbers), rather than one guessed from its input.
        ...(isFileChange(e) && e.metadata ? { fileChange: e.metadata } : {}),
        ...(e.images?.length ? { images: e.images } : {}),
      }));
      break;
    case 'prompt.images':
      attachPromptImages(d, sid, e.images, e.ts);
      break;
    case 'message.completed': {
      endRetry(d, sid);
      closeAssistant(d, sid);
      const s = d.editSession(sid);
      if (s) {
        s.turnUsage = addUsage(s.turnUsage, e.usage);
        s.turnCost += e.cost ?? 0;
        s.contextTokens = totalInputTokens(e.usage) + e.usage.output_tokens;
        s.messageId = null;
        s.thinking = false;
      }
      break;
    }
    case 'turn.completed': {
      const s = d.editSession(sid);
      if (s) {
        // turn.completed's usage sums the turn's messages, already shown live via turnUsage.
        s.usage = addUsage(s.usage, e.usage);
        s.turnUsage = emptyUsage();
        // turn.completed's cost is the turn's whole bill (summaries included): it replaces the live sum.
        s.turnCost = 0;
        s.cost += e.cost;
      }
      break;
    }
    case 'question.asked':
      if (!d.state.questions.some((q) => q.questionId === e.question_id)) {
        d.setQueues({
          questions: [
            ...d.state.questions,
            { questionId: e.question_id, sessionId: sid, agent: e.agent, path: e.path, question: e.question, options: e.options, ts: e.ts },
          ],
        });
      }
      break;
    case 'question.answered':
      if (d.state.questions.some((q) => q.questionId === e.question_id)) {
        d.setQueues({ questions: d.state.questions.filter((q) => q.questionId !== e.question_id) });
      }
      break;
    case 'permission.asked':
      if (!d.state.permissions.some((p) => p.requestId === e.request_id)) {
        d.setQueues({
          permissions: [
            ...d.state.permissions,
            {
              requestId: e.request_id,
              sessionId: sid,
              agent: e.agent,
              path: e.path,
              tool: e.tool,
              // Said where the dialog shows what runs, so it cannot be missed (DESIGN §19).
              subject: e.outside_sandbox ? `${e.subject}\n⚠ runs outside the sandbox: ${e.outside_sandbox}` : e.subject,
              permission: e.permission,
              patterns: e.patterns,
              ...(e.always ? { always: e.always } : {}),
              ...(e.call_id ? { callId: e.call_id } : {}),
              ...(e.file !== undefined ? { file: e.file } : {}),
              ...(e.reason ? { reason: e.reason } : {}),
              ts: e.ts,
            },
          ],
        });
      }
      break;
    case 'permission.replied':
      if (d.state.permissions.some((p) => p.requestId === e.request_id)) {
        d.setQueues({ permissions: d.state.permissions.filter((p) => p.requestId !== e.request_id) });
      }
      break;
    case 'message.delivered': {
      closeAssistant(d, sid);
      const text = e.text;
      const steered = e.sender;
      d.pushItem(sid, (id) => ({ kind: 'user', id, text, ts: e.ts, steered }));
      break;
    }
    case 'result.arrived': {
      // A background result starts (or joins) a turn: say whose it is, so the reply that
      // follows is not read as an answer to the user's last prompt.
      closeAssistant(d, sid);
      const text = `${e.child_agent} (${e.description}) ${e.follow_up ? 'reported again' : 'reported back'}: ${e.state}`;
      d.pushItem(sid, (id) => ({ kind: 'notice', id, text, ts: e.ts }));
      break;
    }
    case 'message.dropped': {
      // Never silently lost: the sender sees, in that session's view, what did not arrive and why.
      closeAssistant(d, sid);
      const why = e.reason === 'cancelled' ? 'the session was cancelled before it read it' : 'it had finished before it read it; send it again to continue it';
      const text = `Not delivered (${why}): ${e.text}`;
      d.pushItem(sid, (id) => ({ kind: 'notice', id, text, ts: e.ts }));
      break;
    }
    case 'session.compacted': {
      closeAssistant(d, sid);
      const s = d.editSession(sid);
      if (s) s.contextTokens = e.tokens_after;
      const text = compactionNotice(e);
      d.pushItem(sid, (id) => ({ kind: 'notice', id, text, ts: e.ts }));
      break;
    }
    case 'session.diff_stat': {
      const s = d.editSession(sid);
      if (s) s.diffStat = e.stat;
      break;
    }
    case 'session.reverted':
      if (e.action === 'revert') {
        const s = d.editSession(sid);
        if (s) s.reverted = true;
      }
      break;
    case 'error':
      endRetry(d, sid);
      closeAssistant(d, sid);
      d.pushItem(sid, (id) => ({ kind: 'error', id, message: e.message, ts: e.ts }));
      break;
    case 'file.kept':
      // `/init` put the user's AGENTS.md text back: said once, after the agent's reply.
      closeAssistant(d, sid);
      d.pushItem(sid, (id) => ({ kind: 'notice', id, text: e.message, ts: e.ts }));
      break;
    case 'hook.notice':
      // A hook's block, stop or failure: said where it happened, like the program's own notices.
      closeAssistant(d, sid);
      d.pushItem(sid, (id) => (e.kind === 'warning' ? { kind: 'error', id, message: e.message, ts: e.ts } : { kind: 'notice', id, text: e.message, ts: e.ts }));
      break;
    case 'team.task':
      onTeamTask(d, e);
      break;
  }
}

/** The task a session holds (in progress) of its team's list, shown on its block (DESIGN §24). */
function onTeamTask(d: Draft, e: EventOf<'team.task'>): void {
  const task = e.task;
  if (task.status === 'in_progress' && task.owner_session_id) {
    const owner = d.editSession(task.owner_session_id);
    if (owner) owner.heldTask = { id: task.id, title: terminalSafe(task.title) };
  }
  // Whoever held it before and no longer does lets go of it.
  for (const id of Object.keys(d.state.sessions)) {
    const held = d.state.sessions[id]?.heldTask;
    if (held?.id !== task.id || (task.status === 'in_progress' && task.owner_session_id === id)) continue;
    const s = d.editSession(id);
    if (s) s.heldTask = undefined;
  }
}

/** File contents and names reach the screen only terminal-safe. */
function safeFileDiff(file: FileDiff): FileDiff {
  return { ...file, path: terminalSafe(file.path), hunks: file.hunks.map((h) => ({ ...h, lines: h.lines.map(terminalSafe) })) };
}

/** The session's prompt typed in the UI is no longer waiting for the core: it may print. */
function settlePrompt(d: Draft, sessionId: string): void {
  if (!d.session(sessionId)?.promptPending) return;
  const s = d.editSession(sessionId);
  if (s) delete s.promptPending;
  const items = d.items(sessionId);
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind !== 'user' || !item.awaitingCore) continue;
    const { awaitingCore: _settled, ...rest } = item;
    d.replaceItem(sessionId, i, rest);
    return;
  }
}

/** The user's newest message gets the pictures the core attached to it; without one they show on their own. */
export function attachPromptImages(d: Draft, sessionId: string, images: ImageRef[], ts: number): void {
  const items = d.items(sessionId);
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind !== 'user') continue;
    d.replaceItem(sessionId, i, { ...item, images: [...(item.images ?? []), ...images] });
    return;
  }
  d.pushItem(sessionId, (id) => ({ kind: 'user', id, text: '', ts, images }));
}

/** `Context compacted: 152k → 31k tokens …`: what happened, and that nothing was lost. */
export function compactionNotice(e: Pick<EventOf<'session.compacted'>, 'reason' | 'tokens_before' | 'tokens_after' | 'pruned'>): string {
  const k = (n: number) => (n >= 1000 ? `${Math.round(n / 100) / 10}k` : String(n));
  const why = e.reason === 'manual' ? '' : e.reason === 'overflow' ? ' (the model said the prompt was too long)' : ' (near the context window)';
  const pruned = e.pruned ? `, ${e.pruned} old tool output${e.pruned === 1 ? '' : 's'} left out` : '';
  return `Context compacted${why}: ~${k(e.tokens_before)} → ~${k(e.tokens_after)} tokens${pruned}. Older turns are summarised; the full history stays stored.`;
}

/** Events can reach a UI that missed `session.created` (late subscribe): make a node from the envelope. */
function ensureKnown(d: Draft, id: string, agent: string | undefined, path: string[], ts: number): void {
  if (d.session(id)) return;
  d.addSession(newSessionNode({ id, agent: agent ?? '', path: path.length ? path : [id], createdAt: ts }));
}

function onCreated(d: Draft, e: EventOf<'session.created'>): void {
  const path = e.path.length ? e.path : [e.session_id];
  const call = e.tool_call_id ? findCall(d, e.tool_call_id) : undefined;
  const input = call && isRecord(call.input) ? call.input : undefined;
  const fields = {
    agent: e.agent,
    title: e.title,
    description: e.task_description ?? '',
    parentId: e.parent_id,
    toolCallId: e.tool_call_id,
    path,
    depth: e.depth,
  };
  const existing = d.session(e.session_id);
  if (existing) {
    Object.assign(d.editSession(e.session_id) ?? {}, fields);
  } else {
    d.addSession(newSessionNode({ id: e.session_id, createdAt: e.ts, ...fields }));
  }
  if (call && e.tool_call_id) {
    editCall(d, e.tool_call_id, (c) => ({ ...c, childSessionId: e.session_id }));
    // The child's history starts with the task prompt; show it like a user message.
    if (typeof input?.['prompt'] === 'string' && d.items(e.session_id).length === 0) {
      const prompt = input['prompt'];
      d.pushItem(e.session_id, (id) => ({ kind: 'user', id, text: prompt, ts: e.ts }));
    }
  }
}

function onStatus(d: Draft, e: EventOf<'session.status'>): void {
  const s = d.editSession(e.session_id);
  if (!s) return;
  if (e.status === 'running' && s.status !== 'running') s.awaitingRequest = true;
  else if (e.status !== 'running') delete s.awaitingRequest;
  s.status = e.status;
  if (e.reason !== undefined) s.statusReason = e.reason;
  else delete s.statusReason;
  if (e.status === 'running') {
    s.startedAt ??= e.ts;
    // A resumed child runs again: it is no longer finished.
    delete s.finishedAt;
  } else if (isFinalStatus(e.status)) {
    s.finishedAt = e.ts;
  }
  if (e.status !== 'running' && e.status !== 'queued') {
    delete s.retry;
    s.thinking = false;
    s.messageId = null;
    closeAssistant(d, e.session_id);
    closeDanglingCalls(d, e.session_id, e.ts);
  }
}

function onText(d: Draft, sid: string, text: string, ts: number): void {
  if (d.session(sid)?.thinking) setThinking(d, sid, false);
  const items = d.items(sid);
  const last = items[items.length - 1];
  let item: AssistantItem;
  let index: number;
  if (last?.kind === 'assistant' && !last.done) {
    index = items.length - 1;
    // Only the delta's own newlines are counted: scanning the whole tail would make V8
    // flatten the growing text on every delta (a copy of all of it each time).
    const lines = tailLines(last) + newlines(text);
    if (d.isFresh(last)) {
      // Already replaced in this batch: extend that copy rather than copy it again.
      last.text += text;
      last.tailLines = lines;
      item = last;
    } else {
      item = { ...last, text: last.text + text, tailLines: lines };
    }
  } else {
    const messageId = d.session(sid)?.messageId ?? null;
    const created = d.pushItem(sid, (id) => ({ kind: 'assistant', id, messageId, text: '', cuts: [], done: false, ts }));
    index = d.items(sid).length - 1;
    item = { ...(created as AssistantItem), text, tailLines: countLines(text) };
  }
  if (tailLines(item) > LIVE_TAIL_LINES) {
    const from = item.cuts[item.cuts.length - 1] ?? 0;
    const cut = findSafeCut(item.text, from);
    if (cut !== null && cut > from) item = { ...item, cuts: [...item.cuts, cut], tailLines: countLines(item.text, cut) };
  }
  if (item !== last) d.replaceItem(sid, index, item);
}

/** Lines after the last cut (see AssistantItem.tailLines). */
function tailLines(item: AssistantItem): number {
  return item.tailLines ?? countLines(item.text, item.cuts[item.cuts.length - 1] ?? 0);
}

function newlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function onRetrying(d: Draft, sid: string, reason: string): void {
  setThinking(d, sid, false);
  const items = d.items(sid);
  const index = items.length - 1;
  const last = items[index];
  if (last?.kind !== 'assistant' || last.done) return;
  if (last.cuts.length === 0) {
    d.replaceItem(sid, index, { ...last, text: '', tailLines: 1 });
  } else {
    // Part of it is already printed and cannot be taken back: close it with a note and let
    // the retried stream start a fresh item.
    d.replaceItem(sid, index, { ...last, done: true, abandoned: reason });
  }
}

function onToolStarted(d: Draft, e: EventOf<'tool.started'>): void {
  closeAssistant(d, e.session_id);
  setThinking(d, e.session_id, false);
  if (findCall(d, e.call_id)) return;
  // A child may already have announced itself for this call (events from parallel producers).
  const child = (d.state.children[e.session_id] ?? []).find((id) => d.session(id)?.toolCallId === e.call_id);
  d.pushItem(e.session_id, (id) => ({
    kind: 'tool',
    id,
    callId: e.call_id,
    tool: e.tool,
    input: e.input,
    isError: false,
    startedAt: e.ts,
    done: false,
    ...(child ? { childSessionId: child } : {}),
  }));
}

/** A reply arrived (or the session stopped): no retry is awaited any more. */
function endRetry(d: Draft, sid: string): void {
  if (!d.session(sid)?.retry) return;
  const s = d.editSession(sid);
  if (s) delete s.retry;
}

function setThinking(d: Draft, sid: string, on: boolean): void {
  if (d.session(sid)?.thinking === on) return;
  const s = d.editSession(sid);
  if (s) s.thinking = on;
}

function closeAssistant(d: Draft, sid: string): void {
  const items = d.items(sid);
  const last = items[items.length - 1];
  if (last?.kind === 'assistant' && !last.done) d.replaceItem(sid, items.length - 1, { ...last, done: true });
}

/** A session that stopped will not complete its open calls: close them so they can leave the live area. */
function closeDanglingCalls(d: Draft, sid: string, ts: number): void {
  const items = d.items(sid);
  items.forEach((item, index) => {
    if (item.kind === 'tool' && !item.done) d.replaceItem(sid, index, { ...item, done: true, endedAt: ts });
  });
}

function findCall(d: Draft, callId: string): ToolCallItem | undefined {
  const loc = d.callLocation(callId);
  if (!loc) return undefined;
  const item = d.items(loc.sessionId)[loc.index];
  return item?.kind === 'tool' ? item : undefined;
}

function editCall(d: Draft, callId: string, update: (call: ToolCallItem) => ToolCallItem): void {
  const loc = d.callLocation(callId);
  const call = findCall(d, callId);
  if (!loc || !call) return;
  d.replaceItem(loc.sessionId, loc.index, update(call));
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
