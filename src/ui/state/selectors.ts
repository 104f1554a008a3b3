// Read-only views derived from UiState: the session tree, totals that include
// descendants, agent path labels, and the finished/live split that feeds <Static>.

import { addUsage, emptyUsage } from '../../core/messages.js';
import type { Usage } from '../../core/messages.js';
import { SKILL_TOOL } from '../../core/skills/tool.js';
import { TASK_TOOL } from '../../core/subagents/gates.js';
import type { AssistantItem, RetryWait, SessionNode, ToolCallItem, TranscriptItem, UiState } from './types.js';

/**
 * A call that runs a sub-agent, drawn as a sub-agent block rather than a tool line: every
 * `task` call, and a `skill` call once it started one (a `context: fork` skill).
 */
export function isTaskCall(item: TranscriptItem): boolean {
  return item.kind === 'tool' && (item.tool === TASK_TOOL || (item.tool === SKILL_TOOL && item.childSessionId !== undefined));
}

export function childrenOf(state: UiState, sessionId: string): SessionNode[] {
  const ids = state.children[sessionId] ?? [];
  return ids.map((id) => state.sessions[id]).filter((s): s is SessionNode => s !== undefined);
}

/** Every session below `sessionId` (not itself), depth first in creation order. */
export function descendantsOf(state: UiState, sessionId: string): SessionNode[] {
  const out: SessionNode[] = [];
  const visit = (id: string) => {
    for (const child of childrenOf(state, id)) {
      out.push(child);
      visit(child.id);
    }
  };
  visit(sessionId);
  return out;
}

export interface Totals {
  usage: Usage;
  /** Input (including cache reads and writes) plus output tokens. */
  tokens: number;
  cost: number;
}

export function sessionUsage(session: SessionNode): Usage {
  return addUsage(session.usage, session.turnUsage);
}

/** What the user is charged for a session: its own usage plus all its descendants'. */
export function subtreeTotals(state: UiState, sessionId: string): Totals {
  const root = state.sessions[sessionId];
  let usage = emptyUsage();
  let cost = 0;
  for (const s of root ? [root, ...descendantsOf(state, sessionId)] : []) {
    usage = addUsage(usage, sessionUsage(s));
    cost += s.cost + s.turnCost;
  }
  const tokens = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens + usage.output_tokens;
  return { usage, tokens, cost };
}

/** The retry a session waits out, or else the first one among its sub-agents. */
export function pendingRetry(state: UiState, sessionId: string): { session: SessionNode; retry: RetryWait } | undefined {
  const own = state.sessions[sessionId];
  for (const s of own ? [own, ...descendantsOf(state, sessionId)] : []) {
    if (s.retry) return { session: s, retry: s.retry };
  }
  return undefined;
}

/** `retrying (attempt 2 of 5): overloaded, next in 2 s`: what the user is waiting out. */
export function formatRetry(retry: RetryWait, now: number): string {
  // The screen's clock may lag the event a little: never more than the whole wait.
  const left = Math.min(Math.ceil(retry.delayMs / 1000), Math.ceil((retry.at - now) / 1000));
  const when = left > 0 ? `next in ${left} s` : 'trying again';
  return `retrying (attempt ${retry.attempt} of ${retry.maxAttempts}): ${retry.reason}, ${when}`;
}

/**
 * Where an unfinished sub-agent is (issue 40): `queued` only while a limit holds it (the core
 * says why in the status's reason), `starting` until its first model request of the run is
 * sent, then `running`. Undefined for any other status.
 */
export type ChildPhase = 'queued' | 'starting' | 'running';

export function childPhase(session: SessionNode): ChildPhase | undefined {
  if (session.status === 'queued') return session.statusReason ? 'queued' : 'starting';
  if (session.status === 'running') return session.awaitingRequest ? 'starting' : 'running';
  return undefined;
}

export function runningCount(state: UiState, rootId: string): number {
  return descendantsOf(state, rootId).filter((s) => childPhase(s) === 'running').length;
}

export function startingCount(state: UiState, rootId: string): number {
  return descendantsOf(state, rootId).filter((s) => childPhase(s) === 'starting').length;
}

export function queuedCount(state: UiState, rootId: string): number {
  return descendantsOf(state, rootId).filter((s) => childPhase(s) === 'queued').length;
}

/** `explore (Find API routes)` for a child, the bare agent name for a root. */
export function sessionLabel(session: SessionNode): string {
  return session.parentId && session.description ? `${session.agent} (${session.description})` : session.agent;
}

/** `build › explore (Find API routes)`: how dialogs and breadcrumbs name a session. */
export function agentPath(state: UiState, sessionId: string): string {
  const session = state.sessions[sessionId];
  const ids = session?.path ?? [sessionId];
  return ids
    .map((id) => state.sessions[id])
    .filter((s): s is SessionNode => s !== undefined)
    .map(sessionLabel)
    .join(' › ');
}

/** The root of the tree a session belongs to. */
export function rootOf(state: UiState, sessionId: string): string {
  return state.sessions[sessionId]?.path[0] ?? sessionId;
}

/** A piece of transcript as it is drawn: whole items, or one cut of a long assistant text. */
export type TranscriptEntry =
  | { key: string; item: Exclude<TranscriptItem, AssistantItem> }
  | {
      key: string;
      item: AssistantItem;
      text: string;
      streaming: boolean;
      last: boolean;
      /**
       * A piece after a cut. A cut only falls before a new top-level block, and drawn whole the
       * text has a blank line there (Markdown spaces top-level blocks): the piece draws it above itself.
       */
      continued: boolean;
    };

export interface TranscriptView {
  /** Never changes again once listed: render with <Static>. Only ever grows. */
  finished: TranscriptEntry[];
  live: TranscriptEntry[];
}

function isDone(state: UiState, item: TranscriptItem): boolean {
  if (item.kind === 'tool' && isBackgroundRunning(state, item)) return false;
  // A prompt the core has not taken up yet may still get its pictures (see UserItem.awaitingCore).
  if (item.kind === 'user' && item.awaitingCore) return false;
  return item.kind === 'user' || item.kind === 'error' || item.kind === 'notice' || item.done;
}

/**
 * A `task` call started with `run_in_background` returns at once (its outcome says `running`)
 * while its child goes on: its block must stay live, following the child's status and
 * elapsed time, until the child ends — a block printed into <Static> could never change again.
 */
export function isBackgroundRunning(state: UiState, call: ToolCallItem): boolean {
  if (!call.done || call.taskOutcome?.state !== 'running') return false;
  const child = childOfCall(state, call);
  return child !== undefined && (child.status === 'running' || child.status === 'queued');
}

/**
 * Finished is the longest prefix of done items, plus the already-cut pieces of the first
 * open assistant text; everything after stays live. The prefix rule keeps the finished
 * list append-only, which <Static> needs.
 */
export function transcriptView(state: UiState, sessionId: string): TranscriptView {
  const items = state.items[sessionId] ?? [];
  const finished: TranscriptEntry[] = [];
  const live: TranscriptEntry[] = [];
  let open = false;
  for (const item of items) {
    if (item.kind !== 'assistant') {
      if (!open && isDone(state, item)) finished.push({ key: item.id, item });
      else {
        open = true;
        live.push({ key: item.id, item });
      }
      continue;
    }
    const bounds = [0, ...item.cuts, item.text.length];
    for (let i = 0; i + 1 < bounds.length; i++) {
      const last = i + 2 === bounds.length;
      const text = item.text.slice(bounds[i], bounds[i + 1]);
      // The tail piece is empty while nothing follows the last cut; it still marks "open".
      if (last && !text && item.cuts.length > 0 && item.done) continue;
      const entry: TranscriptEntry = { key: `${item.id}#${i}`, item, text, streaming: last && !item.done, last, continued: i > 0 };
      if (!open && (!last || item.done)) finished.push(entry);
      else {
        open = true;
        live.push(entry);
      }
    }
  }
  return { finished, live };
}

/** The tool calls of a session, oldest first. */
export function toolCallsOf(state: UiState, sessionId: string): ToolCallItem[] {
  return (state.items[sessionId] ?? []).filter((i): i is ToolCallItem => i.kind === 'tool');
}

/** The child session a task call spawned, once known. */
export function childOfCall(state: UiState, call: ToolCallItem): SessionNode | undefined {
  return call.childSessionId ? state.sessions[call.childSessionId] : undefined;
}
