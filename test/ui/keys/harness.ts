// Shared helpers for driving Ink components through ink-testing-library: key sequences
// and deadline-based waits (stdin.write is delivered asynchronously, renders follow).
import { waitFor as sharedWaitFor } from '../../support/wait.js';

export const KEY = {
  up: '\u001B[A',
  down: '\u001B[B',
  right: '\u001B[C',
  left: '\u001B[D',
  home: '\u001B[H',
  end: '\u001B[F',
  enter: '\r',
  shiftEnter: '\u001B[13;2u',
  ctrlJ: '\n',
  escape: '\u001B',
  backspace: '\u007F',
  tab: '\t',
  shiftTab: '\u001B[Z',
  ctrlA: '\u0001',
  ctrlC: '\u0003',
  ctrlE: '\u0005',
  ctrlU: '\u0015',
  ctrlW: '\u0017',
  ctrlX: '\u0018',
} as const;

/** Lets effects (input subscriptions) and queued key events run. */
export function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until `predicate` holds, failing with the last value seen after the deadline. */
export async function waitFor(predicate: () => boolean, describe: () => string = () => '', timeoutMs = 2000): Promise<void> {
  await sharedWaitFor(predicate, 'the UI condition', { timeoutMs, intervalMs: 5, last: describe });
}

export async function waitForFrame(lastFrame: () => string | undefined, predicate: (frame: string) => boolean, timeoutMs = 2000): Promise<string> {
  await waitFor(() => predicate(lastFrame() ?? ''), () => JSON.stringify(lastFrame() ?? ''), timeoutMs);
  return lastFrame() ?? '';
}

/** Writes keys one event at a time, giving Ink a turn between them like a human typist. */
export async function press(stdin: { write(data: string): void }, ...keys: string[]): Promise<void> {
  for (const k of keys) {
    stdin.write(k);
    // A lone Escape is flushed by Ink on setImmediate; a short timer covers that and renders.
    await tick(k === KEY.escape ? 20 : 5);
  }
}
