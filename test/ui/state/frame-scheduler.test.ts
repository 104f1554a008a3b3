import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createUiStore, FrameScheduler, type UiState } from '../../../src/ui/state/index.js';
import { ev } from './fixtures.js';

describe('FrameScheduler', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const setup = () => {
    const store = createUiStore();
    const frames = new FrameScheduler<UiState>(store, 33, () => Date.now());
    const listener = vi.fn();
    frames.subscribe(listener);
    store.dispatch(ev('session.created', 's', ['s'], 'build', { parent_id: null, title: 't', tool_call_id: null, task_description: null, depth: 0 }));
    return { store, frames, listener };
  };
  const delta = (text: string) => ev('text.delta', 's', ['s'], 'build', { text });

  it('coalesces a burst of deltas into one notification with the latest state', () => {
    const { store, frames, listener } = setup();
    for (let i = 0; i < 100; i++) store.dispatch(delta('x'));
    expect(listener).not.toHaveBeenCalled();
    vi.advanceTimersByTime(0);
    expect(listener).toHaveBeenCalledTimes(1);
    expect(frames.getSnapshot()).toBe(store.getState());
  });

  it('notifies at most once per 33 ms under a steady stream, with a trailing notify', () => {
    const { store, listener } = setup();
    // 10 streams × one delta per ms for one second.
    for (let ms = 0; ms < 1000; ms++) {
      for (let s = 0; s < 10; s++) store.dispatch(delta('y'));
      vi.advanceTimersByTime(1);
    }
    const during = listener.mock.calls.length;
    expect(during).toBeLessThanOrEqual(31);
    expect(during).toBeGreaterThanOrEqual(25);
    store.dispatch(delta('last'));
    vi.advanceTimersByTime(33);
    expect(listener.mock.calls.length).toBe(during + 1);
  });

  it('holds the snapshot still between frames and stops after dispose', () => {
    const { store, frames, listener } = setup();
    vi.advanceTimersByTime(0);
    const shown = frames.getSnapshot();
    store.dispatch(delta('z'));
    expect(frames.getSnapshot()).toBe(shown);
    frames.dispose();
    vi.advanceTimersByTime(100);
    expect(listener).toHaveBeenCalledTimes(1);
  });
});
