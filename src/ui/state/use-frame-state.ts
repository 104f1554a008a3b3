// React binding for a FrameScheduler: components re-render once per frame at most.

import { useSyncExternalStore } from 'react';
import type { FrameScheduler } from './frame-scheduler.js';

export function useFrameState<T>(frames: FrameScheduler<T>): T {
  return useSyncExternalStore(frames.subscribe, frames.getSnapshot, frames.getSnapshot);
}

/**
 * Re-renders only when the selected value changes (Object.is). The selector must return
 * a stored value or a primitive, not a fresh object, or React re-renders forever.
 */
export function useFrameSelector<T, R>(frames: FrameScheduler<T>, select: (state: T) => R): R {
  const get = () => select(frames.getSnapshot());
  return useSyncExternalStore(frames.subscribe, get, get);
}
