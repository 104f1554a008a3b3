// Plain-string helpers for fitting text into the 80-column layout: display width,
// truncation with an ellipsis, and capping long tool output at N lines.

/** Terminal cells a code point takes: 2 for East Asian wide and emoji, 0 for combining marks. */
function cellWidth(cp: number): number {
  if (cp < 32 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if (cp >= 0x300 && cp <= 0x36f) return 0;
  if (cp === 0x200b || cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += cellWidth(ch.codePointAt(0) ?? 0);
  return width;
}

/** Cuts `text` to at most `width` cells, ending in `…` when anything was cut. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  if (displayWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const ch of text) {
    const w = cellWidth(ch.codePointAt(0) ?? 0);
    if (used + w > width - 1) break;
    out += ch;
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
