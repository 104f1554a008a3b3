// A tiny observable holder for UiState: the engine's event listener dispatches into it and
// the frame scheduler reads from it. No React here.

import type { Message } from '../../core/messages.js';
import { createUiState } from './draft.js';
import { loadHistory } from './history.js';
import { reduce, type UiInput } from './reducer.js';
import type { SessionMeta, UiState } from './types.js';

export interface UiStore {
  getState(): UiState;
  dispatch(input: UiInput): void;
  loadHistory(sessionId: string, messages: Message[], meta: SessionMeta): void;
  /** Called synchronously after every change; use a FrameScheduler in front of React. */
  subscribe(listener: () => void): () => void;
}

export function createUiStore(initial: UiState = createUiState()): UiStore {
  let state = initial;
  const listeners = new Set<() => void>();
  const set = (next: UiState) => {
    if (next === state) return;
    state = next;
    for (const listener of [...listeners]) listener();
  };
  return {
    getState: () => state,
    dispatch: (input) => set(reduce(state, input)),
    loadHistory: (sessionId, messages, meta) => set(loadHistory(state, sessionId, messages, meta)),
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
