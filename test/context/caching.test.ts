// Prompt caching through the engine (DESIGN §12): where the breakpoints go on real requests,
// and that the turn's cost counts cache writes and reads at their prices.
import { afterEach, describe, expect, it } from 'vitest';
import { costOf } from '../../src/core/provider/models.js';
import type { CoreEvent } from '../../src/core/events.js';
import { text, toolUse, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Paths of every block carrying cache_control: `system.0`, `tools.<name>`, `messages.<i>.<j>`. */
function breakpoints(r: RecordedRequest): string[] {
  const out: string[] = [];
  const has = (b: unknown) => typeof b === 'object' && b !== null && 'cache_control' in b;
  if (Array.isArray(r.body.system)) r.body.system.forEach((b, i) => has(b) && out.push(`system.${i}`));
  for (const t of r.body.tools ?? []) if (has(t)) out.push(`tools.${t.name}`);
  r.body.messages.forEach((m, i) => {
    if (Array.isArray(m.content)) (m.content as unknown[]).forEach((b, j) => has(b) && out.push(`messages.${i}.${j}`));
  });
  return out;
}

describe('prompt caching', () => {
  it('marks the system prompt, the last tool, the previous user message and the newest one; never more than four', async () => {
    h = await startHarness({ files: { 'a.txt': 'alpha', 'b.txt': 'beta' } });
    h.server.enqueue(
      { type: 'message', content: [{ type: 'tool_use', name: 'read', input: { file_path: 'a.txt' } }, { type: 'tool_use', name: 'read', input: { file_path: 'b.txt' } }] },
      toolUse('read', { file_path: 'b.txt' }),
      text('done'),
    );
    const session = h.engine.createSession();
    await h.engine.prompt(session.id, 'read both');
    const [first, second, third] = h.server.requests;
    const lastTool = first!.body.tools!.at(-1)!.name;
    expect(breakpoints(first!)).toEqual(['system.0', `tools.${lastTool}`, 'messages.0.0']);
    // The second request reads what the first wrote (messages.0.0) and writes at its end.
    expect(breakpoints(second!)).toEqual(['system.0', `tools.${lastTool}`, 'messages.0.0', 'messages.2.1']);
    expect(breakpoints(third!)).toEqual(['system.0', `tools.${lastTool}`, 'messages.2.1', 'messages.4.0']);
    for (const r of h.server.requests) expect(breakpoints(r).length).toBeLessThanOrEqual(4);
  });

  it('counts cache writes at 1.25× and reads at 0.1× the input price in the turn cost and the stored totals', async () => {
    h = await startHarness({ files: { 'a.txt': 'alpha' } });
    const u1 = { input_tokens: 1000, output_tokens: 100, cache_creation_input_tokens: 20_000, cache_read_input_tokens: 0 };
    const u2 = { input_tokens: 50, output_tokens: 200, cache_creation_input_tokens: 300, cache_read_input_tokens: 20_000 };
    h.server.enqueue({ ...toolUse('read', { file_path: 'a.txt' }), usage: u1 }, text('done', u2));
    const session = h.engine.createSession();
    const outcome = await h.engine.prompt(session.id, 'read it');
    // Sonnet 4.6: $3 input, $15 output per million.
    const expected = (1000 * 3 + 20_000 * 3.75 + 100 * 15 + 50 * 3 + 300 * 3.75 + 20_000 * 0.3 + 200 * 15) / 1e6;
    expect(costOf(session.model, u1) + costOf(session.model, u2)).toBeCloseTo(expected, 10);
    expect(outcome.cost).toBeCloseTo(expected, 10);
    const turn = h.events.find((e): e is Extract<CoreEvent, { type: 'turn.completed' }> => e.type === 'turn.completed')!;
    expect(turn.cost).toBeCloseTo(expected, 10);
    expect(turn.usage).toEqual({ input_tokens: 1050, output_tokens: 300, cache_creation_input_tokens: 20_300, cache_read_input_tokens: 20_000 });
    expect(h.store.totals(session.id).total_cost).toBeCloseTo(expected, 10);
  });
});
