/*
 * What changed between two snapshots, as data (DESIGN §18): per-file hunks and a stat, so a
 * front end can draw a sub-agent's changes without parsing `git diff` text.
 *
 * Contract
 * - `diffBetween(repo, from, to, only?)` lists every path whose content differs (of `only`
 *   those paths when given), in git's path order,
 *   each with typed hunks (three lines of context, as `git diff` shows) and its counts of added
 *   and removed lines. Hunk lines keep their one-character prefix: `+`, `-`, ` `, or `\` for
 *   "No newline at end of file" (never counted).
 * - A binary file (a NUL byte in its first 8 KB on either side) is listed with `kind: 'binary'`,
 *   no hunks and no line counts. A change too large to diff line by line (over
 *   MAX_EDIT_LENGTH edits) is `kind: 'large'`: no hunks, every old line counted removed and
 *   every new line added, so the stat stays an honest upper bound instead of a stall.
 * - `diffStat(files)` sums a diff: files changed, lines added, lines removed.
 */
import { structuredPatch } from 'diff';
import type { DiffStat } from '../events.js';
import type { ShadowRepo, Side } from './shadow-repo.js';

export type { DiffStat };

export interface DiffHunk {
  old_start: number;
  old_lines: number;
  new_start: number;
  new_lines: number;
  /** Each line with its prefix: `+` added, `-` removed, ` ` context, `\` a no-newline marker. */
  lines: string[];
}

export interface FileDiff {
  /** Relative to the project's top folder, `/`-separated. */
  path: string;
  status: 'added' | 'deleted' | 'modified';
  /** `text`: hunks follow; `binary` and `large`: none (see the contract above). */
  kind: 'text' | 'binary' | 'large';
  additions: number;
  deletions: number;
  hunks: DiffHunk[];
}

/** Beyond this many line edits one file's diff is not worth computing for a preview. */
export const MAX_EDIT_LENGTH = 20_000;
const BINARY_PROBE_BYTES = 8000;

export async function diffBetween(repo: ShadowRepo, from: string, to: string, only?: ReadonlySet<string>): Promise<FileDiff[]> {
  if (from === to) return [];
  const files: FileDiff[] = [];
  for (const change of await repo.changes(from, to, only)) {
    const before = await content(repo, change.from);
    const after = await content(repo, change.to);
    files.push(fileDiff(change.path, before, after));
  }
  return files;
}

export function diffStat(files: readonly FileDiff[]): DiffStat {
  return files.reduce<DiffStat>((sum, f) => ({ files: sum.files + 1, additions: sum.additions + f.additions, deletions: sum.deletions + f.deletions }), {
    files: 0,
    additions: 0,
    deletions: 0,
  });
}

function fileDiff(path: string, before: Buffer | undefined, after: Buffer | undefined): FileDiff {
  const status = before === undefined ? 'added' : after === undefined ? 'deleted' : 'modified';
  if (isBinary(before) || isBinary(after)) return { path, status, kind: 'binary', additions: 0, deletions: 0, hunks: [] };
  const oldText = before?.toString('utf8') ?? '';
  const newText = after?.toString('utf8') ?? '';
  const patch = structuredPatch(path, path, oldText, newText, undefined, undefined, { context: 3, maxEditLength: MAX_EDIT_LENGTH });
  if (!patch) return { path, status, kind: 'large', additions: lineCount(newText), deletions: lineCount(oldText), hunks: [] };
  let additions = 0;
  let deletions = 0;
  const hunks = patch.hunks.map((h): DiffHunk => {
    for (const line of h.lines) {
      if (line.startsWith('+')) additions++;
      else if (line.startsWith('-')) deletions++;
    }
    return { old_start: h.oldStart, old_lines: h.oldLines, new_start: h.newStart, new_lines: h.newLines, lines: h.lines };
  });
  return { path, status, kind: 'text', additions, deletions, hunks };
}

async function content(repo: ShadowRepo, side: Side | undefined): Promise<Buffer | undefined> {
  return side ? repo.blob(side.blob) : undefined;
}

function isBinary(content: Buffer | undefined): boolean {
  return content !== undefined && content.subarray(0, BINARY_PROBE_BYTES).includes(0);
}

function lineCount(text: string): number {
  if (!text) return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}
