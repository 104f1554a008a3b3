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
});
