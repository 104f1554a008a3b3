// The UI's one raw keypress layer: keybind parsing, the leader keymap and the key router.

export { toChord, printableText, splitKeys, keyOfChar, type Chord, type KeyFlags } from './key-event.js';
export { createKeyStream, cleanPaste, PASTE_START, PASTE_END, BRACKETED_PASTE_ON, BRACKETED_PASTE_OFF, type InputKey, type KeyStream, type StreamEvent } from './key-stream.js';
export { parseKeybind, matchesChord, chordEquals, formatKeybind, KeybindError, type Keybind } from './keybind.js';
export {
  createKeymap,
  DEFAULT_KEYBINDS,
  KEYMAP_ACTIONS,
  LEADER_TIMEOUT_MS,
  type Keymap,
  type KeymapAction,
  type KeybindConfig,
  type KeymapOptions,
} from './keymap.js';
export { useRefState } from './ref-state.js';
export { KeyRouter, useKeys, useHoldKeys, useLeaderPending, MAX_HOLD_MS, type HoldKeys, type KeyRouterProps, type KeyHandler, type UseKeysOptions } from './key-router.js';
