// The rows a finished sub-agent's expanded block draws for its diff, and its stat's words: built
// from the core's typed hunks, capped with "… N more lines".
import { describe, expect, it } from 'vitest';
import { childDiffRows, diffStatParts } from '../../../src/ui/components/tree/child-diff.js';
import type { FileDiff } from '../../../src/ui/state/types.js';

const file = (path: string, lines: string[], status: FileDiff['status'] = 'modified'): FileDiff => ({
  path,
  status,
  kind: 'text',
  additions: lines.filter((l) => l.startsWith('+')).length,
  deletions: lines.filter((l) => l.startsWith('-')).length,
  hunks: [{ old_start: 10, old_lines: lines.length, new_start: 12, new_lines: lines.length, lines }],
});

describe('diffStatParts', () => {
  it('says nothing for a sub-agent that changed no file', () => {
    expect(diffStatParts({ files: 0, additions: 0, deletions: 0 })).toBeUndefined();
    expect(diffStatParts(undefined)).toBeUndefined();
    expect(diffStatParts({ files: 3, additions: 12, deletions: 3 })).toEqual({ additions: '+12', deletions: '−3', files: 'in 3 files' });
  });
});

describe('childDiffRows', () => {
  it('numbers lines from the hunk, old numbers for removals and new ones otherwise, and skips no-newline markers', () => {
    const rows = childDiffRows([file('a.ts', [' keep', '-old', '+new', '\\ No newline at end of file'])]);
    expect(rows).toEqual([
      { kind: 'file', path: 'a.ts', note: '(+1 −1)' },
      { kind: 'line', sign: ' ', text: 'keep', number: 12 },
      { kind: 'line', sign: '-', text: 'old', number: 11 },
      { kind: 'line', sign: '+', text: 'new', number: 13 },
    ]);
  });

  it('caps a long diff, the last row counting the lines and files left out', () => {
    const many = Array.from({ length: 30 }, (_, i) => `+line ${i}`);
    const rows = childDiffRows([file('a.ts', many, 'added'), file('b.ts', many), { ...file('c.bin', []), kind: 'binary', hunks: [] }], 10);
    expect(rows).toHaveLength(10);
    expect(rows[0]).toEqual({ kind: 'file', path: 'a.ts', note: '(new, +30 −0)' });
    // 8 of a.ts's 30 lines shown; 22 left, b.ts's 30, and two more files.
    expect(rows[9]).toEqual({ kind: 'more', text: '… 52 more lines, 2 more files' });
  });
});
