// One turn of the agent loop: stream a reply, run its tool calls, feed the results back,
// and repeat until the model ends its turn, the turn cap is reached, or the turn is
// cancelled. Each finished message is persisted as it completes, so a crash or a cancel
// leaves a history that repairHistory can always make valid again. When the model ends its
// turn, Stop (or, in a sub-agent, SubagentStop) hooks may send it back to work with their
// reason as a new user message; `stop_hook_active` tells them it already happened (DESIGN §20).
import { effortOnWire } from '../provider/effort.js';
import { errorMessage, isAbortError } from '../errors.js';
import { newId } from '../ids.js';
import {
  addUsage,
  emptyUsage,
  textOf,
  type AssistantPart,
  type Message,
  type ToolResultPart,
  type ToolUsePart,
  type Usage,
} from '../messages.js';
import type { CompactionSettings } from '../config/schema.js';
import { compactSession, isPromptTooLong, prepareRequest, recordRequestSize, type ContextDeps } from '../context/index.js';
import type { ModelLimit } from '../provider/models.js';
import type { ModelRequest, Provider, ToolSpec } from '../provider/types.js';
import type { MessageMarks } from '../store/index.js';
import type { Tool } from '../tools/types.js';
import { inputSchemaOf } from '../tools/input-schemas.js';
import { withImageData } from '../images/request.js';
import type { LiveSession } from './live-session.js';
import { takeInbox } from './inbox.js';
import { callMayChangeFiles, runToolCalls } from './tool-runner.js';
import { warmUpForToolCall } from './parser-warm-up.js';

export interface LoopDeps {
  /** The provider and provider-local model id for a `provider/model` reference. */
  resolveModel(model: string): { provider: Provider; modelId: string };
  /** The price of a reply from `provider/model` (the full reference: providers price differently). */
  costOf(model: string, usage: Usage): number;
  /** Stores a finished message (`marks`: a user's prompt and its snapshot); returns its id. */
  persist(sessionId: string, message: Message, usage?: { usage: Usage; cost: number }, marks?: MessageMarks): string;
  maxOutputTokens: number;
  /** The context window and output limit of a `provider/model`, and the compaction settings (DESIGN §12). */
  contextFor(model: string): { limit: ModelLimit; settings: CompactionSettings };
  /** Whether `provider/model` takes images; the ones it does not are sent as a sentence saying so (DESIGN §22). */
  takesImages(model: string): boolean;
}

export type TurnStatus = 'completed' | 'failed' | 'cancelled' | 'max_turns';

export interface TurnOutcome {
  status: TurnStatus;
  /** The last assistant text of the turn. */
  text: string;
  error?: string;
  usage: Usage;
  cost: number;
  /** Model requests made. */
  steps: number;
}

/** Stop hooks may send the agent back this many times in one turn; then it stops, whatever they say. */
export const MAX_STOP_HOOK_ROUNDS = 20;

const TRUNCATED_TOOL_CALL =
  'This tool call was cut off by the output token limit (max_tokens), so it was not run. Split the work into smaller steps and call the tool again.';

/** A user's prompt: the snapshot of the project's files taken before it, if already known, and who to tell its message id. */
export interface PromptMark {
  snapshot: string | null;
  /** Told the stored message's id (the "before" snapshot still being taken is written on it). */
  stored?: (messageId: string) => void;
}

export interface TurnOptions {
  /** A model for this turn only (a command's `model`). */
  model?: string;
  /**
   * Tool calls made on the assistant's behalf before the model speaks: a subtask command
   * runs its `task` call straight away, then the model continues with the result.
   */
  presetCalls?: ToolUsePart[];
  /** The input is the user's prompt (DESIGN §18). */
  prompt?: PromptMark;
  /**
   * Cancelled before it started: a cancel that came while the prompt was still being prepared
   * (hooks, the snapshot), when no turn was running yet to take it.
   */
  cancelled?: boolean;
}

export async function runTurn(session: LiveSession, deps: LoopDeps, input: Message, opts: TurnOptions = {}): Promise<TurnOutcome> {
  let usage = emptyUsage();
  let cost = 0;
  let lastText = '';
  let steps = 0;
  let stopHookRounds = 0;

  const append = (message: Message, messageUsage?: { usage: Usage; cost: number }, marks?: MessageMarks): string => {
    session.history.push(message);
    return deps.persist(session.id, message, messageUsage, marks);
  };
  const outcome = (status: TurnStatus, error?: string): TurnOutcome => ({
    status,
    text: lastText,
    usage,
    cost,
    steps,
    ...(error ? { error } : {}),
  });

  // A stop a hook asked for in an earlier turn that ended otherwise does not carry over.
  session.hookStop = undefined;
  const inputId = append(input, undefined, opts.prompt ? { prompt: { snapshot: opts.prompt.snapshot } } : undefined);
  opts.prompt?.stored?.(inputId);
  const modelRef = opts.model ?? session.model;
  const { provider, modelId } = deps.resolveModel(modelRef);
  const tools = toolSpecs(session.tools);
  const { limit, settings } = deps.contextFor(modelRef);
  const contextDeps: ContextDeps = {
    provider,
    modelId,
    model: modelRef,
    limit,
    settings,
    costOf: deps.costOf,
    persist: (message, messageUsage) => deps.persist(session.id, message, messageUsage),
  };
  const countSummary = (summary: { usage: Usage; cost: number } | undefined) => {
    if (!summary) return;
    usage = addUsage(usage, summary.usage);
    cost += summary.cost;
  };

  if (opts.presetCalls?.length) {
    const messageId = newId('msg');
    session.emit('message.started', { message_id: messageId });
    append({ role: 'assistant', content: opts.presetCalls });
    session.emit('message.completed', { message_id: messageId, usage: emptyUsage(), stop_reason: 'tool_use' });
    append({ role: 'user', content: await runToolCalls(session, opts.presetCalls, { byUser: true }) });
    if (session.controller.signal.aborted) return outcome('cancelled');
    if (endedByHook(session)) return outcome('completed');
  }

  for (;;) {
    const signal = session.controller.signal;
    if (signal.aborted) return outcome('cancelled');
    if (session.maxTurns !== undefined && steps >= session.maxTurns) return outcome('max_turns');
    // Background results and steering messages that arrived meanwhile go in before the model speaks again.
    const arrived = takeInbox(session);
    if (arrived) append(arrived);
    steps++;

    const messageId = newId('msg');
    session.emit('message.started', { message_id: messageId });
    let streamedText = '';
    const shape = { system: session.systemPrompt, tools };

    let content: AssistantPart[];
    let stopReason: string;
    try {
      let overflowCompacted = false;
      let response;
      for (;;) {
        const prepared = await prepareRequest(session, shape, contextDeps, signal);
        countSummary(prepared.compacted);
        const request: ModelRequest = {
          model: modelId,
          system: session.systemPrompt,
          // Pictures get their bytes only now, from the blob store: the history holds references.
          messages: withImageData(prepared.messages, { blobs: session.blobs, accepted: deps.takesImages(modelRef), model: modelRef }),
          tools,
          maxTokens: Math.min(deps.maxOutputTokens, limit.output),
          signal,
        };
        const effort = session.effort ? effortOnWire(modelRef, session.effort) : undefined;
        if (effort) request.effort = effort;
        try {
          response = await provider.stream(request, (event) => {
            switch (event.type) {
              case 'text.delta':
                streamedText += event.text;
                session.emit('text.delta', { text: event.text });
                break;
              case 'thinking.delta':
                session.emit('thinking.delta', { text: event.text });
                break;
              case 'retrying':
                streamedText = '';
                session.emit('request.retrying', {
                  attempt: event.attempt + 1,
                  max_attempts: event.maxAttempts,
                  delay_ms: Math.round(event.delayMs),
                  reason: event.summary,
                  message: event.reason,
                });
                session.emit('message.retrying', { attempt: event.attempt, delay_ms: event.delayMs, reason: event.reason });
                break;
              case 'tool_use.started':
                // While the call's input streams in, the parser its permission check needs can
                // load, and the snapshot a change must follow can be taken.
                warmUpForToolCall(event.name);
                if (session.changes && callMayChangeFiles(session, event.name)) session.changes.mayChange();
                break;
            }
          });
          // Measured on the references, as the next estimate will be: base64 is not what the model reads.
          recordRequestSize(session, { ...request, messages: prepared.messages }, response.usage);
          session.sent = { messages: prepared.messages, historyLength: session.history.length, last: session.history.at(-1) };
          break;
        } catch (err) {
          if (signal.aborted || !isPromptTooLong(err)) throw err;
          // The window was smaller than estimated: compact and try once more, never in a loop.
          if (overflowCompacted || !settings.auto) throw new Error(tooLongMessage(errorMessage(err), overflowCompacted));
          overflowCompacted = true;
          const compacted = await compactSession(session, shape, contextDeps, { reason: 'overflow', signal });
          if (!compacted) throw new Error(`The request does not fit the model's context window and there are no older turns to summarise (${errorMessage(err)}). Start a new session or use a model with a larger window.`);
          countSummary(compacted);
        }
      }
      content = response.content;
      stopReason = response.stopReason;
      const messageCost = deps.costOf(modelRef, response.usage);
      usage = addUsage(usage, response.usage);
      cost += messageCost;
      append({ role: 'assistant', content }, { usage: response.usage, cost: messageCost });
      session.emit('message.completed', { message_id: messageId, usage: response.usage, stop_reason: stopReason, cost: messageCost });
    } catch (err) {
      if (signal.aborted || isAbortError(err)) {
        // Keep what the user already saw; an unfinished tool call is dropped.
        if (streamedText) append({ role: 'assistant', content: [{ type: 'text', text: streamedText }] });
        lastText = streamedText || lastText;
        return outcome('cancelled');
      }
      return outcome('failed', errorMessage(err));
    }

    const text = textOf({ role: 'assistant', content });
    if (text) lastText = text;
    const calls = content.filter((p): p is ToolUsePart => p.type === 'tool_use');
    if (calls.length === 0) {
      const goOn = await stopHookSays(session, stopHookRounds);
      if (goOn === undefined || session.controller.signal.aborted) return outcome(session.controller.signal.aborted ? 'cancelled' : 'completed');
      stopHookRounds++;
      append({ role: 'user', content: [{ type: 'text', text: goOn }] });
      continue;
    }

    let results: ToolResultPart[];
    if (stopReason === 'max_tokens') {
      results = calls.map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: TRUNCATED_TOOL_CALL, is_error: true }));
    } else {
      results = await runToolCalls(session, calls);
    }
    append({ role: 'user', content: results });
    if (session.controller.signal.aborted) return outcome('cancelled');
    if (endedByHook(session)) return outcome('completed');
  }
}

/** True when a hook answered `continue: false` during the last tool calls: the turn ends there, the user told why. */
function endedByHook(session: LiveSession): boolean {
  const stop = session.hookStop;
  if (stop === undefined) return false;
  session.hookStop = undefined;
  session.hooks?.stopped(stop.event, stop.reason);
  return true;
}

/** What a Stop/SubagentStop hook wants the agent to do next, as its next user message; undefined: stop. */
async function stopHookSays(session: LiveSession, rounds: number): Promise<string | undefined> {
  if (!session.hooks) return undefined;
  if (rounds >= MAX_STOP_HOOK_ROUNDS) {
    session.hooks.stopped(session.parent ? 'SubagentStop' : 'Stop', `Stop hooks sent the agent back ${rounds} times in one turn; it stops here.`);
    return undefined;
  }
  const verdict = await session.hooks.stop(rounds > 0);
  return verdict.continueWith === undefined ? undefined : `Stop hook feedback: ${verdict.continueWith}`;
}

function tooLongMessage(apiMessage: string, afterCompacting: boolean): string {
  return afterCompacting
    ? `The conversation does not fit the model's context window even after compacting (${apiMessage}). Start a new session or use a model with a larger window.`
    : `The conversation does not fit the model's context window (${apiMessage}). Run /compact, or turn compaction.auto on.`;
}

/**
 * Specs by parameter schema, then by name and description: tools built per session (each
 * child's `task`, `ask_user`) share their schema objects, so ten children convert it once.
 */
const specCache = new WeakMap<object, Map<string, ToolSpec>>();

/** Tool parameters as JSON Schema, converted once per schema object (the built-in tools' when building). */
export function toolSpecs(tools: readonly Tool[]): ToolSpec[] {
  return tools.map((tool) => {
    let byText = specCache.get(tool.parameters);
    if (!byText) specCache.set(tool.parameters, (byText = new Map()));
    const key = `${tool.name}\0${tool.description}`;
    let spec = byText.get(key);
    if (!spec) {
      spec = { name: tool.name, description: tool.description, input_schema: inputSchemaOf(tool) };
      byText.set(key, spec);
    }
    return spec;
  });
}
