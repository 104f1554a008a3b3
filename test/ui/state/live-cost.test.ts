// The status line's cost rolls up as usage arrives: a sub-agent's replies count while it runs,
// not only once its turn has ended; the turn's own bill then replaces the live sum.
import { describe, expect, it } from 'vitest';
import { subtreeTotals } from '../../../src/ui/state/index.js';
import { A, ROOT, ev, run, treeEvents, usage } from './fixtures.js';

describe('live cost', () => {
  it("counts a running child's finished replies in its ancestors' totals", () => {
    const ap = [ROOT, A];
    let s = run(treeEvents());
    const before = subtreeTotals(s, ROOT).cost;
    s = run([ev('message.started', A, ap, 'explore', { message_id: 'a1' }), ev('message.completed', A, ap, 'explore', { message_id: 'a1', usage: usage(1000, 100), stop_reason: 'tool_use', cost: 0.25 })], s);
    expect(subtreeTotals(s, ROOT).cost).toBeCloseTo(before + 0.25);
    s = run([ev('message.completed', A, ap, 'explore', { message_id: 'a2', usage: usage(1000, 100), stop_reason: 'end_turn', cost: 0.5 })], s);
    expect(subtreeTotals(s, ROOT).cost).toBeCloseTo(before + 0.75);
    // The turn's bill (a summary request included) replaces the live sum, never adds to it.
    s = run([ev('turn.completed', A, ap, 'explore', { usage: usage(2000, 200), cost: 0.8 })], s);
    expect(subtreeTotals(s, ROOT).cost).toBeCloseTo(before + 0.8);
  });
});
