// Whether the terminal window has focus, from xterm's focus reports. Contract: launch.tsx turns
// reporting on (`FOCUS_REPORTING_ON`) and off at exit; `useTerminalFocus` reads the raw input
// for `ESC[I` / `ESC[O` and keeps the answer in a ref: undefined until the terminal has said
// anything (many never do). The key stream drops these sequences, so they never become text.
import { useEffect, useRef, type RefObject } from 'react';
import { useStdin } from 'ink';

export const FOCUS_REPORTING_ON = '\u001B[?1004h';
export const FOCUS_REPORTING_OFF = '\u001B[?1004l';
export const FOCUS_IN = '\u001B[I';
export const FOCUS_OUT = '\u001B[O';

/** The last focus change a raw chunk reports, if any (a chunk may carry several). */
export function focusReport(raw: string): boolean | undefined {
  const lastIn = raw.lastIndexOf(FOCUS_IN);
  const lastOut = raw.lastIndexOf(FOCUS_OUT);
  if (lastIn === -1 && lastOut === -1) return undefined;
  return lastIn > lastOut;
}

export function useTerminalFocus(): RefObject<boolean | undefined> {
  const { internal_eventEmitter: emitter } = useStdin();
  const focused = useRef<boolean | undefined>(undefined);
  useEffect(() => {
    const onRaw = (data: unknown): void => {
      if (typeof data !== 'string') return;
      const report = focusReport(data);
      if (report !== undefined) focused.current = report;
    };
    emitter.prependListener('input', onRaw);
    return () => {
      emitter.removeListener('input', onRaw);
    };
  }, [emitter]);
  return focused;
}
