import { describe, expect, it } from 'vitest';
import type { Key } from 'ink';
import { createKeymap, parseKeybind, KeybindError, LEADER_TIMEOUT_MS, type KeyFlags } from '../../../src/ui/keys/index.js';
import { keyOfChar, splitKeys } from '../../../src/ui/keys/key-event.js';

const ctrl = (letter: string): [string, KeyFlags] => [letter, { ctrl: true }];
const right: [string, KeyFlags] = ['', { rightArrow: true }];
const left: [string, KeyFlags] = ['', { leftArrow: true }];
const up: [string, KeyFlags] = ['', { upArrow: true }];
const down: [string, KeyFlags] = ['', { downArrow: true }];
const plain = (ch: string): [string, KeyFlags] => [ch, {}];

describe('parseKeybind', () => {
  it('parses modifiers, the leader prefix, named keys and alternatives', () => {
    expect(parseKeybind('ctrl+x')).toEqual([{ leader: false, chord: { name: 'x', ctrl: true, meta: false, shift: false } }]);
    expect(parseKeybind('<leader>right')).toEqual([{ leader: true, chord: { name: 'right', ctrl: false, meta: false, shift: false } }]);
    expect(parseKeybind('<leader>l')[0]?.chord.name).toBe('l');
    expect(parseKeybind('escape')[0]?.chord.name).toBe('escape');
    expect(parseKeybind('esc')[0]?.chord.name).toBe('escape');
    expect(parseKeybind('tab')[0]?.chord).toEqual({ name: 'tab', ctrl: false, meta: false, shift: false });
    expect(parseKeybind('shift+tab')[0]?.chord.shift).toBe(true);
    expect(parseKeybind('alt+b')[0]?.chord.meta).toBe(true);
    expect(parseKeybind('ctrl+c,<leader>q')).toHaveLength(2);
    expect(parseKeybind('none')).toEqual([]);
  });

  it('rejects unknown keys and modifiers with the spec in the message', () => {
    expect(() => parseKeybind('ctrl+rigth')).toThrow(KeybindError);
    expect(() => parseKeybind('hyper+x')).toThrow(/hyper\+x/);
  });
});

describe('createKeymap (defaults)', () => {
  it('completes each <leader>X sequence into its action', () => {
    const cases: Array<[[string, KeyFlags], string]> = [
      [right, 'session_child_cycle'],
      [left, 'session_child_cycle_reverse'],
      [up, 'session_parent'],
      [down, 'session_child_first'],
      [plain('l'), 'session_list'],
    ];
    for (const [second, action] of cases) {
      const km = createKeymap();
      expect(km.handle(...ctrl('x'), 1000)).toBeUndefined();
      expect(km.isPending(1000)).toBe(true);
      expect(km.handle(...second, 1100)).toBe(action);
      expect(km.isPending(1100)).toBe(false);
    }
  });

  it('does nothing for the second key without the leader', () => {
    const km = createKeymap();
    expect(km.handle(...right, 0)).toBeUndefined();
    expect(km.handle(...plain('l'), 0)).toBeUndefined();
    expect(km.isPending(0)).toBe(false);
  });

  it('forgets the leader after the timeout', () => {
    const km = createKeymap();
    km.handle(...ctrl('x'), 1000);
    expect(km.isPending(1000 + LEADER_TIMEOUT_MS + 1)).toBe(false);
    expect(km.handle(...right, 1000 + LEADER_TIMEOUT_MS + 1)).toBeUndefined();
    // Just inside the window still completes.
    km.handle(...ctrl('x'), 5000);
    expect(km.handle(...right, 5000 + LEADER_TIMEOUT_MS)).toBe('session_child_cycle');
  });

  it('consumes an unbound second key and ends the sequence', () => {
    const km = createKeymap();
    km.handle(...ctrl('x'), 0);
    expect(km.handle(...plain('q'), 10)).toBeUndefined();
    expect(km.isPending(10)).toBe(false);
    expect(km.handle(...right, 20)).toBeUndefined();
  });

  it('restarts the wait when the leader is pressed twice', () => {
    const km = createKeymap();
    km.handle(...ctrl('x'), 0);
    km.handle(...ctrl('x'), 1000);
    expect(km.handle(...up, 2000)).toBe('session_parent');
  });

  it('does not treat a different modifier combination as the leader', () => {
    const km = createKeymap();
    km.handle('x', {}, 0);
    expect(km.handle(...right, 1)).toBeUndefined();
    km.handle('L', { shift: true }, 2);
    expect(km.handle(...plain('L'), 3)).toBeUndefined();
  });
});

describe('createKeymap (config overrides)', () => {
  it('uses a configured leader and sequences', () => {
    const km = createKeymap({ leader: 'ctrl+g', session_list: '<leader>s' });
    km.handle(...ctrl('x'), 0);
    expect(km.handle(...right, 1)).toBeUndefined();
    km.handle(...ctrl('g'), 2);
    expect(km.handle(...plain('s'), 3)).toBe('session_list');
    km.handle(...ctrl('g'), 4);
    expect(km.handle(...plain('l'), 5)).toBeUndefined();
    km.handle(...ctrl('g'), 6);
    expect(km.handle(...right, 7)).toBe('session_child_cycle');
  });

  it('supports direct (leaderless) bindings and disabling with none', () => {
    const km = createKeymap({ session_parent: 'escape', session_list: 'none' });
    expect(km.handle('', { escape: true, meta: true }, 0)).toBe('session_parent');
    km.handle(...ctrl('x'), 1);
    expect(km.handle(...plain('l'), 2)).toBeUndefined();
  });

  it('honours a custom timeout', () => {
    const km = createKeymap({}, { timeoutMs: 100 });
    km.handle(...ctrl('x'), 0);
    expect(km.handle(...right, 150)).toBeUndefined();
  });

  it('describes bindings for help output', () => {
    const km = createKeymap();
    expect(km.describe().find((d) => d.action === 'session_child_cycle')?.keys).toEqual(['ctrl+x right']);
  });

  it('fails loudly on a bad spec', () => {
    expect(() => createKeymap({ session_parent: '<leader>upp' })).toThrow(/upp/);
  });
});

describe('splitKeys (several keys in one read)', () => {
  const inkKey = (flags: Partial<Key> = {}): Key => ({ ...keyOfChar('a')[1], ...flags });

  it('splits "\\x18l" into Ctrl+X and l, which then complete <leader>l', () => {
    const keys = splitKeys('\u0018l', inkKey());
    expect(keys.map(([input, k]) => [input, k.ctrl])).toEqual([
      ['x', true],
      ['l', false],
    ]);
    const km = createKeymap();
    // Whole, the chunk matches nothing: that was the bug.
    expect(km.handle('\u0018l', {}, 1000)).toBeUndefined();
    expect(km.isPending(1000)).toBe(false);
    const actions = keys.map(([input, k]) => km.handle(input, k, 1000));
    expect(actions).toEqual([undefined, 'session_list']);
  });

  it('maps each control character as Ink would read it alone', () => {
    const keys = splitKeys('\u0001\u0005\u007f\u0008\rA', inkKey());
    expect(keys.map(([input, k]) => ({ input, ctrl: k.ctrl, del: k.delete, bs: k.backspace, ret: k.return, shift: k.shift }))).toEqual([
      { input: 'a', ctrl: true, del: false, bs: false, ret: false, shift: false },
      { input: 'e', ctrl: true, del: false, bs: false, ret: false, shift: false },
      { input: '', ctrl: false, del: true, bs: false, ret: false, shift: false },
      { input: '', ctrl: false, del: false, bs: true, ret: false, shift: false },
      { input: '\r', ctrl: false, del: false, bs: false, ret: true, shift: false },
      { input: 'A', ctrl: false, del: false, bs: false, ret: false, shift: true },
    ]);
  });

  it('splits text typed in one read, so Enter at its end is a key (pastes are bracketed, see key-stream)', () => {
    expect(splitKeys('hi\r', inkKey()).map(([input, k]) => [input, k.return])).toEqual([
      ['h', false],
      ['i', false],
      ['\r', true],
    ]);
    expect(splitKeys('a\u0018', inkKey()).map(([input, k]) => [input, k.ctrl])).toEqual([
      ['a', false],
      ['x', true],
    ]);
  });

  it('passes single keys, named keys and modified keys through whole', () => {
    for (const input of ['x', '😀']) expect(splitKeys(input, inkKey())).toEqual([[input, inkKey()]]);
    const ret = inkKey({ return: true });
    expect(splitKeys('\r', ret)).toEqual([['\r', ret]]);
    const alt = inkKey({ meta: true });
    expect(splitKeys('ab', alt)).toEqual([['ab', alt]]);
  });
});
