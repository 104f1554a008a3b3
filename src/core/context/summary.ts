// The stored form of a compaction (DESIGN §12): a user-role message whose text part carries a
// `compaction` mark. Nothing is deleted; a request is built from the newest summary, the
// messages it kept verbatim, and everything stored after it — in this process or after a
// restart, since the mark lives in the stored content.
import type { CompactionMark, Message, Part, TextPart } from '../messages.js';

export const SUMMARY_PREFIX =
  'This session continues an earlier conversation that was compacted to fit the context window. The summary below replaces the earlier messages; the stored history still has them.\n\n';

export function summaryMessage(summary: string, mark: CompactionMark): Message {
  return { role: 'user', content: [{ type: 'text', text: `${SUMMARY_PREFIX}<summary>\n${summary.trim()}\n</summary>`, compaction: mark }] };
}

/** The mark of a summary message, or undefined for any other message. */
export function compactionMark(message: Message): CompactionMark | undefined {
  if (message.role !== 'user') return undefined;
  const part = message.content.find((p: Part): p is TextPart => p.type === 'text' && p.compaction !== undefined);
  const mark = part?.compaction;
  // Stored JSON is read back unchecked: a damaged mark counts as no mark rather than a crash.
  if (!mark || typeof mark.kept !== 'number' || !Number.isInteger(mark.kept) || mark.kept < 0) return undefined;
  return mark;
}

/**
 * What the model sees of a stored history: from the newest summary on. A summary keeps the
 * last `kept` messages of the history it summarised, which is itself defined this way, so
 * repeated compactions nest correctly.
 */
export function activeHistory(history: readonly Message[]): Message[] {
  for (let i = history.length - 1; i >= 0; i--) {
    const mark = compactionMark(history[i]!);
    if (!mark) continue;
    const before = activeHistory(history.slice(0, i));
    const kept = mark.kept === 0 ? [] : before.slice(-mark.kept);
    return [history[i]!, ...kept, ...history.slice(i + 1)];
  }
  return [...history];
}
