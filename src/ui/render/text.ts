// Plain-string helpers for fitting text into the layout: display width, truncation with
// an ellipsis, and capping long tool output at N lines.

import stringWidth from 'string-width';

/**
 * Terminal cells `text` takes, measured by `string-width` — the package Ink itself measures
 * and wraps with — so a width computed here always agrees with the screen: ✅ and 漢 take
 * two cells, a family emoji (one grapheme joined by ZWJ) two, a combining mark none. The
 * build swaps the import for a wrapper that measures plain ASCII itself (src/shims/).
 */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The user-perceived characters of `text` (an emoji with modifiers is one). */
export function splitGraphemes(text: string): string[] {
  return Array.from(graphemes.segment(text), (s) => s.segment);
}

/** Cuts `text` to at most `width` cells, ending in `…` when anything was cut. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  if (displayWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  // Whole graphemes only: half an emoji sequence would draw as two symbols.
  for (const g of splitGraphemes(text)) {
    const w = stringWidth(g);
    if (used + w > width - 1) break;
    out += g;
    used += w;
  }
  return `${out}…`;
}

/** One line for summaries: newlines and runs of whitespace become single spaces. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

export interface TrimmedLines {
  lines: string[];
  /** How many lines were left out. */
  hidden: number;
}

/**
 * Caps output at `max` lines. `tail` keeps the end (bash: the last lines hold the error
 * or the test summary); `head` keeps the start (file contents, diffs).
 */
export function trimLines(text: string, max: number, keep: 'head' | 'tail' = 'head'): TrimmedLines {
  const all = text.replace(/\n+$/, '').split('\n');
  if (all.length <= max) return { lines: text === '' ? [] : all, hidden: 0 };
  const shown = Math.max(0, max);
  return keep === 'tail'
    ? { lines: all.slice(all.length - shown), hidden: all.length - shown }
    : { lines: all.slice(0, shown), hidden: all.length - shown };
}

export function moreLines(hidden: number): string {
  return `… ${hidden} more line${hidden === 1 ? '' : 's'}`;
}
