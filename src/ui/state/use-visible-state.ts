// A frame's state, but only when something the viewed session's screen shows has changed.
// Text streaming inside a sub-agent changes the store on every delta, yet its block in the
// parent's view shows only status, tool calls and totals: re-rendering for each of those
// frames would redraw the whole live region for nothing.
import { useRef, useSyncExternalStore } from 'react';
import type { FrameScheduler } from './frame-scheduler.js';
import { descendantsOf } from './selectors.js';
import type { UiState } from './types.js';

/** Values whose change means the view must be redrawn. */
export function visibleKey(state: UiState, viewId: string): unknown[] {
  // Not the session node itself: it is replaced whenever anything in its subtree changes.
  const view = state.sessions[viewId];
  const key: unknown[] = [
    state.items[viewId],
    view?.status,
    view?.title,
    view?.agent,
    view?.usage,
    view?.turnUsage,
    view?.cost,
    view?.thinking,
    state.questions,
    state.permissions,
    state.roots.length,
  ];
  for (const d of descendantsOf(state, viewId)) {
    const items = state.items[d.id] ?? [];
    let tools = 0;
    let last: unknown;
    for (const item of items) {
      if (item.kind !== 'tool') continue;
      tools++;
      last = item;
    }
    key.push(d.status, d.turnUsage, d.usage, d.cost, tools, last, d.thinking);
  }
  return key;
}

function sameKey(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
}

export function useVisibleState(frames: FrameScheduler<UiState>, viewId: string): UiState {
  const cache = useRef<{ viewId: string; key: unknown[]; state: UiState } | undefined>(undefined);
  const get = (): UiState => {
    const state = frames.getSnapshot();
    const current = cache.current;
    if (current && current.state === state) return state;
    const key = visibleKey(state, viewId);
    if (current && current.viewId === viewId && sameKey(current.key, key)) return current.state;
    cache.current = { viewId, key, state };
    return state;
  };
  return useSyncExternalStore(frames.subscribe, get, get);
}
