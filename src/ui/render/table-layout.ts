// Lays a markdown table out as fixed-width text rows that fit the given width: columns
// get their natural width, and the widest shrink (cells cut with …) until it fits.

import { displayWidth, padEnd, truncate } from './text.js';

export type Align = 'left' | 'right' | 'center' | null;

const SEP = ' │ ';

export function columnWidths(rows: readonly (readonly string[])[], width: number): number[] {
  const count = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: count }, (_, c) => Math.max(1, ...rows.map((r) => displayWidth(r[c] ?? ''))));
  const budget = width - SEP.length * Math.max(0, count - 1);
  let total = widths.reduce((a, b) => a + b, 0);
  // Shrink the widest column one cell at a time: narrow columns (ids, flags) stay readable.
  while (total > budget) {
    let widest = 0;
    widths.forEach((w, i) => {
      if (w > (widths[widest] ?? 0)) widest = i;
    });
    if ((widths[widest] ?? 0) <= 3) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
    total--;
  }
  return widths;
}

function alignCell(text: string, width: number, align: Align): string {
  const cut = truncate(text, width);
  const gap = width - displayWidth(cut);
  if (align === 'right') return ' '.repeat(gap) + cut;
  if (align === 'center') return ' '.repeat(Math.floor(gap / 2)) + cut + ' '.repeat(gap - Math.floor(gap / 2));
  return padEnd(cut, width);
}

export interface TableLines {
  header: string;
  rule: string;
  rows: string[];
}

export function layoutTable(header: readonly string[], rows: readonly (readonly string[])[], align: readonly Align[], width: number): TableLines {
  const widths = columnWidths([header, ...rows], width);
  const line = (cells: readonly string[]) =>
    widths
      .map((w, c) => alignCell(cells[c] ?? '', w, align[c] ?? null))
      .join(SEP)
      .trimEnd();
  return {
    header: line(header),
    rule: widths.map((w) => '─'.repeat(w)).join('─┼─'),
    rows: rows.map(line),
  };
}
