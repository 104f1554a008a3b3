// What a sub-agent's first `task` call fixed, read back when the sub-agent is continued
// (DESIGN §7 resume, §17 isolation, §23 steering).
// Contract: `firstCallLimits(history, toolCallId)` finds the `task` tool call that started a
// child — by the child row's `tool_call_id` — in its parent's stored history and returns the
// limits that call set: its `tools` narrowing (as written), `isolation` and `max_turns`, and
// whether it started a fork (./fork.ts), which is continued as one. Agent,
// model and identity live on the child's own row and are not repeated here. `history` is every
// stored message of the parent, undone ones included. When the call cannot be found it returns `undefined`
// and the caller falls back to the agent definition's own limits. It never throws on what a
// model once wrote: a field of the wrong shape is treated as absent.
// `combineNarrowings` joins the first call's narrowing with a continuation's, so a follow-up can
// narrow further but never widen.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { allowlistMatches } from '../agents/index.js';
import type { Message } from '../messages.js';
import { isForkCall } from './fork.js';

export interface FirstCallLimits {
  tools?: string[] | undefined;
  isolation?: 'none' | 'worktree' | undefined;
  max_turns?: number | undefined;
  fork?: boolean | undefined;
}

/** Each field on its own, so one malformed field does not hide the others. */
const fields = {
  tools: lazySchema(() => z.array(z.string())),
  isolation: lazySchema(() => z.enum(['none', 'worktree'])),
  max_turns: lazySchema(() => z.number().int().positive()),
};

export function firstCallLimits(history: readonly Message[], toolCallId: string | null): FirstCallLimits | undefined {
  if (!toolCallId) return undefined;
  for (const message of history) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type !== 'tool_use' || part.id !== toolCallId || part.name !== 'task') continue;
      const input: Record<string, unknown> = typeof part.input === 'object' && part.input !== null ? { ...part.input } : {};
      return {
        tools: fields.tools.safeParse(input.tools).data,
        isolation: fields.isolation.safeParse(input.isolation).data,
        max_turns: fields.max_turns.safeParse(input.max_turns).data,
        fork: isForkCall({ fork: input.fork === true, subagent_type: typeof input.subagent_type === 'string' ? input.subagent_type : undefined }),
      };
    }
  }
  return undefined;
}

/**
 * The tools both narrowings allow, as concrete names out of `available` (the calling parent's
 * tools: a child never has more). Either list alone is returned as it is.
 */
export function combineNarrowings(
  first: readonly string[] | undefined,
  next: readonly string[] | undefined,
  available: readonly string[],
): readonly string[] | undefined {
  if (!first) return next;
  if (!next) return first;
  return available.filter((name) => allowlistMatches(first, name) && allowlistMatches(next, name));
}
