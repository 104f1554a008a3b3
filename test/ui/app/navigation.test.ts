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

describe('what the viewed session shows', () => {
  it('ignores text streaming inside a sub-agent but not its tool calls or status', async () => {
    const { visibleKey } = await import('../../../src/ui/state/use-visible-state.js');
    const { ev } = await import('../state/fixtures.js');
    const { reduce } = await import('../../../src/ui/state/index.js');
    const same = (a: unknown[], b: unknown[]) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
    const ap = [ROOT, A];
    const withText = reduce(state, ev('text.delta', A, ap, 'explore', { text: 'more words' }));
    expect(same(visibleKey(state, ROOT), visibleKey(withText, ROOT))).toBe(true);
    expect(same(visibleKey(state, A), visibleKey(withText, A))).toBe(false);
    const withTool = reduce(withText, ev('tool.started', A, ap, 'explore', { call_id: 'a9', tool: 'grep', input: { pattern: 'x' } }));
    expect(same(visibleKey(withText, ROOT), visibleKey(withTool, ROOT))).toBe(false);
    const done = reduce(withTool, ev('session.status', B, [ROOT, B], 'general', { status: 'completed' }));
    expect(same(visibleKey(withTool, ROOT), visibleKey(done, ROOT))).toBe(false);
  });
});
