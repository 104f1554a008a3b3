// The root session's prompt queue. Contract: at most one prompt (or compaction, undo…) runs
// from this screen at a time; prompts submitted meanwhile — or while the core is still running
// the root — wait in `queued` and are sent one by one, in order, as each job finishes. Commands
// that need an idle session (`/compact`, `/undo`, `/redo`, `/rewind`) typed meanwhile wait in
// the same line, shown as typed, and run in their turn: a turn's answer is on screen a moment
// before the turn ends (its "after" snapshot is still being taken), and a command typed in that
// moment must not be refused. Esc (`dropCommands`) drops the waiting commands: they would act
// on a state the user just chose to stop. A turn stopped with Esc leaves INTERRUPTED in the
// transcript where it stopped; a failed prompt becomes a notice. Nothing else is dropped: a
// failure still moves on to the next queued entry.
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
  /** Prompts and commands waiting for the running job, oldest first, as typed. */
  queued: readonly string[];
  /** A prompt or another job started here has not finished yet. */
  isBusy(): boolean;
  /** Sends `text` to the root now. */
  send(text: string): void;
  /** Sends now, or queues behind the running job. */
  submit(text: string): void;
  /** Runs another job (a compaction) as the busy one; queued prompts wait for it to finish. */
  runExclusive(job: () => Promise<void>): void;
  /**
   * Runs `command` now when nothing runs, else queues it behind the running job and the
   * entries already waiting, shown as `typed`.
   */
  whenIdle(typed: string, command: () => void): void;
  /** Drops the waiting commands (Esc); answers what was dropped, as typed. */
  dropCommands(): string[];
}

type Entry = { kind: 'prompt'; text: string } | { kind: 'command'; typed: string; run: () => void };

const shown = (entry: Entry) => (entry.kind === 'prompt' ? entry.text : entry.typed);

export function usePromptQueue({ core, store, rootId, agent, onNotice }: PromptQueueOptions): PromptQueue {
  const [queued, setQueued] = useState<readonly string[]>([]);
  const waiting = useRef<Entry[]>([]);
  const busy = useRef(false);
  // `send` and the drain call each other; the ref breaks the cycle between their callbacks.
  const startNextRef = useRef<() => void>(() => {});

  const setWaiting = useCallback((entries: Entry[]) => {
    waiting.current = entries;
    setQueued(entries.map(shown));
  }, []);

  const enqueue = useCallback((entry: Entry) => setWaiting([...waiting.current, entry]), [setWaiting]);

  // A job ended: the next entries start, commands until one of them keeps the queue busy.
  const finished = useCallback(() => {
    busy.current = false;
    queueMicrotask(() => startNextRef.current());
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
        .finally(() => {
          // A prompt refused before any event (a bad command) must not stay live.
          store.dispatch({ type: 'ui.prompt_settled', session_id: rootId });
          finished();
        });
    },
    [core, rootId, store, agent, onNotice, finished],
  );

  startNextRef.current = () => {
    while (!busy.current) {
      const [first, ...rest] = waiting.current;
      if (!first) return;
      setWaiting(rest);
      if (first.kind === 'prompt') send(first.text);
      else first.run();
    }
  };

  // Between a job's end and the next entry's start lies only a microtask: nobody types in it.
  const mustWait = useCallback(() => busy.current || core.isRunning(rootId), [core, rootId]);

  const submit = useCallback(
    (text: string) => {
      if (mustWait()) enqueue({ kind: 'prompt', text });
      else send(text);
    },
    [mustWait, enqueue, send],
  );

  const runExclusive = useCallback(
    (job: () => Promise<void>) => {
      busy.current = true;
      job()
        .catch((err: unknown) => onNotice(errorMessage(err)))
        .finally(finished);
    },
    [finished, onNotice],
  );

  const whenIdle = useCallback(
    (typed: string, command: () => void) => {
      if (mustWait()) enqueue({ kind: 'command', typed, run: command });
      else command();
    },
    [mustWait, enqueue],
  );

  const dropCommands = useCallback(() => {
    const dropped = waiting.current.filter((entry) => entry.kind === 'command');
    if (dropped.length > 0) setWaiting(waiting.current.filter((entry) => entry.kind === 'prompt'));
    return dropped.map(shown);
  }, [setWaiting]);

  const isBusy = useCallback(() => busy.current, []);
  return useMemo(
    () => ({ queued, isBusy, send, submit, runExclusive, whenIdle, dropCommands }),
    [queued, isBusy, send, submit, runExclusive, whenIdle, dropCommands],
  );
}
