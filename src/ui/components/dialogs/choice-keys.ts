// The digit shortcuts both dialogs share: 1-9 pick the Nth option, so the same key does
// the same thing whether an agent asks a question or asks for permission.

/** "1-3": the digits that pick an option, as in the approval dialog (at most 1-9). */
export function digitRange(count: number): string {
  const last = Math.min(9, count);
  return last <= 1 ? '1' : `1-${last}`;
}

/**
 * The option a digit key picks (1-based, up to 9), in both dialogs; undefined when the
 * key is not such a digit.
 */
export function digitChoice(input: string, key: { ctrl?: boolean; meta?: boolean; paste?: boolean }, count: number): number | undefined {
  if (key.ctrl || key.meta || key.paste || !/^[1-9]$/.test(input)) return undefined;
  const n = Number(input);
  return n <= count ? n - 1 : undefined;
}
