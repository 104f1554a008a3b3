// The block-selection hint at every width: one line where the keys fit, else which block and
// then the keys as short as needed; never a line wider than the screen; a stray key's warning
// on top.
import { describe, expect, it } from 'vitest';
import { selectionHint, TYPING_WAITS, type SelectedBlock } from '../../../src/ui/app/block-selection.js';
import { displayWidth } from '../../../src/ui/render/text.js';

const blocks: SelectedBlock[] = [1, 2, 3].map((n) => ({ callId: `call${n}`, childId: `child${n}` }));
const hint = (width: number, strayKey = false) => selectionHint({ blocks, selected: blocks[1]!, label: 'build › general (Edit the\nrouter)', width, strayKey });

describe('selectionHint', () => {
  it('is one line on a wide screen: position, keys, then who', () => {
    expect(hint(120).map((l) => l.text)).toEqual(['❯ sub-agent 2 of 3 · ↑↓ move · enter open · u revert · o diff · esc done · build › general (Edit the router)']);
  });

  it.each([
    [60, '↑↓ move · enter open · u revert · o diff · esc done'],
    [40, '↑↓ enter open · u revert · o diff · esc'],
    [30, '↑↓ enter u:revert o:diff esc'],
    [20, '↑↓ enter u o esc'],
  ])('at %i columns takes two lines, the keys as %j', (width, legend) => {
    const lines = hint(width).map((l) => l.text);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^❯ 2\/3 build/);
    expect(lines[1]).toBe(legend);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(width);
  });

  it('puts the stray-key warning first, cut to the width', () => {
    const lines = hint(20, true);
    expect(lines[0]).toEqual({ text: `${TYPING_WAITS.slice(0, 19)}…`, warning: true });
    expect(lines.slice(1).every((l) => !l.warning)).toBe(true);
    expect(hint(120, true)[0]!.text).toBe(TYPING_WAITS);
  });
});
