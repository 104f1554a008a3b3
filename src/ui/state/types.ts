// The UI's normalised model: sessions by id, each with an ordered list of transcript
// items. Plain data only, so the reducer and selectors are testable without React.

import type { DiffStat, FileChange, ImageRef, PermissionReply, SessionStatus, TaskOutcome, TaskProgress } from '../../core/events.js';
import type { FileDiff } from '../../core/checkpoints/session-diff.js';
import type { Usage } from '../../core/messages.js';

export type { DiffStat, FileChange, FileDiff, ImageRef, PermissionReply, SessionStatus, TaskOutcome, TaskProgress, Usage };

export interface SessionNode {
  id: string;
  parentId: string | null;
  agent: string;
  title: string;
  /** The `task` call's `description` for a child; empty for a root. */
  description: string;
  status: SessionStatus;
  statusReason?: string;
  /** 0 for a root session. */
  depth: number;
  /** Session ids from the root down to and including this one. */
  path: string[];
  /** The parent's `task` call that spawned this session. */
  toolCallId: string | null;
  createdAt: number;
  /**
   * Set while it runs but has not sent its first model request of this run (its tools, MCP
   * servers or container still start): the UI says `starting`, not `running` (issue 40).
   */
  awaitingRequest?: boolean;
  /** First time the session went `running`; undefined while queued. */
  startedAt?: number;
  /** Set when the session reaches a final status (`completed|failed|cancelled|interrupted`). */
  finishedAt?: number;
  /** Usage of finished turns (from `turn.completed`). */
  usage: Usage;
  /** Usage of the turn in flight (from `message.completed`), folded into `usage` at turn end. */
  turnUsage: Usage;
  cost: number;
  /** Cost of the turn in flight (from `message.completed`), folded into `cost` at turn end. */
  turnCost: number;
  /** The assistant message streaming now, if any. */
  messageId: string | null;
  /** True while thinking deltas stream; the text itself is never kept. */
  thinking: boolean;
  /** Set while a failed model request waits to be tried again (`request.retrying`); cleared when a reply arrives. */
  retry?: RetryWait;
  /** Tokens the last request and its reply took of the context window (DESIGN §12). */
  contextTokens?: number;
  /** A finished sub-agent's changes to the files, descendants included (`session.diff_stat`, or asked of the core for a stored one). */
  diffStat?: DiffStat;
  /** Those changes file by file, once asked for (expanding its block); lines already terminal-safe. */
  changes?: FileDiff[];
  /** Its changes were reverted (`session.reverted` with action `revert`). */
  reverted?: boolean;
  /** Its newest user item waits for the core to take the prompt up (see UserItem.awaitingCore). */
  promptPending?: boolean;
  /** The task of its team's shared list it holds in progress (DESIGN §24), from `team.task` events. */
  heldTask?: { id: string; title: string } | undefined;
  /** Bumped on each change to this session or its items, for cheap memo checks. */
  version: number;
}

/** A model request that failed and is tried again after a wait. */
export interface RetryWait {
  /** The attempt about to be made (2 for the first retry) and how many are allowed. */
  attempt: number;
  maxAttempts: number;
  /** A few words: `overloaded`, `connection refused`. */
  reason: string;
  /** When the next attempt starts (ms since the epoch), and the whole wait. */
  at: number;
  delayMs: number;
}

export interface UserItem {
  kind: 'user';
  id: string;
  /** Taken out of the conversation by undo or rewind: drawn dimmed, marked `[undone]`. */
  undone?: boolean;
  text: string;
  ts: number;
  /** A message sent to the session while it ran (or to continue it), and by whom (DESIGN §23). */
  steered?: 'user' | 'parent';
  /** Pictures attached to the message (`@shot.png`, a pasted path), drawn as `[image shot.png 64×64]`. */
  images?: ImageRef[];
  /**
   * Typed here and not yet taken up by the core: it stays live (out of <Static>, which prints
   * once) so the pictures the core attaches to it a moment later are drawn under it (issue 40).
   */
  awaitingCore?: boolean;
}

export interface AssistantItem {
  kind: 'assistant';
  id: string;
  /** Taken out of the conversation by undo or rewind: drawn dimmed, marked `[undone]`. */
  undone?: boolean;
  messageId: string | null;
  text: string;
  /**
   * Offsets in `text` where a finished prefix was cut off for `<Static>`. Only ever
   * appended to, so pieces already printed never change.
   */
  cuts: number[];
  /** No more text will arrive (message completed, or a later item followed). */
  done: boolean;
  ts: number;
  /** Set when a retry abandoned this text after part of it was already printed. */
  abandoned?: string;
  /**
   * Cached line count of the text after the last cut, kept by the reducer so a delta
   * costs its own length, not the message's. Recomputed from `text` when absent.
   */
  tailLines?: number;
}

export interface ToolCallItem {
  kind: 'tool';
  id: string;
  /** Taken out of the conversation by undo or rewind: drawn dimmed, marked `[undone]`. */
  undone?: boolean;
  callId: string;
  tool: string;
  input: unknown;
  output?: string;
  isError: boolean;
  startedAt: number;
  endedAt?: number;
  done: boolean;
  /** For `task` calls: the child session it spawned, once known. */
  childSessionId?: string;
  /** For `task` calls: the child's latest progress report (`tool.progress`). */
  task?: TaskProgress;
  /** For `task` calls that returned: the state their result reports. */
  taskOutcome?: TaskOutcome;
  /** For `edit` and `write` calls that succeeded: the change they made, with real line numbers. */
  fileChange?: FileChange;
  /** Pictures the call returned to the model (`read` of an image). */
  images?: ImageRef[];
}

export interface ErrorItem {
  kind: 'error';
  id: string;
  /** Taken out of the conversation by undo or rewind: drawn dimmed, marked `[undone]`. */
  undone?: boolean;
  message: string;
  ts: number;
}

/** A line the core reports about the session itself, e.g. that it was compacted. */
export interface NoticeItem {
  kind: 'notice';
  id: string;
  /** Taken out of the conversation by undo or rewind: drawn dimmed, marked `[undone]`. */
  undone?: boolean;
  text: string;
  ts: number;
}

export type TranscriptItem = UserItem | AssistantItem | ToolCallItem | ErrorItem | NoticeItem;

export interface PendingQuestion {
  questionId: string;
  sessionId: string;
  agent: string;
  path: string[];
  question: string;
  options: string[];
  ts: number;
}

export interface PendingPermission {
  requestId: string;
  sessionId: string;
  agent: string;
  path: string[];
  tool: string;
  subject: string;
  permission: string;
  patterns: string[];
  /** What an "always" answer would remember. */
  always?: string[];
  /** The tool call waiting on this answer. */
  callId?: string;
  /** The file a write or an edit would change. */
  file?: string;
  /** Why it is asked even where a rule allows it (a write to one of the program's control files). */
  reason?: string;
  ts: number;
}

export interface UiState {
  sessions: Readonly<Record<string, SessionNode>>;
  /** Root session ids in creation order. */
  roots: readonly string[];
  /** Child ids per parent id, in creation order. */
  children: Readonly<Record<string, readonly string[]>>;
  items: Readonly<Record<string, readonly TranscriptItem[]>>;
  /** Where each tool call lives, so progress/completion events find it in O(1). */
  calls: Readonly<Record<string, { sessionId: string; index: number }>>;
  /** Oldest first: the dialog shows them in the order they were asked. */
  questions: readonly PendingQuestion[];
  permissions: readonly PendingPermission[];
  /** Increments on every change; the frame scheduler compares it. */
  version: number;
}

/** Inputs that do not come from the core: the UI knows what the user typed. */
export interface UserMessageAction {
  type: 'ui.user_message';
  session_id: string;
  text: string;
  ts: number;
}

/** The core has settled a prompt the UI sent (answered, refused or failed). */
export interface PromptSettledAction {
  type: 'ui.prompt_settled';
  session_id: string;
}

/** A stored sub-agent's diff stat, asked of the core after its history was loaded. */
export interface DiffStatAction {
  type: 'ui.diff_stat';
  session_id: string;
  stat: DiffStat;
}

/** A sub-agent's changes file by file, asked of the core when its block is expanded. */
export interface SessionChangesAction {
  type: 'ui.session_changes';
  session_id: string;
  files: FileDiff[];
}

/** Fields a stored session row provides when its history is loaded from the database. */
export interface SessionMeta {
  parent_id: string | null;
  agent: string;
  title: string;
  task_description?: string | null;
  tool_call_id?: string | null;
  status: SessionStatus | string;
  /** The session's stored children, which link its `task` calls to the sessions they started. */
  children?: readonly StoredChild[];
  input_tokens?: number;
  output_tokens?: number;
  cost?: number;
  created_at: number;
  updated_at?: number;
}

/** A stored child session as its parent's history needs it. */
export interface StoredChild {
  id: string;
  agent: string;
  tool_call_id: string | null;
  status: SessionStatus | string;
}
