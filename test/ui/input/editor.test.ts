import { describe, expect, it } from 'vitest';
import * as ed from '../../../src/ui/components/input/editor.js';

const at = (text: string, cursor: number): ed.Buffer => ({ text, cursor });

describe('editor buffer', () => {
  it('deletes a whole emoji with backspace', () => {
    expect(ed.backspace(ed.fromText('a😀'))).toEqual(at('a', 1));
  });

  it('ctrl+w skips trailing spaces then takes one word, and joins lines at a line start', () => {
    expect(ed.deleteWordBefore(ed.fromText('git commit  '))).toEqual(at('git ', 4));
    expect(ed.deleteWordBefore(at('ab\ncd', 3))).toEqual(at('abcd', 2));
  });

  it('ctrl+u removes only the current line up to the cursor', () => {
    expect(ed.killToLineStart(at('one\ntwo three', 8))).toEqual(at('one\nthree', 4));
  });

  it('vertical moves keep the column where the target line allows', () => {
    expect(ed.verticalMove(at('abcdef\nxy', 5), 1)).toEqual(at('abcdef\nxy', 9));
    expect(ed.verticalMove(at('abcdef\nxy', 8), -1)).toEqual(at('abcdef\nxy', 1));
    expect(ed.verticalMove(at('abc', 1), -1)).toEqual(at('abc', 1));
  });

  it('home/end work per line', () => {
    expect(ed.home(at('ab\ncd', 4)).cursor).toBe(3);
    expect(ed.end(at('ab\ncd', 1)).cursor).toBe(2);
  });

  it('word moves skip separators, then one word, across lines and emoji', () => {
    const text = 'git commit -m "fix 😀 bug"\nnext';
    expect(ed.wordLeft(at(text, 10)).cursor).toBe(4);
    expect(ed.wordLeft(at(text, 4)).cursor).toBe(0);
    expect(ed.wordLeft(at(text, 0)).cursor).toBe(0);
    expect(ed.wordRight(at(text, 0)).cursor).toBe(3);
    expect(ed.wordRight(at(text, 3)).cursor).toBe(10);
    // The emoji is a separator, skipped whole (never half a surrogate pair).
    expect(ed.wordRight(at(text, 18)).cursor).toBe(text.indexOf('bug') + 3);
    expect(ed.wordRight(at(text, text.indexOf('bug') + 3)).cursor).toBe(text.length);
    expect(ed.wordLeft(at(text, text.length)).cursor).toBe(text.indexOf('next'));
    expect(ed.wordRight(at('漢字 かな', 0)).cursor).toBe(2);
  });

  it('Alt+D and Alt+Backspace delete by word, stopping at punctuation', () => {
    expect(ed.deleteWordAfter(at('src/ui/app.tsx', 3))).toEqual(at('src/app.tsx', 3));
    expect(ed.deleteWordStartBefore(at('src/ui/app', 10))).toEqual(at('src/ui/', 7));
  });

  it('ctrl+k removes to the end of the current line only', () => {
    expect(ed.killToLineEnd(at('one two\nthree', 3))).toEqual(at('one\nthree', 3));
  });
});
