// Which characters the bundle's text shims (src/shims/) may handle without ICU. Computed at
// build time from the real implementations, so the fast paths give exactly their answers.

/** Blocks a terminal UI draws from: Latin-1 and Latin Extended, punctuation, currency, letterlike, arrows, maths, technical, box drawing, blocks, shapes, symbols, dingbats, braille. */
const CANDIDATE_BLOCKS = [
  [0x00a0, 0x024f],
  [0x2010, 0x205e],
  [0x20a0, 0x20c0],
  [0x2100, 0x23ff],
  [0x2500, 0x27bf],
  [0x2800, 0x28ff],
];

// Never candidates: marks, controls, format and unassigned characters, separators, default
// ignorables, emoji and pictographs, regional indicators and Hangul (all of which join or
// may join their neighbours into one cluster, or have emoji widths).
const EXCLUDED = /[\p{M}\p{C}\p{Z}\p{Default_Ignorable_Code_Point}\p{Extended_Pictographic}\p{Emoji_Presentation}\p{Regional_Indicator}\p{Script=Hangul}]/u;

// Neighbours a candidate is tried against: printable ASCII, a control, and itself.
const PROBES = ['a', ' ', '~', '\u001B', '\t'];

function toClass(codePoints) {
  const hex = (n) => `\\u${n.toString(16).padStart(4, '0')}`;
  const ranges = [];
  for (const cp of codePoints) {
    const last = ranges.at(-1);
    if (last && last[1] === cp - 1) last[1] = cp;
    else ranges.push([cp, cp]);
  }
  return ranges.map(([a, b]) => (a === b ? hex(a) : `${hex(a)}-${hex(b)}`)).join('');
}

/**
 * Code points (BMP, outside ASCII) that `Segmenter` always keeps as a grapheme cluster of
 * their own: none of them extends, prepends or joins, so breaks fall around each.
 */
export function simpleGraphemeCodePoints(Segmenter = Intl.Segmenter) {
  const segmenter = new Segmenter();
  const count = (s) => [...segmenter.segment(s)].length;
  const out = [];
  for (const [lo, hi] of CANDIDATE_BLOCKS) {
    for (let cp = lo; cp <= hi; cp++) {
      const c = String.fromCodePoint(cp);
      if (EXCLUDED.test(c)) continue;
      if (count(`${c}${c}${c}`) !== 3) continue;
      if (PROBES.some((p) => count(`${p}${c}`) !== 2 || count(`${c}${p}`) !== 2)) continue;
      out.push(cp);
    }
  }
  // ASCII (but CR, which joins a following LF) must split into single characters too.
  const ascii = Array.from({ length: 0x7f }, (_, i) => String.fromCharCode(i + 1)).filter((c) => c !== '\r').join('');
  if (count(ascii) !== ascii.length) throw new Error('Intl.Segmenter does not split ASCII into single characters');
  return out;
}

/** The segmenter shim's pattern: whole strings of ASCII but CR, and the given code points. */
export function simpleGraphemePattern(codePoints) {
  return `^[\\u0000-\\u000c\\u000e-\\u007f${toClass(codePoints)}]*$`;
}

/**
 * The string-width shim's pattern for one version of the real function: whole strings of
 * printable ASCII and those of `codePoints` it measures as one column, alone and beside
 * other characters.
 */
export function narrowPattern(stringWidth, codePoints) {
  const narrow = codePoints.filter((cp) => {
    const c = String.fromCodePoint(cp);
    return stringWidth(c) === 1 && stringWidth(`a${c}`) === 2 && stringWidth(`${c}${c}`) === 2 && stringWidth(`\u001B[31m${c}\u001B[39m`) === 1;
  });
  return `^[\\u0020-\\u007e${toClass(narrow)}]*$`;
}
