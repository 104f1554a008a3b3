// Keeps a session's requests inside its model's context window (DESIGN §12). Before each
// request: if the estimate passes `compaction.threshold` of the window, old tool outputs are
// pruned from the request; if it is still over, older turns are summarised by the model into
// a stored summary message and the recent ones stay verbatim. The same code runs for root
// sessions and sub-agents (the agent loop is shared), and for `/compact` by hand.
import { errorMessage, isAbortError } from '../errors.js';
import { totalInputTokens, type Message, type Part, type Usage } from '../messages.js';
import type { CompactionSettings } from '../config/schema.js';
import type { ModelLimit } from '../provider/models.js';
import type { Provider } from '../provider/types.js';
import type { EventPayloads } from '../events.js';
import { repairHistory } from '../agent/history.js';
import { estimateTokens, requestChars, tokensOfChars, type RequestShape, type SizeBasis } from './estimate.js';
import { pruneToolOutputs } from './prune.js';
import { imageLabel } from '../images/label.js';
import { activeHistory, compactionMark, summaryMessage } from './summary.js';
import { teamSection } from '../team/context.js';
import type { SessionStore } from '../store/index.js';

export type CompactReason = EventPayloads['session.compacted']['reason'];

/** What compaction needs of a session: its history (kept in step with the store) and events. */
export interface CompactableSession {
  readonly id: string;
  readonly history: Message[];
  emit(type: 'session.compacted', payload: EventPayloads['session.compacted']): void;
  /** PreCompact hooks (DESIGN §20) run before the summary is asked for. */
  readonly hooks?: { preCompact(trigger: 'manual' | 'auto', focus: string | undefined): Promise<void> } | undefined;
  /** Where its team is kept, and its place in the tree (DESIGN §24): the summary names the team. */
  readonly teamStore?: Pick<SessionStore, 'teamMembers' | 'teamTasks'> | undefined;
  readonly path?: readonly string[];
}

export interface ContextDeps {
  provider: Provider;
  /** Provider-local model id. */
  modelId: string;
  /** The full `provider/model` reference, for pricing (providers price differently). */
  model: string;
  limit: ModelLimit;
  settings: CompactionSettings;
  costOf(model: string, usage: Usage): number;
  /** Stores a message and returns its id. */
  persist(message: Message, usage?: { usage: Usage; cost: number }): string;
}

export interface CompactResult {
  summaryMessageId: string;
  tokensBefore: number;
  tokensAfter: number;
  usage: Usage;
  cost: number;
}

/** Why `/compact` did nothing: no turns older than the recent ones, or too few to be worth a summary. */
export interface CompactSkipped {
  skipped: 'nothing-older' | 'too-short';
  /** Estimated tokens of the turns a summary would replace. */
  olderTokens: number;
}

/**
 * Below this, the turns a summary would replace are about as long as the summary itself
 * (its sections and the continuation note alone take a few hundred tokens): summarising by
 * hand would save nothing, or add to the request.
 */
export const MIN_SUMMARISED_TOKENS = 2_000;

/** Of the window, what the verbatim recent turns may take after a compaction. */
const KEEP_SHARE = 0.3;
/** Recent user turns kept verbatim when they fit. */
const KEEP_USER_TURNS = 2;
/** Each tool output in the transcript given to the summariser is cut to this. */
const TRANSCRIPT_TOOL_CHARS = 2_000;
const TRANSCRIPT_TEXT_CHARS = 20_000;

const SUMMARY_SYSTEM = `You summarise a coding session between a user and an AI coding assistant so that the assistant can continue the work with only your summary and the most recent messages. Write a concise, factual summary in Markdown with these sections:
## Task
What the user asked for, in their words where it matters, and any constraints they set.
## Decisions
What was decided and why, including approaches tried and rejected.
## Todo list
What is done and what remains, in order.
## Files touched
Every file read, created or changed, with one line on what happened to it.
## Open questions
Anything unresolved or waiting on the user.
Keep exact names: paths, identifiers, commands, error messages. Do not invent anything. Write the summary only, with no preamble.`;

/** Last measured request size per session object (a reopened session starts over, which is safe). */
const bases = new WeakMap<object, SizeBasis>();

/** Records what the API reported for the request just sent, to estimate the next one from. */
export function recordRequestSize(session: object, request: RequestShape, usage: Usage): void {
  const tokens = totalInputTokens(usage);
  if (tokens > 0) bases.set(session, { chars: requestChars(request), tokens });
}

/** The messages of the next request: the active history, repaired for the API. */
export function requestMessages(history: readonly Message[]): Message[] {
  return repairHistory(activeHistory(history));
}

export function estimateRequest(session: object, request: RequestShape): number {
  return estimateTokens(request, bases.get(session));
}

/** The API's answer to a request larger than the window (HTTP 400 invalid_request_error). */
export function isPromptTooLong(err: unknown): boolean {
  return /prompt is too long/i.test(errorMessage(err));
}

export interface PreparedRequest {
  messages: Message[];
  /** Tokens the request is estimated at, as sent. */
  tokens: number;
  /** A summary made on the way, whose usage the turn counts. */
  compacted?: CompactResult;
}

/**
 * The messages to send next, compacted first when the request would pass the threshold
 * (and `compaction.auto` is on).
 */
export async function prepareRequest(
  session: CompactableSession,
  shape: Omit<RequestShape, 'messages'>,
  deps: ContextDeps,
  signal: AbortSignal,
): Promise<PreparedRequest> {
  let messages = requestMessages(session.history);
  let tokens = estimateRequest(session, { ...shape, messages });
  const budget = deps.limit.context * deps.settings.threshold;
  if (!deps.settings.auto || tokens <= budget) return { messages, tokens };
  const fitted = fit(session, shape, deps, messages);
  if (fitted.tokens <= budget) return fitted;
  const compacted = await compactSession(session, shape, deps, { reason: 'auto', signal, pruned: fitted.pruned, tokensBefore: tokens });
  if (!compacted) return fitted;
  messages = requestMessages(session.history);
  const after = fit(session, shape, deps, messages);
  tokens = after.tokens;
  return { messages: after.messages, tokens, compacted };
}

/** Prunes old tool outputs when that is allowed and the request is over the threshold. */
function fit(session: object, shape: Omit<RequestShape, 'messages'>, deps: ContextDeps, messages: Message[]): { messages: Message[]; tokens: number; pruned: number } {
  const tokens = estimateRequest(session, { ...shape, messages });
  if (!deps.settings.prune || tokens <= deps.limit.context * deps.settings.threshold) return { messages, tokens, pruned: 0 };
  const result = pruneToolOutputs(messages);
  return { messages: result.messages, tokens: estimateRequest(session, { ...shape, messages: result.messages }), pruned: result.pruned };
}

export interface CompactOptions {
  reason: CompactReason;
  signal: AbortSignal;
  /** Extra instructions for the summary (`/compact <focus>`). */
  focus?: string;
  pruned?: number;
  tokensBefore?: number;
}

/** Whether summarising `history` by hand is worth it; undefined when it is. */
export function manualCompactionSkip(history: readonly Message[], limit: ModelLimit): CompactSkipped | undefined {
  const active = activeHistory(history);
  const cut = chooseCut(active, limit.context * KEEP_SHARE);
  if (cut === undefined) return { skipped: 'nothing-older', olderTokens: 0 };
  const olderTokens = tokensOfChars(JSON.stringify(active.slice(0, cut)).length);
  return olderTokens < MIN_SUMMARISED_TOKENS ? { skipped: 'too-short', olderTokens } : undefined;
}

/**
 * Summarises the older part of the active history into a new stored message. Undefined when
 * there is nothing older than the recent turns to summarise.
 */
export async function compactSession(
  session: CompactableSession,
  shape: Omit<RequestShape, 'messages'>,
  deps: ContextDeps,
  opts: CompactOptions,
): Promise<CompactResult | undefined> {
  const active = activeHistory(session.history);
  const cut = chooseCut(active, deps.limit.context * KEEP_SHARE);
  if (cut === undefined) return undefined;
  const tokensBefore = opts.tokensBefore ?? estimateRequest(session, { ...shape, messages: repairHistory(active) });
  await session.hooks?.preCompact(opts.reason === 'manual' ? 'manual' : 'auto', opts.focus?.trim() || undefined);

  // The summariser reads a plain transcript: tool blocks without tool definitions would be
  // rejected, and a transcript can be trimmed to fit the window whatever it holds.
  const outputTokens = Math.max(256, Math.min(deps.limit.output, Math.floor(deps.limit.context * 0.25), 8_192));
  const room = deps.limit.context * deps.settings.threshold - outputTokens - tokensOfChars(SUMMARY_SYSTEM.length) - 200;
  const transcript = fitChars(renderTranscript(active.slice(0, cut)), Math.max(1_000, room * 4));
  const focus = opts.focus?.trim();
  const instruction = `Summarise the conversation in the transcript below as the system prompt says.${focus ? `\nFocus especially on: ${focus}` : ''}\n\n<transcript>\n${transcript}\n</transcript>`;
  let response;
  try {
    response = await deps.provider.stream(
      { model: deps.modelId, system: SUMMARY_SYSTEM, messages: [{ role: 'user', content: [{ type: 'text', text: instruction }] }], tools: [], maxTokens: outputTokens, signal: opts.signal },
      () => {},
    );
  } catch (err) {
    if (opts.signal.aborted || isAbortError(err)) throw err;
    throw new Error(`Compacting the conversation failed: ${errorMessage(err)}`);
  }
  const summary = response.content
    .filter((p): p is Extract<Part, { type: 'text' }> => p.type === 'text')
    .map((p) => p.text)
    .join('')
    .trim();
  const cost = deps.costOf(deps.model, response.usage);
  if (!summary) throw new Error('Compacting the conversation failed: the model returned an empty summary.');

  // The team the summarised messages spoke of, as it is now (DESIGN §24): never lost to a compaction.
  const team = session.teamStore ? teamSection(session.teamStore, { id: session.id, path: session.path ?? [session.id] }) : undefined;
  const message = summaryMessage(team ? `${summary}\n\n${team}` : summary, { kept: active.length - cut, tokens_before: tokensBefore });
  const summaryMessageId = deps.persist(message, { usage: response.usage, cost });
  session.history.push(message);
  const tokensAfter = estimateRequest(session, { ...shape, messages: requestMessages(session.history) });
  session.emit('session.compacted', {
    summary_message_id: summaryMessageId,
    reason: opts.reason,
    tokens_before: tokensBefore,
    tokens_after: tokensAfter,
    pruned: opts.pruned ?? 0,
    context_window: deps.limit.context,
  });
  return { summaryMessageId, tokensBefore, tokensAfter, usage: response.usage, cost };
}

/**
 * Where the verbatim part starts: the last KEEP_USER_TURNS user turns when they fit in
 * `keepTokens`, else the longest tail that fits, else the newest step alone. The tail starts
 * at a user prompt or an assistant message, never at tool results whose calls it would lose.
 */
export function chooseCut(active: readonly Message[], keepTokens: number): number | undefined {
  const starts: number[] = [];
  for (let i = 1; i < active.length; i++) {
    const m = active[i]!;
    const userPrompt = m.role === 'user' && m.content.some((p) => p.type === 'text') && !compactionMark(m);
    if (m.role === 'assistant' || userPrompt) starts.push(i);
  }
  if (starts.length === 0) return undefined;
  const tailTokens = (i: number) => tokensOfChars(JSON.stringify(active.slice(i)).length);
  const userStarts = starts.filter((i) => active[i]!.role === 'user');
  const preferred = userStarts[userStarts.length - KEEP_USER_TURNS] ?? userStarts[0];
  if (preferred !== undefined && tailTokens(preferred) <= keepTokens) return preferred;
  for (const i of starts) if (tailTokens(i) <= keepTokens) return i;
  return starts[starts.length - 1];
}

function renderTranscript(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    for (const p of m.content) {
      switch (p.type) {
        case 'text':
          lines.push(`[${p.compaction ? 'summary of earlier conversation' : m.role}]\n${clip(p.text, TRANSCRIPT_TEXT_CHARS)}`);
          break;
        case 'tool_use':
          lines.push(`[assistant called ${p.name}] ${clip(JSON.stringify(p.input ?? {}), TRANSCRIPT_TOOL_CHARS)}`);
          break;
        case 'tool_result':
          lines.push(`[tool ${p.is_error ? 'error' : 'result'}]\n${clip(p.content, TRANSCRIPT_TOOL_CHARS)}${(p.images ?? []).map((i) => `\n${imageLabel(i)}`).join('')}`);
          break;
        case 'image':
          lines.push(`[${m.role}] ${imageLabel(p)}`);
          break;
        case 'thinking':
        case 'redacted_thinking':
          break;
      }
    }
  }
  return lines.join('\n\n');
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[… ${text.length - max} more chars]`;
}

/** Keeps the start (the task) and the end (the latest state) of a transcript too long to send. */
function fitChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.3);
  const tail = max - head;
  return `${text.slice(0, head)}\n[… ${text.length - max} chars of the middle left out …]\n${text.slice(text.length - tail)}`;
}
