import { describe, expect, it } from 'vitest';
import { terminalSafe, terminalSafeDeep } from '../../src/core/text/terminal-safe.js';

const ESC = '\u001b';
const BEL = '\u0007';
const ST = `${ESC}\\`;

describe('terminalSafe', () => {
  it('leaves ordinary text, tabs, newlines and wide characters alone', () => {
    const text = 'plain\ttext\nsecond line — 日本語 🎉';
    expect(terminalSafe(text)).toBe(text);
  });

  it('removes OSC 0/2 title changes with either terminator', () => {
    expect(terminalSafe(`a${ESC}]0;owned${BEL}b`)).toBe('ab');
    expect(terminalSafe(`a${ESC}]2;owned${ST}b`)).toBe('ab');
  });

  it('removes OSC 52 clipboard writes terminated by BEL, ST, 8-bit ST, or nothing', () => {
    expect(terminalSafe(`x${ESC}]52;c;Y3VybCBldmlsLnNoIHwgc2g=${BEL}y`)).toBe('xy');
    expect(terminalSafe(`x${ESC}]52;c;Y3VybA==${ST}y`)).toBe('xy');
    expect(terminalSafe(`x${ESC}]52;c;Y3VybA==\u009cy`)).toBe('xy');
    expect(terminalSafe(`x${ESC}]52;c;Y3VybA==`)).toBe('x');
    expect(terminalSafe(`x\u009d52;c;Y3VybA==${BEL}y`)).toBe('xy');
  });

  it('removes screen clears, cursor moves and resets', () => {
    expect(terminalSafe(`a${ESC}[2Jb${ESC}[Hc${ESC}[10;20Hd${ESC}[1Ae${ESC}[?1049hf`)).toBe('abcdef');
    expect(terminalSafe(`a${ESC}cb${ESC}7c${ESC}8d${ESC}(Be${ESC}#8f`)).toBe('abcdef');
  });

  it('removes DCS, SOS, PM and APC strings', () => {
    expect(terminalSafe(`a${ESC}P1$r0m${ST}b`)).toBe('ab');
    expect(terminalSafe(`a${ESC}_apc payload${ST}b${ESC}^pm${ST}c${ESC}Xsos${ST}d`)).toBe('abcd');
    expect(terminalSafe(`a\u0090dcs\u009cb`)).toBe('ab');
  });

  it('removes 8-bit C1 controls, CSI 0x9b with its parameters', () => {
    expect(terminalSafe('a\u009b2Jb\u009b31mc\u0085d')).toBe('abcd');
  });

  it('removes SGR colour too, so text cannot hide itself', () => {
    expect(terminalSafe(`${ESC}[31mred${ESC}[0m ${ESC}[8mhidden${ESC}[m ${ESC}[38;2;0;0;0mblack`)).toBe('red hidden black');
  });

  it('turns a bare CR into a newline instead of letting it overwrite the line, and CRLF into LF', () => {
    expect(terminalSafe('rm -rf ~\rls -la')).toBe('rm -rf ~\nls -la');
    expect(terminalSafe('one\r\ntwo')).toBe('one\ntwo');
  });

  it('removes BEL, backspace, form feed, NUL and DEL', () => {
    expect(terminalSafe(`ding${BEL} ab\bc\f\u0000\u007fd`)).toBe('ding abcd');
  });

  it('keeps the rest of the text when one sequence is cut off by another', () => {
    expect(terminalSafe(`a${ESC}]0;title${ESC}[2Jb`)).toBe('ab');
    expect(terminalSafe(`a${ESC}`)).toBe('a');
    expect(terminalSafe(`a${ESC}[`)).toBe('a');
  });

  it('never leaves an ESC or C1 byte behind, whatever the input', () => {
    const alphabet = [ESC, '[', ']', 'P', '\\', BEL, '\u009b', '\u009c', '\u009d', '\r', '\n', '\t', 'a', '0', ';', 'm', 'H', '2', '_', '^'];
    let seed = 7;
    for (let n = 0; n < 2000; n++) {
      let s = '';
      for (let i = 0; i < 12; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        s += alphabet[seed % alphabet.length];
      }
      // eslint-disable-next-line no-control-regex
      expect(terminalSafe(s), JSON.stringify(s)).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    }
  });

  it('cleans every string of a tool input, keeping its shape', () => {
    expect(terminalSafeDeep({ command: `ls${ESC}]52;c;eA==${BEL}`, n: 3, list: [`a${ESC}[2J`], nested: { ok: true } })).toEqual({
      command: 'ls',
      n: 3,
      list: ['a'],
      nested: { ok: true },
    });
  });
});
