// Forks (issue 37 item 8): a child that inherits its caller's conversation so far.
//
// Contract
// - A `task` call is a fork when it says `fork: true` or `subagent_type: "fork"` (Claude Code's
//   name). The fork runs as its caller's agent with the caller's model, system prompt and tool
//   list, byte for byte, so the provider's prompt cache of the caller's conversation is reused.
// - `inheritedConversation(caller)` is what the fork starts from: exactly the messages of the
//   caller's last model request (pruned or compacted as that request was), then whatever the
//   caller's history gained since (its reply holding the `task` call, or for `/fork` the
//   recorded call). When that request is not known (nothing sent by this process yet) or the
//   history changed under it (a compaction, a rewind), it is the history as the caller's next
//   request would send it.
// - `forkInput(inherited, prompt)` is the fork's first user message. The inherited conversation
//   ends with the caller's assistant message whose tool calls have no results yet; the API
//   (Anthropic's and OpenAI-compatible ones alike) rejects a tool call without a result, so every
//   call of that message gets one — the same text for all, so several forks started from one
//   message share their request up to their own prompt. Then a note telling the fork what it
//   is, then its prompt. Keeping the caller's assistant message (rather than ending the prefix
//   before it) keeps the whole cached prefix and lets the fork see why it was started.
// - Cache breakpoints need no special handling: the provider marks the newest message and the
//   user message before it (provider/anthropic.ts). In the fork's first request that earlier
//   one is the last message of the caller's request — where the caller's request wrote its
//   cache entry — so the fork reads the whole shared prefix from cache. The markers themselves
//   are not part of the cache key.
import { requestMessages } from '../context/index.js';
import type { Message, Part, ToolResultPart, ToolUsePart } from '../messages.js';
import type { LiveSession } from '../agent/live-session.js';

/** The `subagent_type` that asks for a fork, as Claude Code names it. */
export const FORK_SUBAGENT_TYPE = 'fork';

/** The result every pending tool call of the caller's last message gets in the fork's copy. */
export const FORK_PLACEHOLDER_RESULT = 'Not run in this copy: this call belongs to the session that was forked, which gets its result.';

export function isForkCall(args: { fork?: boolean | undefined; subagent_type?: string | undefined }): boolean {
  return args.fork === true || args.subagent_type === FORK_SUBAGENT_TYPE;
}

/** What a fork repeats of its caller: the system prompt and the tools, in order. */
export interface ForkShape {
  systemPrompt: string;
  toolNames: readonly string[];
}

export function forkShape(caller: Pick<LiveSession, 'systemPrompt' | 'tools'>): ForkShape {
  return { systemPrompt: caller.systemPrompt, toolNames: caller.tools.map((t) => t.name) };
}

/** The caller's conversation as the fork inherits it (see the contract above). */
export function inheritedConversation(caller: Pick<LiveSession, 'history' | 'sent'>): Message[] {
  const { history, sent } = caller;
  const since = sent && history.length >= sent.historyLength && history[sent.historyLength - 1] === sent.last ? history.slice(sent.historyLength) : undefined;
  // A summary stored after that request replaces what it sent: the next request starts from it.
  if (!sent || !since || since.some(isSummary)) return requestMessages(history);
  return [...sent.messages, ...since];
}

function isSummary(message: Message): boolean {
  return message.content.some((p) => p.type === 'text' && p.compaction !== undefined);
}

export interface ForkInputOptions {
  /** The fork's own working tree when it runs isolated, and the caller's. */
  worktree?: { cwd: string; parentCwd: string } | undefined;
}

/** The fork's first user message (see the contract above). */
export function forkInput(inherited: readonly Message[], prompt: string, opts: ForkInputOptions = {}): Message {
  const last = inherited[inherited.length - 1];
  const pending = last?.role === 'assistant' ? last.content.filter((p): p is ToolUsePart => p.type === 'tool_use') : [];
  const results: ToolResultPart[] = pending.map((use) => ({ type: 'tool_result', tool_use_id: use.id, content: FORK_PLACEHOLDER_RESULT }));
  const where = opts.worktree
    ? ` You work in your own git worktree at ${opts.worktree.cwd}, a copy of ${opts.worktree.parentCwd} as it was when you were forked: use paths under ${opts.worktree.cwd}, not under ${opts.worktree.parentCwd}. What you change there is merged back when you finish.`
    : '';
  const note = [
    '<fork>',
    `You are a fork: a copy of the session above, started to do one task on your own while that session goes on. Everything above is context you inherit; the task below is yours alone.${where}`,
    'Do the task with your tools, then end your turn with a report: your final message is all the forked session gets back, so say what you did and found, and what remains. Do not go on with other work from the conversation above.',
    '</fork>',
  ].join('\n');
  const parts: Part[] = [...results, { type: 'text', text: note }, { type: 'text', text: prompt }];
  return { role: 'user', content: parts };
}
