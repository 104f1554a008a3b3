// Pure text-buffer operations for the prompt: a string plus a cursor offset. Lines are
// '\n'-separated; every operation returns a new buffer so the reducer stays pure.

export interface Buffer {
  text: string;
  /** Offset into `text`, 0..text.length. */
  cursor: number;
}

export const EMPTY: Buffer = { text: '', cursor: 0 };

export function fromText(text: string): Buffer {
  return { text, cursor: text.length };
}

export function insert(b: Buffer, s: string): Buffer {
  return { text: b.text.slice(0, b.cursor) + s + b.text.slice(b.cursor), cursor: b.cursor + s.length };
}

/** Deletes the grapheme before the cursor (not half an emoji). */
export function backspace(b: Buffer): Buffer {
  if (b.cursor === 0) return b;
  const start = prevIndex(b.text, b.cursor);
  return { text: b.text.slice(0, start) + b.text.slice(b.cursor), cursor: start };
}

export function deleteForward(b: Buffer): Buffer {
  if (b.cursor >= b.text.length) return b;
  return { text: b.text.slice(0, b.cursor) + b.text.slice(nextIndex(b.text, b.cursor)), cursor: b.cursor };
}

export function left(b: Buffer): Buffer {
  return b.cursor === 0 ? b : { ...b, cursor: prevIndex(b.text, b.cursor) };
}

export function right(b: Buffer): Buffer {
  return b.cursor >= b.text.length ? b : { ...b, cursor: nextIndex(b.text, b.cursor) };
}

export function lineStart(b: Buffer): number {
  return b.text.lastIndexOf('\n', b.cursor - 1) + 1;
}

export function lineEnd(b: Buffer): number {
  const end = b.text.indexOf('\n', b.cursor);
  return end === -1 ? b.text.length : end;
}

export function home(b: Buffer): Buffer {
  return { ...b, cursor: lineStart(b) };
}

export function end(b: Buffer): Buffer {
  return { ...b, cursor: lineEnd(b) };
}

/** Ctrl+U, as in readline: removes from the start of the line to the cursor. */
export function killToLineStart(b: Buffer): Buffer {
  const start = lineStart(b);
  return { text: b.text.slice(0, start) + b.text.slice(b.cursor), cursor: start };
}

/** Ctrl+K: removes from the cursor to the end of the line. */
export function killToLineEnd(b: Buffer): Buffer {
  return { text: b.text.slice(0, b.cursor) + b.text.slice(lineEnd(b)), cursor: b.cursor };
}

/** Ctrl+W: removes trailing whitespace, then the word before the cursor. */
export function deleteWordBefore(b: Buffer): Buffer {
  let i = b.cursor;
  while (i > 0 && /[ \t]/.test(b.text[i - 1] ?? '')) i--;
  while (i > 0 && !/\s/.test(b.text[i - 1] ?? '')) i--;
  // At a line start with nothing else to take, join with the previous line.
  if (i === b.cursor && i > 0) i--;
  return { text: b.text.slice(0, i) + b.text.slice(b.cursor), cursor: i };
}

/** Letters, digits and `_` make words (as readline's Alt+B/F); everything else separates. */
const WORD = /[\p{L}\p{N}_]/u;
const isWord = (ch: string | undefined): boolean => ch !== undefined && WORD.test(ch);

/** Start of the word before the cursor (Alt+B, Ctrl+←): skips separators, then the word. */
export function wordStartBefore(text: string, cursor: number): number {
  let i = cursor;
  while (i > 0 && !isWord(charBefore(text, i))) i = prevIndex(text, i);
  while (i > 0 && isWord(charBefore(text, i))) i = prevIndex(text, i);
  return i;
}

/** End of the word after the cursor (Alt+F, Ctrl+→): skips separators, then the word. */
export function wordEndAfter(text: string, cursor: number): number {
  let i = cursor;
  while (i < text.length && !isWord(charAt(text, i))) i = nextIndex(text, i);
  while (i < text.length && isWord(charAt(text, i))) i = nextIndex(text, i);
  return i;
}

export function wordLeft(b: Buffer): Buffer {
  return { ...b, cursor: wordStartBefore(b.text, b.cursor) };
}

export function wordRight(b: Buffer): Buffer {
  return { ...b, cursor: wordEndAfter(b.text, b.cursor) };
}

/** Alt+D: removes from the cursor to the end of the next word. */
export function deleteWordAfter(b: Buffer): Buffer {
  return { text: b.text.slice(0, b.cursor) + b.text.slice(wordEndAfter(b.text, b.cursor)), cursor: b.cursor };
}

/** Alt+Backspace: removes back to the start of the word (punctuation separates, unlike Ctrl+W). */
export function deleteWordStartBefore(b: Buffer): Buffer {
  const start = wordStartBefore(b.text, b.cursor);
  return { text: b.text.slice(0, start) + b.text.slice(b.cursor), cursor: start };
}

function charBefore(text: string, i: number): string | undefined {
  return text.slice(prevIndex(text, i), i);
}

function charAt(text: string, i: number): string | undefined {
  return text.slice(i, nextIndex(text, i));
}

export function cursorLine(b: Buffer): { line: number; column: number; lineCount: number } {
  const before = b.text.slice(0, b.cursor);
  const line = countNewlines(before);
  return { line, column: b.cursor - lineStart(b), lineCount: countNewlines(b.text) + 1 };
}

/** Moves one line up or down keeping the column where the target line allows it. */
export function verticalMove(b: Buffer, delta: -1 | 1): Buffer {
  const lines = b.text.split('\n');
  const { line, column } = cursorLine(b);
  const target = line + delta;
  if (target < 0 || target >= lines.length) return b;
  let offset = 0;
  for (let i = 0; i < target; i++) offset += (lines[i] ?? '').length + 1;
  return { ...b, cursor: offset + Math.min(column, (lines[target] ?? '').length) };
}

function countNewlines(s: string): number {
  let n = 0;
  for (const ch of s) if (ch === '\n') n++;
  return n;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/** Longest grapheme looked for around the cursor; longer ones (rare) move by code point. */
const WINDOW = 64;

/** Start of the grapheme before `i`: a ZWJ emoji, a flag or an accented letter is one step. */
function prevIndex(text: string, i: number): number {
  if (i <= 0) return 0;
  const from = Math.max(0, i - WINDOW);
  let last = from;
  for (const { index } of graphemes.segment(text.slice(from, i))) last = from + index;
  // A window that began inside a grapheme can only shorten the step, never split a pair.
  return last < i ? last : codePointBefore(text, i);
}

/** End of the grapheme at `i`. */
function nextIndex(text: string, i: number): number {
  if (i >= text.length) return text.length;
  const first = graphemes.segment(text.slice(i, i + WINDOW))[Symbol.iterator]().next();
  const len = first.done ? 1 : first.value.segment.length;
  return Math.min(text.length, i + Math.max(1, len));
}

function codePointBefore(text: string, i: number): number {
  const code = text.charCodeAt(i - 1);
  return code >= 0xdc00 && code <= 0xdfff && i >= 2 ? i - 2 : i - 1;
}

/** The grapheme starting at `i` ('' at the end): what the cursor is drawn over. */
export function graphemeAt(text: string, i: number): string {
  return text.slice(i, nextIndex(text, i));
}
