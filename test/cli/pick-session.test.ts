// One pickSession for `run` and the TUI: which root session a run works in, and why a
// sub-agent's session is refused (its root is named, however deep the child is).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pickSession } from '../../src/core/pick-session.js';
import { ConfigError } from '../../src/core/errors.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
});

afterEach(async () => {
  await h.close();
});

function child(parentId: string, depth: number): string {
  return h.store.createSession({ agent: 'explore', title: 'x', status: 'completed', model: 'anthropic/claude-sonnet-4-5', cwd: h.projectDir, depth, parent_id: parentId }).id;
}

describe('pickSession', () => {
  it('refuses a grandchild, naming the root rather than its parent', () => {
    const root = h.engine.createSession().id;
    const grandchild = child(child(root, 1), 2);
    expect(() => pickSession(h.engine, { session: grandchild })).toThrow(ConfigError);
    expect(() => pickSession(h.engine, { session: grandchild })).toThrow(new RegExp(`sub-agent session \\(@explore\\).*-s ${root}$`));
  });

  it('takes a root id, continues the most recent root with -c, and creates one otherwise', () => {
    const first = h.engine.createSession().id;
    expect(pickSession(h.engine, { session: first })).toBe(first);
    expect(pickSession(h.engine, { continue: true })).toBe(first);
    const created = pickSession(h.engine, { agent: 'plan' });
    expect(created).not.toBe(first);
    expect(h.engine.getSession(created)).toMatchObject({ agent: 'plan', parent_id: null });
    expect(() => pickSession(h.engine, { session: 'ses_unknown' })).toThrow('No session with id "ses_unknown"');
  });

  it('takes a unique prefix of an id, with or without ses_, and names the matches of an ambiguous one', () => {
    const first = h.engine.createSession().id;
    const second = h.engine.createSession().id;
    // Ids made in one millisecond share all but their last characters.
    let common = 0;
    while (first[common] === second[common]) common++;
    expect(pickSession(h.engine, { session: first.slice(0, common + 1) })).toBe(first);
    expect(pickSession(h.engine, { session: second.slice('ses_'.length, common + 1) })).toBe(second);
    expect(() => pickSession(h.engine, { session: first.slice(0, common) })).toThrow(`matches more than one session (${first}, ${second}, …)`);
    expect(() => pickSession(h.engine, { session: `${first}x` })).toThrow(`No session with id "${first}x"`);
    expect(() => pickSession(h.engine, { session: '' })).toThrow('No session with id ""');
  });
});
