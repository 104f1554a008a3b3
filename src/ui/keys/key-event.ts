// Normalises Ink's (input, key) pair into one comparable chord, so keybind specs from
// config and hard-wired component keys are matched the same way.

import type { Key } from 'ink';

/** A single key press with its modifiers; `name` is lower-case ('x', 'right', 'escape'…). */
export interface Chord {
  name: string;
  ctrl: boolean;
  meta: boolean;
  shift: boolean;
}

/** The subset of Ink's `Key` this layer reads; lets pure code be tested without Ink. */
export type KeyFlags = Partial<Pick<
  Key,
  | 'upArrow' | 'downArrow' | 'leftArrow' | 'rightArrow' | 'pageUp' | 'pageDown' | 'home' | 'end'
  | 'return' | 'escape' | 'ctrl' | 'shift' | 'tab' | 'backspace' | 'delete' | 'meta'
>> & {
  /** The input is a whole bracketed paste, not typed keys (see key-stream.ts). */
  paste?: boolean;
};

const NAMED: ReadonlyArray<[keyof KeyFlags, string]> = [
  ['upArrow', 'up'],
  ['downArrow', 'down'],
  ['leftArrow', 'left'],
  ['rightArrow', 'right'],
  ['pageUp', 'pageup'],
  ['pageDown', 'pagedown'],
  ['home', 'home'],
  ['end', 'end'],
  ['return', 'return'],
  ['escape', 'escape'],
  ['tab', 'tab'],
  ['backspace', 'backspace'],
  ['delete', 'delete'],
];

export function toChord(input: string, key: KeyFlags): Chord {
  for (const [flag, name] of NAMED) {
    if (key[flag]) {
      // Ink reports every Escape as meta (it is the ESC prefix); a bare Escape is not Alt.
      const meta = name === 'escape' ? false : Boolean(key.meta);
      return { name, ctrl: Boolean(key.ctrl), meta, shift: Boolean(key.shift) };
    }
  }
  // Ctrl+J arrives as a bare line feed, with no ctrl flag from Ink.
  if (input === '\n') return { name: 'j', ctrl: true, meta: false, shift: false };
  const name = input === ' ' ? 'space' : input.toLowerCase();
  const shift = Boolean(key.shift) || (input.length === 1 && input !== input.toLowerCase());
  return { name, ctrl: Boolean(key.ctrl), meta: Boolean(key.meta), shift };
}

/**
 * Text a key press would type: no modifiers, no named key, no control characters.
 * A paste arrives as one multi-character input and counts as printable.
 */
export function printableText(input: string, key: KeyFlags): string {
  if (key.ctrl || key.meta) return '';
  for (const [flag] of NAMED) if (key[flag]) return '';
  // Control characters other than newline (kept for pastes) are never text.
  // eslint-disable-next-line no-control-regex
  return input.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, '');
}

/** A key with no flag set: the base every synthesised key starts from. */
export const NO_KEY: Readonly<Key> = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/** What Ink reports for one character read alone (mirrors its parseKeypress + useInput). */
export function keyOfChar(ch: string): [string, Key] {
  const code = ch.charCodeAt(0);
  if (ch === '\r') return ['\r', { ...NO_KEY, return: true }];
  if (ch === '\n') return ['\n', { ...NO_KEY }];
  if (ch === '\t') return ['', { ...NO_KEY, tab: true }];
  if (ch === '\b') return ['', { ...NO_KEY, backspace: true }];
  if (ch === '\u007f') return ['', { ...NO_KEY, delete: true }];
  if (code === 0) return ['`', { ...NO_KEY, ctrl: true }];
  if (code <= 0x1a) return [String.fromCharCode(code + 0x60), { ...NO_KEY, ctrl: true }];
  return [ch, { ...NO_KEY, shift: /^[A-Z]$/.test(ch) }];
}

/**
 * Ink turns one read from the terminal into one key event, so keys typed faster than it
 * reads — or sent together, as `tmux send-keys C-x l` does, or over a laggy link — arrive
 * as one string ("\u0018l", "fix the bug\r") that matches no chord. Plain input of more
 * than one character is split into one key per character; pastes are told apart earlier,
 * by their bracketed-paste markers (see key-stream.ts).
 */
export function splitKeys(input: string, key: Key): Array<[string, Key]> {
  const flags: KeyFlags = key;
  if (input.length < 2 || key.meta || key.ctrl) return [[input, key]];
  for (const [flag] of NAMED) if (flags[flag]) return [[input, key]];
  const chars = Array.from(input);
  return chars.length < 2 ? [[input, key]] : chars.map(keyOfChar);
}
