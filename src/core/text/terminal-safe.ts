// Makes text from the model, tools, sessions or project files safe to put on a terminal:
// every escape sequence and control character is removed, so such text can never set the
// window title, write the clipboard (OSC 52), move the cursor, clear the screen, or hide
// part of itself from the person reading it.
//
// Contract
// - Pure string → string; no terminal imports. Applied where such text enters the TUI's
//   state and where `run --format text` writes it (JSON output is escaped by JSON itself).
// - Kept: tab, newline and every printable character. A CRLF becomes LF and a bare CR (which
//   would overwrite the line it ends) becomes LF, so nothing is hidden and nothing is lost.
// - Removed whole: CSI (`ESC [` or 8-bit 0x9b, up to its final byte), OSC (`ESC ]` / 0x9d, up to
//   BEL or ST), DCS/SOS/PM/APC (`ESC P X ^ _` / 0x90 0x98 0x9e 0x9f, up to ST), and two- or
//   three-byte ESC sequences (`ESC c`, `ESC 7`, `ESC ( B`). A string sequence with no
//   terminator runs to the end of the text.
// - SGR (colour) is removed too, consistently: the UI does its own colouring, and colour can
//   hide text (concealed, or foreground = background) from the user who approves it.
// - Removed alone: every other C0 control (BEL, backspace, form feed, …), DEL and C1 control.
// - A sequence split across two chunks of a stream loses its escape byte in the first chunk
//   and leaves only printable residue in the second: never an escape.

/** ESC or any C0/C1 control other than tab and newline: the fast path skips text without one. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/**
 * One alternation, tried left to right at each unsafe position:
 * CSI · string sequences (OSC, DCS, SOS, PM, APC) · other ESC sequences · CRLF / CR · any single control.
 */
const SEQUENCE = new RegExp(
  [
    // CSI: parameters 0x30–0x3f, intermediates 0x20–0x2f, final 0x40–0x7e (a missing final runs to the end).
    '(?:\\u001b\\[|\\u009b)[\\u0030-\\u003f]*[\\u0020-\\u002f]*[\\u0040-\\u007e]?',
    // OSC ends at BEL or ST; DCS/SOS/PM/APC at ST (ESC \\ or 0x9c), before another ESC, or at the end.
    '(?:\\u001b\\]|\\u009d)[^\\u0007\\u009c\\u001b]*(?:\\u0007|\\u009c|\\u001b\\\\|(?=\\u001b)|$)',
    '(?:\\u001b[PX^_]|[\\u0090\\u0098\\u009e\\u009f])[^\\u009c\\u001b]*(?:\\u009c|\\u001b\\\\|(?=\\u001b)|$)',
    // Other ESC sequences: intermediates 0x20–0x2f then one final byte 0x30–0x7e; or a lone ESC.
    '\\u001b[\\u0020-\\u002f]*[\\u0030-\\u007e]?',
    '\\r\\n?',
    '[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f]',
  ].join('|'),
  'g',
);

export function terminalSafe(text: string): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(SEQUENCE, (match) => (match[0] === '\r' ? '\n' : ''));
}

/** `terminalSafe` over every string inside a JSON-like value (a tool call's input), keeping its shape. */
export function terminalSafeDeep(value: unknown): unknown {
  if (typeof value === 'string') return terminalSafe(value);
  if (Array.isArray(value)) return value.map(terminalSafeDeep);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[terminalSafe(key)] = terminalSafeDeep(inner);
    return out;
  }
  return value;
}
