// A frame's state, but only when something the viewed session's screen shows has changed.
// Text streaming inside a sub-agent changes the store on every delta, yet its block in the
// parent's view shows only status, tool calls and totals: re-rendering for each of those
// frames would redraw the whole live region for nothing.
//
// What a sub-agent block shows besides its status (its tool count, latest tool calls and
// token totals) is a summary that changes many times a second while ten children work.
// Those changes are drawn with the next tick of the screen's clock (the one that moves the
// spinners and elapsed times, every SUMMARY_MS) instead of on every frame: each frame is a
// full redraw of the live region, and summaries refreshed four times a second read the
// same. Everything else the view shows (its own transcript, dialogs, a child's status)
// is drawn on the next frame as before.
import { useCallback, useRef, useSyncExternalStore } from 'react';
import type { FrameScheduler } from './frame-scheduler.js';
import { descendantsOf, isTaskCall } from './selectors.js';
import type { UiState } from './types.js';

/** How stale a sub-agent block's summary may get; the app's clock ticks at this interval. */
export const SUMMARY_MS = 250;

/** Tool calls a block may list (TaskBlock's `latestTools` is at most this). */
const LATEST_TOOLS = 3;

/** Values whose change is drawn on the next frame. */
export function immediateKey(state: UiState, viewId: string): unknown[] {
  // Not the session node itself: it is replaced whenever anything in its subtree changes.
  const view = state.sessions[viewId];
  const items = state.items[viewId] ?? [];
  const key: unknown[] = [items.length];
  for (const item of items) {
    // A task call's progress metadata (tool count, latest tool) is summary; the rest is not.
    if (item.kind === 'tool' && isTaskCall(item)) {
      key.push(item.done, item.isError, item.output, item.childSessionId, item.input, item.task?.status);
    } else {
      key.push(item);
    }
  }
  key.push(
    view?.status,
    view?.title,
    view?.agent,
    view?.usage,
    view?.turnUsage,
    view?.cost,
    view?.turnCost,
    view?.thinking,
    view?.retry,
    state.questions,
    state.permissions,
    state.roots.length,
  );
  for (const d of descendantsOf(state, viewId)) {
    key.push(d.status, d.statusReason, d.awaitingRequest, d.startedAt, d.finishedAt, d.agent, d.description, d.retry, d.diffStat, d.changes, d.reverted);
  }
  return key;
}

/** What sub-agent blocks summarise: drawn at least every SUMMARY_MS while it changes. */
export function summaryKey(state: UiState, viewId: string): unknown[] {
  const key: unknown[] = [];
  for (const item of state.items[viewId] ?? []) if (isTaskCall(item)) key.push(item);
  for (const d of descendantsOf(state, viewId)) {
    const items = state.items[d.id] ?? [];
    let tools = 0;
    const latest: unknown[] = [];
    for (const item of items) {
      if (item.kind !== 'tool') continue;
      tools++;
      if (isTaskCall(item)) key.push(item);
      else {
        latest.push(item);
        if (latest.length > LATEST_TOOLS) latest.shift();
      }
    }
    key.push(d.turnUsage, d.usage, d.cost, d.turnCost, d.thinking, tools, ...latest);
  }
  return key;
}

/**
 * What the live sub-agents panel shows of the whole tree under `rootId` (see
 * screens/agents-panel.tsx): each session's state and its newest item, drawn with the clock.
 */
export function treeKey(state: UiState, rootId: string): unknown[] {
  const key: unknown[] = [];
  for (const d of descendantsOf(state, rootId)) {
    const items = state.items[d.id];
    key.push(d.status, d.statusReason, d.awaitingRequest, d.startedAt, d.thinking, items?.length, items?.[items.length - 1]);
  }
  return key;
}

/** Values whose change means the view must be redrawn, sooner or later. */
export function visibleKey(state: UiState, viewId: string): unknown[] {
  return [...immediateKey(state, viewId), ...summaryKey(state, viewId)];
}

function sameKey(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
}

interface Shown {
  viewId: string;
  /** The state drawn, and the keys it was drawn with. */
  state: UiState;
  immediate: unknown[];
  summary: unknown[];
  at: number;
  /** The latest frame's state, once looked at. */
  latest: UiState;
  /** The latest state differs from the drawn one only in summaries. */
  summaryPending: boolean;
}

/** `treeRoot`: the live sub-agents panel is on, and shows this root's whole tree. */
export function useVisibleState(frames: FrameScheduler<UiState>, viewId: string, now: () => number = Date.now, treeRoot?: string): UiState {
  const shown = useRef<Shown | undefined>(undefined);
  // True while the frame scheduler's notification asks React whether to re-render.
  const inFrameCheck = useRef(false);
  const listener = useRef<(() => void) | undefined>(undefined);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  // Turning the panel on or off is a new view: what it shows may have changed meanwhile.
  const shownAs = treeRoot === undefined ? viewId : `${viewId}\u0000${treeRoot}`;
  const get = (): UiState => {
    const state = frames.getSnapshot();
    const current = shown.current;
    const t = now();
    if (current && current.viewId === shownAs && current.latest === state) {
      // Nothing new from the scheduler; a render for another reason (the clock, a key)
      // shows pending summaries, a frame check only once the clock has missed its turn.
      if (!current.summaryPending || (inFrameCheck.current && t - current.at < 2 * SUMMARY_MS)) return current.state;
      return accept(state, current.immediate, current.summary, t);
    }
    const immediate = immediateKey(state, viewId);
    const summary = treeRoot === undefined ? summaryKey(state, viewId) : [...summaryKey(state, viewId), ...treeKey(state, treeRoot)];
    if (!current || current.viewId !== shownAs || !sameKey(current.immediate, immediate)) return accept(state, immediate, summary, t);
    if (sameKey(current.summary, summary)) {
      // Nothing visible changed: keep the drawn state so React skips the frame.
      current.latest = state;
      return current.state;
    }
    if (!inFrameCheck.current || t - current.at >= 2 * SUMMARY_MS) return accept(state, immediate, summary, t);
    current.latest = state;
    current.summary = summary;
    current.summaryPending = true;
    // The clock normally draws it within SUMMARY_MS; this covers a screen whose clock stopped.
    if (timer.current === undefined) armFallback();
    return current.state;
  };

  const armFallback = () => {
    const at = shown.current?.at ?? now();
    timer.current = setTimeout(
      () => {
        timer.current = undefined;
        const current = shown.current;
        if (!current?.summaryPending) return;
        // Drawn since by a clock tick or a key: wait for its turn again.
        if (now() - current.at < 2 * SUMMARY_MS) armFallback();
        else listener.current?.();
      },
      Math.max(0, 2 * SUMMARY_MS - (now() - at)),
    );
  };

  const accept = (state: UiState, immediate: unknown[], summary: unknown[], at: number): UiState => {
    shown.current = { viewId: shownAs, state, immediate, summary, at, latest: state, summaryPending: false };
    return state;
  };

  const subscribe = useCallback(
    (onChange: () => void) => {
      listener.current = onChange;
      const unsubscribe = frames.subscribe(() => {
        inFrameCheck.current = true;
        try {
          onChange();
        } finally {
          inFrameCheck.current = false;
        }
      });
      return () => {
        unsubscribe();
        listener.current = undefined;
        clearTimeout(timer.current);
        timer.current = undefined;
      };
    },
    [frames],
  );
  return useSyncExternalStore(subscribe, get, get);
}
