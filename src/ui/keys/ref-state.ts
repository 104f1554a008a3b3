// State that key handlers read synchronously. Ink may deliver several key events before
// React re-renders (a paste, `down` + `Enter` in one chunk); a plain useState closure would
// see stale state for all but the first, so the truth lives in a ref and renders follow it.

import { useCallback, useReducer, useRef } from 'react';

export function useRefState<T>(initial: T | (() => T)): [() => T, (next: T | ((prev: T) => T)) => void] {
  const ref = useRef<{ value: T } | undefined>(undefined);
  if (ref.current === undefined) {
    ref.current = { value: typeof initial === 'function' ? (initial as () => T)() : initial };
  }
  const [, bump] = useReducer((n: number) => n + 1, 0);
  const get = useCallback(() => (ref.current as { value: T }).value, []);
  const set = useCallback((next: T | ((prev: T) => T)) => {
    const box = ref.current as { value: T };
    const value = typeof next === 'function' ? (next as (prev: T) => T)(box.value) : next;
    if (Object.is(value, box.value)) return;
    box.value = value;
    bump();
  }, []);
  return [get, set];
}
