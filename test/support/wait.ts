// The one polling helper for tests: waits until a probe yields a value, with a deadline and
// a message naming what was awaited (plus, optionally, the last thing seen: a frame, a screen).
// Tests wait on state this way instead of sleeping for a guessed time.

export interface WaitOptions {
  timeoutMs?: number;
  /** Pause between probes. */
  intervalMs?: number;
  /** Appended to the timeout error: the last screen or frame, for the failure report. */
  last?: () => string;
}

/**
 * Calls `probe` until it returns something other than `undefined`, `null` or `false`, and
 * returns that; throws `Timed out waiting for <what>` once `timeoutMs` has passed.
 */
export async function waitFor<T>(probe: () => T | undefined | null | false, what: string, options: WaitOptions = {}): Promise<T> {
  const { timeoutMs = 5000, intervalMs = 20, last } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) {
      const seen = last?.();
      throw new Error(`Timed out waiting for ${what}${seen ? `. Last seen:\n${seen}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Waits until `read()` satisfies `predicate` and returns what it read (a screen, a frame). */
export async function waitForText(read: () => string, predicate: (text: string) => boolean, what: string, options: WaitOptions = {}): Promise<string> {
  return waitFor(() => {
    const text = read();
    return predicate(text) ? text : undefined;
  }, what, { last: read, ...options });
}
