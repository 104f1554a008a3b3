// The paste parser: only text between bracketed-paste markers is a paste; keys read
// together are still single keys, so Enter in the same read submits.
import { describe, expect, it } from 'vitest';
import type { Key } from 'ink';
import { cleanPaste, createKeyStream, PASTE_END, PASTE_START, type StreamEvent } from '../../../src/ui/keys/key-stream.js';
import { keyOfChar } from '../../../src/ui/keys/key-event.js';

const plain = keyOfChar('a')[1];
const k = (over: Partial<Key>): Key => ({ ...plain, shift: false, ...over });

/** Feeds raw chunks as Ink would hand them to useInput (input = raw minus a leading ESC). */
function feedAll(chunks: Array<[raw: string, input?: string, key?: Key]>): StreamEvent[] {
  const s = createKeyStream();
  return chunks.flatMap(([raw, input, key]) => s.feed(raw, input ?? (raw.startsWith('\u001B') ? raw.slice(1) : raw), key ?? k({})));
}

const describeEvents = (events: StreamEvent[]) => events.map(([input, key]) => (key.paste ? `paste:${input}` : key.return ? '⏎' : input));

describe('key stream', () => {
  it('splits text and Enter read together into keys, Enter last', () => {
    expect(describeEvents(feedAll([['fix the bug\r']]))).toEqual([...'fix the bug', '⏎']);
  });

  it('keeps a bracketed paste whole, newlines included, and does not submit it', () => {
    const events = feedAll([[PASTE_START], ['line one\r\nline two\rthree'], [PASTE_END], ['\r', '\r', k({ return: true })]]);
    expect(describeEvents(events)).toEqual(['paste:line one\nline two\nthree', '⏎']);
  });

  it('joins a paste that arrives over several reads, with escape sequences inside', () => {
    const events = feedAll([[PASTE_START], ['red '], ['\u001B[31m'], ['text'], ['\u001B[0m'], ['\tend'], [PASTE_END]]);
    expect(describeEvents(events)).toEqual(['paste:red text    end']);
  });

  it('ends a paste whose end marker shares a read with text', () => {
    expect(describeEvents(feedAll([[PASTE_START], [`abc${PASTE_END}`]]))).toEqual(['paste:abc']);
  });

  it('types a literal "[200~" rather than taking it as a paste start', () => {
    const s = createKeyStream();
    expect(describeEvents(s.feed('[200~', '[200~', k({})))).toEqual([...'[200~']);
    expect(s.pasting).toBe(false);
  });

  it('drops unknown escape sequences and stray end markers instead of typing them', () => {
    expect(feedAll([['\u001B[27;2;13~'], [PASTE_END], ['\u001B[I']])).toEqual([]);
  });

  it('passes named keys and Alt chords through unchanged', () => {
    const left = k({ leftArrow: true, ctrl: true });
    const events = feedAll([['\u001B[1;5D', '', left], ['\u001Bb', 'b', k({ meta: true })]]);
    expect(events).toEqual([['', left], ['b', k({ meta: true })]]);
  });

  it('flush ends a paste whose end marker never came', () => {
    const s = createKeyStream();
    s.feed(PASTE_START, '[200~', k({}));
    s.feed('half', 'half', k({}));
    expect(s.pasting).toBe(true);
    expect(describeEvents(s.flush())).toEqual(['paste:half']);
    expect(s.pasting).toBe(false);
    expect(s.flush()).toEqual([]);
    // Keys work again afterwards.
    expect(describeEvents(s.feed('ok', 'ok', k({})))).toEqual(['o', 'k']);
  });

  it('splits emoji by code point, not UTF-16 unit', () => {
    expect(describeEvents(feedAll([['✅😀\r']]))).toEqual(['✅', '😀', '⏎']);
  });

  it('cleanPaste strips control characters and OSC sequences', () => {
    expect(cleanPaste('a\u0007b\u001B]8;;http://x\u0007link\u001B]8;;\u0007\u007f')).toBe('ablink');
  });
});
