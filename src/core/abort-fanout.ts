// One `abort` listener per signal, however many parties wait on it.
//
// Contract: `onAbort(signal, callback)` runs `callback` once when `signal` aborts (at once when
// it already has) and returns a function that unsubscribes it. However many callbacks wait on
// one signal, the signal itself carries a single listener, added with the first callback and
// removed with the last. A turn that starts 40 sub-agents links each child to the parent's
// signal: one listener each would pass Node's limit of 10 per EventTarget and print a
// MaxListenersExceededWarning, though nothing leaks. `untilAborted(work, signal)` waits for
// `work` or the abort, whichever comes first, through the same single listener.
type Waiters = Set<() => void>;

const waitersBySignal = new WeakMap<AbortSignal, { waiters: Waiters; listener: () => void }>();

export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  if (signal.aborted) {
    callback();
    return () => {};
  }
  let entry = waitersBySignal.get(signal);
  if (!entry) {
    const waiters: Waiters = new Set();
    const listener = () => {
      waitersBySignal.delete(signal);
      for (const waiter of [...waiters]) waiter();
    };
    entry = { waiters, listener };
    waitersBySignal.set(signal, entry);
    signal.addEventListener('abort', listener, { once: true });
  }
  const { waiters, listener } = entry;
  // A wrapper of its own, so the same callback subscribed twice is two subscriptions.
  const waiter = () => callback();
  waiters.add(waiter);
  return () => {
    if (!waiters.delete(waiter) || waiters.size > 0) return;
    if (waitersBySignal.get(signal)?.waiters === waiters) waitersBySignal.delete(signal);
    signal.removeEventListener('abort', listener);
  };
}

/** Resolves when `work` does or `signal` aborts, whichever is first (rejects if `work` does first); `work` goes on either way. */
export function untilAborted(work: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const stop = onAbort(signal, resolve);
    work.then(
      () => {
        stop();
        resolve();
      },
      (err: unknown) => {
        stop();
        reject(err);
      },
    );
  });
}
