// Turns what Ink reads from the terminal into the events components handle: single key
// presses and whole pastes. Only text between the bracketed-paste markers ESC[200~ and
// ESC[201~ is a paste; everything else is keys, one per character, so `fix the bug⏎`
// arriving in one read (a fast typist, a laggy SSH link) is typed and then sent.
//
// Ink hands each parsed chunk to useInput as (input, key) but strips the ESC from
// sequences it does not know, so the paste markers and unknown sequences are told apart
// by the raw chunk, which the caller supplies alongside.

import type { Key } from 'ink';
import { FOCUS_IN, FOCUS_OUT } from '../notify/focus.js';
import { NO_KEY, splitKeys } from './key-event.js';

export const PASTE_START = '\u001B[200~';
export const PASTE_END = '\u001B[201~';
/** Turns bracketed paste on and off (the terminal then wraps pastes in the markers). */
export const BRACKETED_PASTE_ON = '\u001B[?2004h';
export const BRACKETED_PASTE_OFF = '\u001B[?2004l';

const DOUBLE_ESCAPE = '\u001B\u001B';

/** A key press as components see it: Ink's flags, plus `paste` for a whole paste. */
export type InputKey = Key & { paste?: boolean };

export type StreamEvent = [input: string, key: InputKey];

/** A paste that never sends its end marker is cut here so the input never stays swallowed. */
export const MAX_PASTE_CHARS = 1_000_000;

export interface KeyStream {
  /** Feeds one chunk as Ink parsed it; returns the events it completes, in order. */
  feed(raw: string, input: string, key: Key): StreamEvent[];
  /** True between a paste's start marker and its end. */
  readonly pasting: boolean;
  /** Ends an unterminated paste (the terminal lost the end marker): returns it, if any. */
  flush(): StreamEvent[];
}

const NAMED_FLAGS = ['upArrow', 'downArrow', 'leftArrow', 'rightArrow', 'pageUp', 'pageDown', 'home', 'end', 'return', 'escape', 'tab', 'backspace', 'delete'] as const;

export function createKeyStream(): KeyStream {
  let pasting = false;
  let buffer = '';
  const finish = (): StreamEvent[] => {
    const text = cleanPaste(buffer);
    pasting = false;
    buffer = '';
    return text === '' ? [] : [[text, pasteKey()]];
  };
  return {
    get pasting() {
      return pasting;
    },
    feed(raw, input, key) {
      if (pasting) {
        if (raw === PASTE_END) return finish();
        // A marker can share a chunk with text when Ink reads byte by byte.
        const end = raw.indexOf(PASTE_END);
        if (end !== -1) {
          buffer += raw.slice(0, end);
          return finish();
        }
        buffer += raw;
        return buffer.length > MAX_PASTE_CHARS ? finish() : [];
      }
      if (raw === PASTE_START) {
        pasting = true;
        buffer = '';
        return [];
      }
      // A stray end marker, or a sequence Ink does not know (focus reports, odd function
      // keys): never typed as text.
      if (raw === PASTE_END || raw === FOCUS_IN || raw === FOCUS_OUT) return [];
      // Two Esc presses read at once (Ink holds a lone Esc back, then hands both over as one
      // chunk): two keys, so Esc Esc can be told from a single Esc.
      if (raw === DOUBLE_ESCAPE && key.escape) return [['', key], ['', key]];
      if (raw.startsWith('\u001B') && input.length > 1 && !hasNamedFlag(key)) return [];
      return splitKeys(input, key);
    },
    flush() {
      return pasting ? finish() : [];
    },
  };
}

function hasNamedFlag(key: Key): boolean {
  return NAMED_FLAGS.some((flag) => key[flag]) || key.ctrl || key.meta;
}

/**
 * Pasted text as it should be inserted: line endings as '\n', escape sequences (colours
 * copied from a terminal) and other control characters removed, tabs kept as spaces so
 * the editor's columns stay true.
 */
export function cleanPaste(text: string): string {
  return (
    text
      .replace(/\r\n?/g, '\n')
      // eslint-disable-next-line no-control-regex
      .replace(/\u001B\[[0-?]*[ -/]*[@-~]/g, '')
      // eslint-disable-next-line no-control-regex
      .replace(/\u001B\][^\u0007\u001B]*(?:\u0007|\u001B\\)?/g, '')
      .replace(/\t/g, '    ')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, '')
  );
}

function pasteKey(): InputKey {
  return { ...NO_KEY, paste: true };
}
