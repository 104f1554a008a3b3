// Parses keybind specs from config (`ctrl+x`, `<leader>right`, `shift+tab`, `a,b`) into
// matchers. Parsing is strict so a typo in .opencoderc.json fails loudly, not silently.

import { toChord, type Chord, type KeyFlags } from './key-event.js';

export interface Keybind {
  /** The chord must follow the leader chord. */
  leader: boolean;
  chord: Chord;
}

const ALIASES: Record<string, string> = {
  esc: 'escape',
  enter: 'return',
  arrowup: 'up',
  arrowdown: 'down',
  arrowleft: 'left',
  arrowright: 'right',
  pgup: 'pageup',
  pgdown: 'pagedown',
  del: 'delete',
  ' ': 'space',
};

const NAMED_KEYS = new Set([
  'up', 'down', 'left', 'right', 'pageup', 'pagedown', 'home', 'end',
  'return', 'escape', 'tab', 'backspace', 'delete', 'space',
]);

export class KeybindError extends Error {
  constructor(spec: string, reason: string) {
    super(`invalid keybind "${spec}": ${reason}`);
    this.name = 'KeybindError';
  }
}

function parseOne(spec: string, whole: string): Keybind {
  let rest = spec.trim();
  let leader = false;
  if (rest.toLowerCase().startsWith('<leader>')) {
    leader = true;
    rest = rest.slice('<leader>'.length).trim();
  }
  if (rest === '') throw new KeybindError(whole, 'no key given');
  // A trailing '+' is the plus key itself (`ctrl++`), not a separator.
  const parts = rest.endsWith('++') ? [...rest.slice(0, -2).split('+'), '+'] : rest.split('+');
  const keyPart = parts.pop() ?? '';
  const chord: Chord = { name: '', ctrl: false, meta: false, shift: false };
  for (const raw of parts) {
    const mod = raw.trim().toLowerCase();
    if (mod === 'ctrl' || mod === 'control') chord.ctrl = true;
    else if (mod === 'alt' || mod === 'meta' || mod === 'option') chord.meta = true;
    else if (mod === 'shift') chord.shift = true;
    else throw new KeybindError(whole, `unknown modifier "${raw}"`);
  }
  const trimmed = keyPart.length === 1 ? keyPart : keyPart.trim();
  if (trimmed.length === 1) {
    // An upper-case letter means shift+letter, as a terminal reports it.
    if (trimmed !== trimmed.toLowerCase()) chord.shift = true;
    chord.name = ALIASES[trimmed] ?? trimmed.toLowerCase();
    return { leader, chord };
  }
  const name = trimmed.toLowerCase();
  const resolved = ALIASES[name] ?? name;
  if (!NAMED_KEYS.has(resolved)) throw new KeybindError(whole, `unknown key "${keyPart}"`);
  chord.name = resolved;
  return { leader, chord };
}

/** `none` (or an empty string) disables the binding; commas separate alternatives. */
export function parseKeybind(spec: string): Keybind[] {
  const trimmed = spec.trim();
  if (trimmed === '' || trimmed.toLowerCase() === 'none') return [];
  // Split on commas that are not themselves the key (`ctrl+,`).
  const pieces = trimmed.split(/(?<!\+),/).filter((p) => p.trim() !== '');
  return pieces.map((piece) => parseOne(piece, spec));
}

export function chordEquals(a: Chord, b: Chord): boolean {
  return a.name === b.name && a.ctrl === b.ctrl && a.meta === b.meta && a.shift === b.shift;
}

export function matchesChord(chord: Chord, input: string, key: KeyFlags): boolean {
  return chordEquals(chord, toChord(input, key));
}

/** Human form for hints and help, e.g. `ctrl+x right`. */
export function formatKeybind(bind: Keybind, leader?: Chord): string {
  const one = (c: Chord): string =>
    [c.ctrl ? 'ctrl' : '', c.meta ? 'alt' : '', c.shift ? 'shift' : '', c.name].filter(Boolean).join('+');
  return bind.leader && leader ? `${one(leader)} ${one(bind.chord)}` : one(bind.chord);
}
