// A tiny observable holder for UiState: the engine's event listener dispatches into it and
// the frame scheduler reads from it. No React here.
//
// Events are queued and folded in when the state is next read, all of them in one
// copy-on-write step (reduceAll): ten sub-agents streaming deliver hundreds of deltas
// between two frames, and copying the state's maps and lists once per frame instead of
// once per delta is most of what the reducer costs. Readers never see a stale state:
// getState() applies whatever is queued first.

import type { Message } from '../../core/messages.js';
import { createUiState } from './draft.js';
import { loadHistory } from './history.js';
import { reduceAll, type UiInput } from './reducer.js';
import type { SessionMeta, UiState } from './types.js';

export interface UiStore {
  getState(): UiState;
  dispatch(input: UiInput): void;
  loadHistory(sessionId: string, messages: Message[], meta: SessionMeta, undone?: readonly boolean[]): void;
  /**
   * Called synchronously when the state may have changed: once for the first input queued
   * after a read, not again until getState() is called. Use a FrameScheduler in front of React.
   */
  subscribe(listener: () => void): () => void;
}

export function createUiStore(initial: UiState = createUiState()): UiStore {
  let state = initial;
  let queued: UiInput[] = [];
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  const apply = (): UiState => {
    if (queued.length > 0) {
      const batch = queued;
      queued = [];
      state = reduceAll(state, batch);
    }
    return state;
  };
  return {
    getState: apply,
    dispatch(input) {
      queued.push(input);
      if (queued.length === 1) notify();
    },
    loadHistory(sessionId, messages, meta, undone) {
      const before = apply();
      state = loadHistory(before, sessionId, messages, meta, undone);
      if (state !== before) notify();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
