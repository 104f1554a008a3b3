// The single owner of raw key input. Pastes are told from keys by their bracketed-paste
// markers and several keys read at once ("\u0018l", "blue\r") are split into one key each
// (see key-stream.ts). The keymap sees every key first; a key it consumes
// (the leader chord, the key completing `<leader>X`, or one swallowed after the leader)
// never reaches components. Components then see it in two layers: shortcut handlers (keys
// that act on the screen, such as Ctrl+B) first, then the others (the prompt's editor). A
// handler that returns true has consumed the key: no handler after it sees it, so one key
// never does two things. Routing is synchronous: Ink may deliver several keys before React
// runs effects, so subscriptions and `isActive` are read through refs, not effects.
// A key whose effect shows up only later (a y/n question opened once the core has answered,
// a view that takes the keys once it has rendered) holds the keys behind it (`useHoldKeys`,
// or an `onAction` that returns a promise): they wait, in order, until that work has settled
// and the screen has drawn its outcome, then are routed as if typed one by one — so `uy`
// arriving in one write answers the question `u` opens.

import { createContext, useContext, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState, type ReactNode } from 'react';
import { useInput, useStdin } from 'ink';
import type { Keymap, KeymapAction } from './keymap.js';
import { LEADER_TIMEOUT_MS } from './keymap.js';
import { createKeyStream, type InputKey, type KeyStream } from './key-stream.js';

/** Returns true when it consumed the key (later handlers do not see it); anything else passes it on. */
export type KeyHandler = (input: string, key: InputKey) => boolean | void;

/**
 * Holds every key after the current one until `until` settles (a resolved promise: until
 * the screen has drawn what this key changed), then routes them in order.
 */
export type HoldKeys = (until: PromiseLike<unknown>) => void;

/** Keys are never held longer than this: a core call that hangs must not take the keyboard. */
export const MAX_HOLD_MS = 5000;

/**
 * How long a paste may pause between chunks before it is taken as ended: a terminal that
 * drops the end marker must not leave every later key swallowed.
 */
export const PASTE_IDLE_MS = 1000;

/**
 * Ink's useInput, fed through a KeyStream: the handler gets single keys and whole pastes.
 * The raw chunk Ink parsed is caught by a listener placed before useInput's own, so the
 * two always describe the same read.
 */
function useKeyStream(handler: KeyHandler, isActive: boolean): void {
  const { internal_eventEmitter: emitter } = useStdin();
  const raw = useRef<string | undefined>(undefined);
  const stream = useRef<KeyStream | undefined>(undefined);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const handlerRef = useRef(handler);
  handlerRef.current = handler;
  useEffect(() => {
    if (!isActive) return;
    const onRaw = (data: unknown): void => {
      raw.current = typeof data === 'string' ? data : undefined;
    };
    emitter.prependListener('input', onRaw);
    return () => {
      emitter.removeListener('input', onRaw);
    };
  }, [emitter, isActive]);
  useEffect(() => () => clearTimeout(timer.current), []);
  useInput(
    (input, key) => {
      const chunk = raw.current ?? input;
      raw.current = undefined;
      const s = (stream.current ??= createKeyStream());
      const events = s.feed(chunk, input, key);
      clearTimeout(timer.current);
      if (s.pasting) {
        timer.current = setTimeout(() => {
          for (const [one, k] of s.flush()) handlerRef.current(one, k);
        }, PASTE_IDLE_MS);
      }
      for (const [one, k] of events) handlerRef.current(one, k);
    },
    { isActive },
  );
}

interface Subscription {
  handler: { current: KeyHandler };
  active: { current: boolean };
  /** Sees keys before every non-shortcut handler. */
  shortcut: boolean;
}

interface Router {
  subscribe(sub: Subscription): () => void;
  pending: boolean;
  hold: HoldKeys;
}

const RouterContext = createContext<Router | undefined>(undefined);

export interface KeyRouterProps {
  keymap?: Keymap;
  /** A returned promise holds the keys behind the action's until it settles (see HoldKeys). */
  onAction?: (action: KeymapAction) => void | PromiseLike<unknown>;
  /** Injectable clock for tests. */
  now?: () => number;
  /** How long the pending flag stays up; match the keymap's own timeout. */
  timeoutMs?: number;
  /** False while the whole UI must ignore keys. */
  isActive?: boolean;
  children?: ReactNode;
}

export function KeyRouter({ keymap, onAction, now = Date.now, timeoutMs = LEADER_TIMEOUT_MS, isActive = true, children }: KeyRouterProps) {
  const subs = useRef(new Set<Subscription>());
  const [pending, setPending] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const held = useKeyHolding();

  const route = (input: string, key: InputKey): void => {
    if (keymap) {
      const at = now();
      const wasPending = keymap.isPending(at);
      const action = keymap.handle(input, key, at);
      const isPending = keymap.isPending(at);
      setPending(isPending);
      clearTimeout(timer.current);
      if (isPending) timer.current = setTimeout(() => setPending(false), timeoutMs);
      if (action) {
        const work = onAction?.(action);
        if (work) held.hold(work);
      }
      if (action || wasPending || isPending) return;
    }
    // Copy first: a handler may unmount a component (and unsubscribe) mid-dispatch.
    const all = [...subs.current];
    const ordered = [...all.filter((sub) => sub.shortcut), ...all.filter((sub) => !sub.shortcut)];
    for (const sub of ordered) {
      if (!sub.active.current || !subs.current.has(sub)) continue;
      if (sub.handler.current(input, key) === true) return;
    }
  };
  held.route.current = route;
  useKeyStream(held.take, isActive);

  const subscribe = useMemo(
    () => (sub: Subscription) => {
      subs.current.add(sub);
      return () => {
        subs.current.delete(sub);
      };
    },
    [],
  );
  const router = useMemo<Router>(() => ({ subscribe, pending, hold: held.hold }), [subscribe, pending, held.hold]);
  return <RouterContext.Provider value={router}>{children}</RouterContext.Provider>;
}

export interface UseKeysOptions {
  isActive?: boolean;
  /**
   * A screen-wide shortcut: it sees each key before the ordinary handlers (the prompt's
   * editor) and, by returning true, keeps it from them. Fixed for the component's life.
   */
  shortcut?: boolean;
}

/**
 * Like Ink's useInput, but under a KeyRouter the keymap filters keys first and a handler
 * may consume a key (see the file comment). Without a router (standalone use, component
 * tests) it reads keys and pastes itself.
 */
export function useKeys(handler: KeyHandler, options: UseKeysOptions = {}): void {
  const isActive = options.isActive ?? true;
  const shortcut = options.shortcut ?? false;
  const router = useContext(RouterContext);
  const handlerRef = useRef(handler);
  const activeRef = useRef(isActive);
  // Assigned during render so a key arriving before effects run sees the latest props.
  handlerRef.current = handler;
  activeRef.current = isActive;
  const hasRouter = router !== undefined;
  const subscribe = router?.subscribe;
  // A layout effect: it runs as the component is committed, so a panel opened by one key
  // hears the very next one (a passive effect may wait for some later render).
  useLayoutEffect(() => {
    if (!subscribe) return;
    return subscribe({ handler: handlerRef, active: activeRef, shortcut });
  }, [subscribe, shortcut]);
  useKeyStream((input, key) => void handlerRef.current(input, key), isActive && !hasRouter);
}

interface KeyHolding {
  /** Where keys go when nothing holds them (the router's `route`, set every render). */
  route: { current: KeyHandler };
  /** Takes each key from the stream: routed now, or queued behind a hold. */
  take: KeyHandler;
  hold: HoldKeys;
  /** Called on each commit of the router's own replay state: the next queued key may go. */
  committed: () => void;
}

/**
 * The queue of keys waiting behind holds, and the holds themselves. Once nothing holds them,
 * queued keys are routed one at a time, each only after React has committed what the one
 * before changed (a closed question, an opened view): as if typed one by one. "Committed" is
 * observed, not guessed: the router bumps a state of its own along with the key and routes
 * the next one from the layout effect of that render (updates made outside React's event
 * batching render together, so that commit carries the key's changes too).
 */
function useKeyHolding(): KeyHolding {
  const route = useRef<KeyHandler>(() => {});
  const [commits, bump] = useReducer((n: number) => n + 1, 0);
  const state = useRef({ holds: 0, queue: [] as [string, InputKey][], awaitingCommit: false, cancels: new Set<() => void>(), closed: false });
  useEffect(() => {
    const s = state.current;
    s.closed = false;
    return () => {
      // Work settling after the screen is gone has no keys to hand over.
      s.closed = true;
      for (const cancel of s.cancels) cancel();
      s.cancels.clear();
      s.queue.length = 0;
    };
  }, []);
  const holding = useMemo<KeyHolding>(() => {
    const s = state.current;
    /** Runs `fn` on a later turn of the event loop, unless the router is gone. */
    const later = (fn: () => void, ms?: number): void => {
      if (s.closed) return;
      const run = (): void => {
        s.cancels.delete(cancel);
        fn();
      };
      let cancel: () => void;
      if (ms === undefined) {
        const t = setImmediate(run);
        cancel = () => clearImmediate(t);
      } else {
        const t = setTimeout(run, ms);
        cancel = () => clearTimeout(t);
      }
      s.cancels.add(cancel);
    };
    /** Asks for a commit; the next queued key is routed once it is on screen. */
    const pump = (): void => {
      if (s.holds > 0 || s.awaitingCommit || s.queue.length === 0 || s.closed) return;
      s.awaitingCommit = true;
      bump();
    };
    const committed = (): void => {
      if (!s.awaitingCommit) return;
      // Not from the layout effect itself: a long queue would nest updates past React's limit.
      later(() => {
        s.awaitingCommit = false;
        // A replayed key may hold again: the rest then waits for that one.
        if (s.holds > 0) return;
        const next = s.queue.shift();
        if (next) route.current(next[0], next[1]);
        pump();
      });
    };
    const hold: HoldKeys = (until) => {
      s.holds++;
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        s.holds--;
        pump();
      };
      until.then(release, release);
      later(release, MAX_HOLD_MS);
    };
    const take: KeyHandler = (input, key) => {
      // Behind held or still queued keys: in turn, never ahead of them.
      if (s.holds > 0 || s.queue.length > 0 || s.awaitingCommit) {
        s.queue.push([input, key]);
        pump();
      } else route.current(input, key);
    };
    return { route, take, hold, committed };
  }, []);
  useLayoutEffect(() => holding.committed(), [commits, holding]);
  return holding;
}

/**
 * Lets a key handler hold the keys behind the current one until its work has settled (see
 * HoldKeys). Without a router keys are not held.
 */
export function useHoldKeys(): HoldKeys {
  return useContext(RouterContext)?.hold ?? ignoreHold;
}

const ignoreHold: HoldKeys = () => {};

/** True while a leader chord waits for its second key (for a "ctrl+x …" hint). */
export function useLeaderPending(): boolean {
  return useContext(RouterContext)?.pending ?? false;
}
