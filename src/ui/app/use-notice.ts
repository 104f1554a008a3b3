// The app's one-line notice (under the transcript), which goes as soon as what it says stops
// being true: a notice may carry a deadline (a key's time window), a condition on the UI state
// (the sub-agents it names are still running), or a promise whose settling ends it (a message
// the child has now read). A plain notice stays until the next prompt or notice, as before.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { UiState } from '../state/types.js';

export interface NoticeLife {
  /** Milliseconds after which the notice goes. */
  forMs?: number;
  /** The notice goes once this is false of the UI state. */
  holds?: (state: UiState) => boolean;
  /** The notice goes once this settles (fulfilled or rejected). */
  until?: Promise<unknown>;
}

interface Shown extends NoticeLife {
  text: string;
  serial: number;
}

export interface NoticeControl {
  notice: string | undefined;
  /** Shows `text` (or clears the notice when undefined) with an optional end of its truth. */
  setNotice: (text: string | undefined, life?: NoticeLife) => void;
}

/**
 * `state` is the UI state the app renders from: each new one is checked against the shown
 * notice's `holds`. Timers and promises end only the notice that set them (a newer notice
 * is not taken down by an older one's end).
 */
export function useNotice(state: UiState): NoticeControl {
  const [shown, setShown] = useState<Shown>();
  const serial = useRef(0);

  const setNotice = useCallback((text: string | undefined, life: NoticeLife = {}) => {
    serial.current += 1;
    setShown(text === undefined ? undefined : { ...life, text, serial: serial.current });
  }, []);

  const clearIfStill = useCallback((which: number) => setShown((s) => (s?.serial === which ? undefined : s)), []);

  useEffect(() => {
    if (!shown) return;
    const which = shown.serial;
    let live = true;
    const timer = shown.forMs !== undefined ? setTimeout(() => clearIfStill(which), shown.forMs) : undefined;
    const end = () => {
      if (live) clearIfStill(which);
    };
    shown.until?.then(end, end);
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [shown, clearIfStill]);

  const holds = shown?.holds;
  const stale = holds !== undefined && !holds(state);
  useEffect(() => {
    if (stale && shown) clearIfStill(shown.serial);
  }, [stale, shown, clearIfStill]);

  return { notice: stale ? undefined : shown?.text, setNotice };
}
