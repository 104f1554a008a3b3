import { describe, expect, it } from 'vitest';
import { navigate, siblingPosition } from '../../../src/ui/navigation.js';
import { A, B, G, ROOT, run, treeEvents } from '../state/fixtures.js';

const state = run(treeEvents());

describe('session navigation', () => {
  it('cycles parent → child 1 → child 2 → parent, and backwards', () => {
    expect(navigate(state, ROOT, 'session_child_cycle')).toBe(A);
    expect(navigate(state, A, 'session_child_cycle')).toBe(B);
    expect(navigate(state, B, 'session_child_cycle')).toBe(ROOT);
    expect(navigate(state, ROOT, 'session_child_cycle_reverse')).toBe(B);
    expect(navigate(state, A, 'session_child_cycle_reverse')).toBe(ROOT);
  });

  it('goes up to the parent and down to the first child, staying put at the ends', () => {
    expect(navigate(state, G, 'session_parent')).toBe(A);
    expect(navigate(state, A, 'session_parent')).toBe(ROOT);
    expect(navigate(state, ROOT, 'session_parent')).toBe(ROOT);
    expect(navigate(state, A, 'session_child_first')).toBe(G);
    expect(navigate(state, G, 'session_child_first')).toBe(G);
  });

  it('cycles a grandchild among its own siblings and parent', () => {
    expect(navigate(state, G, 'session_child_cycle')).toBe(A);
    expect(navigate(state, A, 'session_child_first')).toBe(G);
  });

  it('gives a child its place among its siblings', () => {
    expect(siblingPosition(state, B)).toEqual({ index: 2, total: 2 });
    expect(siblingPosition(state, G)).toEqual({ index: 1, total: 1 });
    expect(siblingPosition(state, ROOT)).toBeUndefined();
  });
});

describe('fitting the live region to the terminal', () => {
  const task = (i: number) => ({ key: `t${i}`, item: { kind: 'tool', tool: 'task', id: `t${i}` } }) as unknown as import('../../../src/ui/state/index.js').TranscriptEntry;
  it('lists fewer recent tool calls per sub-agent as blocks multiply or a dialog opens', async () => {
    const { fitLatestTools } = await import('../../../src/ui/app.js');
    expect(fitLatestTools([task(1)], 40, false)).toBe(3);
    expect(fitLatestTools(Array.from({ length: 10 }, (_, i) => task(i)), 40, false)).toBe(2);
    expect(fitLatestTools(Array.from({ length: 10 }, (_, i) => task(i)), 24, false)).toBe(0);
    expect(fitLatestTools([task(1), task(2)], 24, true)).toBe(1);
    expect(fitLatestTools([task(1), task(2)], 40, true)).toBe(3);
  });
});
