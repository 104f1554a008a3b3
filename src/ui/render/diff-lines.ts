// Turns a unified diff (what edit/write put in metadata.diff) or a pair of strings into
// numbered lines for display. Pure, so counts and numbering are unit-testable.

import { structuredPatch } from 'diff';

export interface DiffLine {
  kind: 'add' | 'remove' | 'context' | 'hunk';
  text: string;
  oldNo?: number;
  newNo?: number;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

export function parseUnifiedDiff(diff: string): DiffLine[] {
  const out: DiffLine[] = [];
  let oldNo = 0;
  let newNo = 0;
  let inHunk = false;
  for (const line of diff.split('\n')) {
    const m = HUNK.exec(line);
    if (m) {
      oldNo = Number(m[1]);
      newNo = Number(m[2]);
      inHunk = true;
      out.push({ kind: 'hunk', text: line });
      continue;
    }
    // File headers (Index:, ===, ---, +++) come before the first hunk and say nothing new.
    if (!inHunk) continue;
    if (line.startsWith('+')) out.push({ kind: 'add', text: line.slice(1), newNo: newNo++ });
    else if (line.startsWith('-')) out.push({ kind: 'remove', text: line.slice(1), oldNo: oldNo++ });
    else if (line.startsWith(' ')) out.push({ kind: 'context', text: line.slice(1), oldNo: oldNo++, newNo: newNo++ });
    // "\ No newline at end of file" and trailing empties are noise here.
  }
  return out;
}

/** Line numbers count from 1 within the strings: an edit's snippet has no file position. */
export function diffStrings(oldText: string, newText: string, context = 3): DiffLine[] {
  const patch = structuredPatch('a', 'b', oldText, newText, '', '', { context });
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, ...hunk.lines);
  }
  return parseUnifiedDiff(lines.join('\n'));
}

export function diffStats(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.kind === 'add') added++;
    else if (l.kind === 'remove') removed++;
  }
  return { added, removed };
}
