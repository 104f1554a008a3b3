// Finds where a streaming markdown text can be cut so the prefix renders the same on its
// own as it would inside the whole: after a blank line, outside any code fence, before a
// line that starts a new top-level block. Used to move finished prose into <Static>.

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * The offset of the last safe cut in `text` after `from`, or null. `from` must itself
 * be a cut (or 0), so the scan starts outside any fence.
 */
export function findSafeCut(text: string, from = 0): number | null {
  let fence: string | null = null;
  let best: number | null = null;
  let pos = from;
  let prevBlank = false;
  while (pos < text.length) {
    const nl = text.indexOf('\n', pos);
    const complete = nl !== -1;
    const end = complete ? nl : text.length;
    const line = text.slice(pos, end);
    const blank = line.trim() === '';

    // A cut goes before this line: it must start a top-level block (no indent, so it is
    // not a list continuation or an indented code block once parsed alone).
    if (fence === null && prevBlank && !blank && /^\S/.test(line) && pos > from) best = pos;

    const m = FENCE.exec(line);
    if (m) {
      const marker = m[1] ?? '';
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
    }
    if (!complete) break;
    prevBlank = blank && fence === null;
    pos = nl + 1;
  }
  return best;
}

/** Counts lines without allocating an array: this runs on every streamed delta. */
export function countLines(text: string, from = 0): number {
  let n = 1;
  for (let i = text.indexOf('\n', from); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
