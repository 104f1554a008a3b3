// Stands in for the `string-width` package inside the bundles (scripts/grapheme-plugins.mjs).
// Ink measures every line it draws with it; the real module builds an RGI-emoji regular
// expression and a grapheme segmenter, ~20 ms before the first frame (much more when the
// bundle comes from V8's code cache, which compiles the emoji expression eagerly). Text made
// only of printable ASCII and characters the build checked to be one column wide and a
// grapheme cluster of their own is as wide as it is long; anything else goes to the real
// module, loaded on first use.

export interface StringWidthOptions {
  ambiguousIsNarrow?: boolean;
  countAnsiEscapeCodes?: boolean;
}

export type StringWidth = (input: string, options?: StringWidthOptions) => number;

/** True when the options are the defaults the fast path assumes. */
function defaultOptions(options: unknown): boolean {
  if (options === undefined) return true;
  if (typeof options !== 'object' || options === null) return false;
  const { ambiguousIsNarrow, countAnsiEscapeCodes } = options as StringWidthOptions;
  return (ambiguousIsNarrow === undefined || ambiguousIsNarrow === true) && (countAnsiEscapeCodes === undefined || countAnsiEscapeCodes === false);
}

/**
 * `narrow` matches whole strings of one-column, single-cluster characters. ANSI codes are
 * stripped first when the string has an ESC or CSI, as every string-width version does.
 */
export function fastStringWidth(loadReal: () => StringWidth, stripAnsi: (s: string) => string, narrow: RegExp): StringWidth {
  let real: StringWidth | undefined;
  return function stringWidth(input, options) {
    if (typeof input === 'string' && defaultOptions(options)) {
      const plain = input.includes('\u001B') || input.includes('\u009B') ? stripAnsi(input) : input;
      if (narrow.test(plain)) return plain.length;
    }
    real ??= loadReal();
    return real(input, options);
  };
}
