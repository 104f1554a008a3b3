// The store applies a frame's events in one batch: the result must equal reducing them one by one.
import { describe, expect, it } from 'vitest';
import { createUiState, createUiStore, reduceAll, type UiInput, type UiState } from '../../../src/ui/state/index.js';
import { ev, run, treeEvents, ROOT, A } from './fixtures.js';

const strip = (s: UiState) => JSON.parse(JSON.stringify(s, (k, v) => (k === 'version' || k === 'tailLines' ? undefined : v)));

function events(): UiInput[] {
  const out: UiInput[] = [...treeEvents()];
  const ap = [ROOT, A];
  for (let i = 0; i < 300; i++) {
    out.push(ev('text.delta', A, ap, 'explore', { text: i % 7 === 0 ? 'line\n\npara ' : 'word ' }));
    if (i % 50 === 0) {
      out.push(ev('tool.started', A, ap, 'explore', { call_id: `t${i}`, tool: 'read', input: { file_path: 'x' } }));
      out.push(ev('tool.completed', A, ap, 'explore', { call_id: `t${i}`, tool: 'read', output: 'ok', is_error: false }));
    }
    if (i === 120) out.push(ev('message.retrying', A, ap, 'explore', { reason: 'overloaded', attempt: 1, delay_ms: 0 }));
    out.push(ev('text.delta', ROOT, [ROOT], 'build', { text: i % 5 === 0 ? '```\ncode\n' : 'x\n' }));
  }
  return out;
}

describe('batching', () => {
  it('reduceAll in any batch sizes equals reducing one by one', () => {
    const all = events();
    const one = run(all);
    for (const size of [1, 3, 17, 100, all.length]) {
      let s = createUiState();
      for (let i = 0; i < all.length; i += size) s = reduceAll(s, all.slice(i, i + size));
      expect(strip(s)).toEqual(strip(one));
    }
    // inputs are not mutated; earlier states unchanged
    const base = run(all.slice(0, 40));
    const snap = strip(base);
    reduceAll(base, all.slice(40));
    expect(strip(base)).toEqual(snap);
  });
  it('store applies on read and notifies once per batch', () => {
    const store = createUiStore();
    let n = 0;
    store.subscribe(() => n++);
    const all = events();
    for (const e of all.slice(0, 10)) store.dispatch(e);
    expect(n).toBe(1);
    expect(strip(store.getState())).toEqual(strip(run(all.slice(0, 10))));
    store.dispatch(all[10]!);
    expect(n).toBe(2);
  });
});
