// Pruning: old tool outputs are left out of a request (never out of the store). They are the
// bulk of a long session and the model has usually acted on them already; the calls stay, so
// the model still knows what it did and can run a tool again if it needs the output back.
import type { Message, Part } from '../messages.js';
import { imageLabel } from '../images/label.js';

/** Tool outputs of this many of the newest tool rounds are always sent in full. */
export const PROTECTED_ROUNDS = 2;
/** Outputs this short cost less than the note replacing them would save. */
const MIN_PRUNE_CHARS = 200;

export function prunedNote(chars: number): string {
  return `[output pruned: ${chars} chars]`;
}

export interface PruneResult {
  messages: Message[];
  /** How many tool outputs were replaced by a note. */
  pruned: number;
}

/** Replaces the tool results older than the newest PROTECTED_ROUNDS rounds with a short note. */
export function pruneToolOutputs(messages: readonly Message[]): PruneResult {
  // A round is a user message answering tool calls; count them from the end.
  let rounds = 0;
  let cutoff = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.content.some((p) => p.type === 'tool_result')) rounds++;
    if (rounds === PROTECTED_ROUNDS) {
      cutoff = i;
      break;
    }
  }
  if (rounds < PROTECTED_ROUNDS) return { messages: [...messages], pruned: 0 };
  let pruned = 0;
  const out = messages.map((m, i): Message => {
    if (i >= cutoff || m.role !== 'user') return m;
    let changed = false;
    const content = m.content.map((p): Part => {
      if (p.type !== 'tool_result') return p;
      const { images, ...result } = p;
      const long = p.content.length >= MIN_PRUNE_CHARS;
      if (!long && !images?.length) return p;
      changed = true;
      pruned++;
      // A picture weighs more than most outputs: it goes too, named so the model can read it again.
      const notes = (images ?? []).map((image) => imageLabel(image, 'pruned'));
      return { ...result, content: [long ? prunedNote(p.content.length) : p.content, ...notes].join('\n') };
    });
    return changed ? { role: m.role, content } : m;
  });
  return { messages: out, pruned };
}
