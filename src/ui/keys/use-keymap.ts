// Binds a Keymap to Ink input. Returns whether a leader chord is pending so the app can
// make the prompt inactive and the second key of `<leader>X` never reaches the editor.

import { useEffect, useRef, useState } from 'react';
import { useInput } from 'ink';
import type { Keymap, KeymapAction } from './keymap.js';
import { LEADER_TIMEOUT_MS } from './keymap.js';

export interface UseKeymapOptions {
  isActive?: boolean;
  /** Injectable clock for tests. */
  now?: () => number;
  /** How long the pending flag stays up; match the keymap's own timeout. */
  timeoutMs?: number;
}

export interface KeymapState {
  /** A leader chord was pressed and the next key belongs to the keymap. */
  pending: boolean;
}

export function useKeymap(
  keymap: Keymap,
  onAction: (action: KeymapAction) => void,
  options: UseKeymapOptions = {},
): KeymapState {
  const { isActive = true, now = Date.now, timeoutMs = LEADER_TIMEOUT_MS } = options;
  const [pending, setPending] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => () => clearTimeout(timer.current), []);
  useEffect(() => {
    if (!isActive) {
      keymap.reset();
      setPending(false);
    }
  }, [isActive, keymap]);

  useInput(
    (input, key) => {
      const at = now();
      const action = keymap.handle(input, key, at);
      const isPending = keymap.isPending(at);
      setPending(isPending);
      clearTimeout(timer.current);
      // The keymap times out lazily; the timer only takes the flag down so the prompt
      // becomes active again without waiting for another key.
      if (isPending) timer.current = setTimeout(() => setPending(false), timeoutMs);
      if (action) onAction(action);
    },
    { isActive },
  );

  return { pending };
}
