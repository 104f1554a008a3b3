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
>>;

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
 * Pastes arrive as one multi-character input and count as printable.
 */
export function printableText(input: string, key: KeyFlags): string {
  if (key.ctrl || key.meta) return '';
  for (const [flag] of NAMED) if (key[flag]) return '';
  // Control characters other than newline (kept for pastes) are never text.
  // eslint-disable-next-line no-control-regex
  return input.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, '');
}
