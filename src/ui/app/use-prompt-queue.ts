// The root session's prompt queue. Contract: at most one prompt (or compaction) runs from
// this screen at a time; prompts submitted meanwhile — or while the core is still running the
// root — wait in `queued` and are sent one by one, in order, as each job finishes. A turn
// stopped with Esc leaves INTERRUPTED in the transcript where it stopped; a failed prompt
// becomes a notice. Nothing is dropped: a failure still moves on to the next queued prompt.
import { useCallback, useMemo, useRef, useState } from 'react';
import { errorMessage } from '../../core/errors.js';
import type { UiCore } from '../core-api.js';
import type { UiStore } from '../state/index.js';

/** Left in the transcript where Esc stopped a turn. */
export const INTERRUPTED = 'Interrupted by user';

export interface PromptQueueOptions {
  core: UiCore;
  store: UiStore;
  rootId: string;
  /** The root's agent, named on the interruption line. */
  agent: string | undefined;
  onNotice: (text: string | undefined) => void;
}

export interface PromptQueue {
  /** Prompts waiting for the running job, oldest first. */
  queued: readonly string[];
  /** A prompt or compaction started here has not finished yet. */
  isBusy(): boolean;
  /** Sends `text` to the root now. */
  send(text: string): void;
  /** Sends now, or queues behind the running job. */
  submit(text: string): void;
  /** Runs another job (a compaction) as the busy one; queued prompts wait for it to finish. */
  runExclusive(job: () => Promise<void>): void;
}

export function usePromptQueue({ core, store, rootId, agent, onNotice }: PromptQueueOptions): PromptQueue {
  const [queued, setQueued] = useState<string[]>([]);
  const busy = useRef(false);

  // Frees the queue and sends the first waiting prompt through `sendNext`.
  const drain = useCallback((sendNext: (text: string) => void) => {
    busy.current = false;
    setQueued((q) => {
      const [first, ...rest] = q;
      if (first !== undefined) queueMicrotask(() => sendNext(first));
      return rest;
    });
  }, []);

  const send = useCallback(
    (text: string) => {
      busy.current = true;
      store.dispatch({ type: 'ui.user_message', session_id: rootId, text, ts: Date.now() });
      core
        .prompt(rootId, text)
        .then((outcome) => {
          // Esc stopped the turn: say so where it stopped, or the transcript just ends.
          if (outcome.status === 'cancelled') {
            store.dispatch({ type: 'error', session_id: rootId, agent: agent ?? '', path: [rootId], ts: Date.now(), message: INTERRUPTED });
          }
        })
        .catch((err: unknown) => onNotice(errorMessage(err)))
        .finally(() => drain(send));
    },
    [core, rootId, store, agent, onNotice, drain],
  );

  const submit = useCallback(
    (text: string) => {
      if (busy.current || core.isRunning(rootId)) setQueued((q) => [...q, text]);
      else send(text);
    },
    [core, rootId, send],
  );

  const runExclusive = useCallback(
    (job: () => Promise<void>) => {
      busy.current = true;
      job()
        .catch((err: unknown) => onNotice(errorMessage(err)))
        .finally(() => drain(send));
    },
    [drain, send, onNotice],
  );

  const isBusy = useCallback(() => busy.current, []);
  return useMemo(() => ({ queued, isBusy, send, submit, runExclusive }), [queued, isBusy, send, submit, runExclusive]);
}
