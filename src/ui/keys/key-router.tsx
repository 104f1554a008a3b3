// The single owner of raw key input. Pastes are told from keys by their bracketed-paste
// markers and several keys read at once ("\u0018l", "blue\r") are split into one key each
// (see key-stream.ts). The keymap sees every key first; a key it consumes
// (the leader chord, the key completing `<leader>X`, or one swallowed after the leader)
// never reaches components. Components then see it in two layers: shortcut handlers (keys
// that act on the screen, such as Ctrl+B) first, then the others (the prompt's editor). A
// handler that returns true has consumed the key: no handler after it sees it, so one key
// never does two things. Routing is synchronous: Ink may deliver several keys before React
// runs effects, so subscriptions and `isActive` are read through refs, not effects.

import { createContext, useContext, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useInput, useStdin } from 'ink';
import type { Keymap, KeymapAction } from './keymap.js';
import { LEADER_TIMEOUT_MS } from './keymap.js';
import { createKeyStream, type InputKey, type KeyStream } from './key-stream.js';

/** Returns true when it consumed the key (later handlers do not see it); anything else passes it on. */
export type KeyHandler = (input: string, key: InputKey) => boolean | void;

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
}

const RouterContext = createContext<Router | undefined>(undefined);

export interface KeyRouterProps {
  keymap?: Keymap;
  onAction?: (action: KeymapAction) => void;
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

  const route = (input: string, key: InputKey): void => {
    if (keymap) {
      const at = now();
      const wasPending = keymap.isPending(at);
      const action = keymap.handle(input, key, at);
      const isPending = keymap.isPending(at);
      setPending(isPending);
      clearTimeout(timer.current);
      if (isPending) timer.current = setTimeout(() => setPending(false), timeoutMs);
      if (action) onAction?.(action);
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
  useKeyStream(route, isActive);

  const subscribe = useMemo(
    () => (sub: Subscription) => {
      subs.current.add(sub);
      return () => {
        subs.current.delete(sub);
      };
    },
    [],
  );
  const router = useMemo<Router>(() => ({ subscribe, pending }), [subscribe, pending]);
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

/** True while a leader chord waits for its second key (for a "ctrl+x …" hint). */
export function useLeaderPending(): boolean {
  return useContext(RouterContext)?.pending ?? false;
}
