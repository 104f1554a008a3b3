// What a finished sub-agent's block says about the files it changed (DESIGN §18): the stat line
// (`+12 −3 in 3 files`, nothing when it changed none) and, expanded, its diff as rows — a
// header per file, then its hunks' lines, capped at a number of rows with "… N more lines".
// Plain data from the core's typed diff (never parsed from text), no React, so the live
// layout can count the rows TaskBlock will draw.
import type { DiffStat, FileDiff } from '../../state/types.js';

/** Rows an expanded block's diff may take: enough to read a small change, not a whole rewrite. */
export const CHILD_DIFF_MAX_ROWS = 40;

export type ChildDiffRow =
  | { kind: 'file'; path: string; note: string }
  | { kind: 'hunk' }
  | { kind: 'line'; sign: '+' | '-' | ' '; text: string; number: number }
  | { kind: 'more'; text: string };

/** The stat's words, or undefined when the sub-agent changed no file. */
export function diffStatParts(stat: DiffStat | undefined): { additions: string; deletions: string; files: string } | undefined {
  if (!stat || stat.files === 0) return undefined;
  return { additions: `+${stat.additions}`, deletions: `−${stat.deletions}`, files: `in ${stat.files} file${stat.files === 1 ? '' : 's'}` };
}

/** The expanded diff, at most `maxRows` rows (the last one saying what was left out). */
export function childDiffRows(files: readonly FileDiff[], maxRows = CHILD_DIFF_MAX_ROWS): ChildDiffRow[] {
  const all: ChildDiffRow[] = [];
  for (const file of files) {
    all.push({ kind: 'file', path: file.path, note: fileNote(file) });
    file.hunks.forEach((hunk, i) => {
      if (i > 0) all.push({ kind: 'hunk' });
      let oldNo = hunk.old_start;
      let newNo = hunk.new_start;
      for (const line of hunk.lines) {
        const sign = line[0];
        const text = line.slice(1);
        if (sign === '+') all.push({ kind: 'line', sign, text, number: newNo++ });
        else if (sign === '-') all.push({ kind: 'line', sign, text, number: oldNo++ });
        else if (sign === ' ') {
          all.push({ kind: 'line', sign, text, number: newNo++ });
          oldNo++;
        }
        // `\ No newline at end of file` says nothing a reader of the preview needs.
      }
    });
  }
  if (all.length <= maxRows) return all;
  const shown = all.slice(0, Math.max(0, maxRows - 1));
  const rest = all.slice(shown.length);
  const lines = rest.filter((r) => r.kind === 'line').length;
  const moreFiles = rest.filter((r) => r.kind === 'file').length;
  const parts = [lines > 0 ? `${lines} more line${lines === 1 ? '' : 's'}` : undefined, moreFiles > 0 ? `${moreFiles} more file${moreFiles === 1 ? '' : 's'}` : undefined];
  return [...shown, { kind: 'more', text: `… ${parts.filter(Boolean).join(', ') || 'more'}` }];
}

function fileNote(file: FileDiff): string {
  const counts = `+${file.additions} −${file.deletions}`;
  const what = file.status === 'added' ? 'new, ' : file.status === 'deleted' ? 'deleted, ' : '';
  if (file.kind === 'binary') return `(${what}binary)`;
  if (file.kind === 'large') return `(${what}${counts}, too large to show)`;
  return `(${what}${counts})`;
}
