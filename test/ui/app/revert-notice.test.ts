// The notice after a sub-agent's revert: what was restored, and which files it left as they
// are because another session changed them at the same time (with who).
import { describe, expect, it } from 'vitest';
import { revertedNotice } from '../../../src/ui/app/child-changes.js';

describe('revertedNotice', () => {
  it('names the files restored, and on a second line the files left alone with who changed them too', () => {
    expect(revertedNotice('build › general (a)', ['c.txt'])).toBe('Reverted build › general (a): 1 file restored (c.txt).');
    expect(revertedNotice('build › general (a)', ['c.txt'], [{ path: 'shared.txt', by: ['build › general (b)'] }])).toBe(
      'Reverted build › general (a): 1 file restored (c.txt).\nLeft as it is, changed by another session at the same time: shared.txt (also changed by build › general (b)).',
    );
  });

  it('says when nothing needed changing, and caps a long list of files left alone', () => {
    const many = ['a', 'b', 'c', 'd'].map((p) => ({ path: `${p}.txt`, by: ['x', 'y'] }));
    expect(revertedNotice('general', [], many)).toBe(
      'Reverted general: no file needed changing.\nLeft as they are, changed by another session at the same time: a.txt (also changed by x, y), b.txt (also changed by x, y), c.txt (also changed by x, y), ….',
    );
  });
});
