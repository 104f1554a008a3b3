// Runs turns in live sessions. Contract: `runLive` runs a turn to completion (and the follow-up
// turns that background results queued in the inbox), keeping the session's stored status and
// `session.status`/`turn.completed` events true; `deliver` hands a background result to its
// parent, starting a turn there when none runs and passing that turn's result further up.
// Every turn, exclusive operation and background task counts against its root, and `settled`
// resolves once a root has none left. A child whose turn ended is released from memory, and
// its background shells are stopped (a sub-agent's shells last as long as the run that started them).
import { onAbort, untilAborted } from '../abort-fanout.js';
import { dropSteering, takeInbox } from '../agent/inbox.js';
import type { LiveSession } from '../agent/live-session.js';
import { runTurn, type LoopDeps, type TurnOptions, type TurnOutcome } from '../agent/loop.js';
import { errorMessage } from '../errors.js';
import type { EventListener, ResultArrival, SessionStatus } from '../events.js';
import type { Message, TextPart } from '../messages.js';
import type { SessionStore } from '../store/index.js';
import { formatTaskResult, watchToolLog, withNote, type ChildRunOptions } from '../subagents/index.js';

export interface TurnSchedulerDeps {
  store: SessionStore;
  /** Sessions held in memory, shared with the engine and the session factory. */
  live: Map<string, LiveSession>;
  loopDeps: () => LoopDeps;
  /** Brings a session's tools up to date (MCP servers starting) before its turn calls the model. */
  refreshTools: (session: LiveSession) => Promise<void>;
  onEvent: (listener: EventListener) => () => void;
  /** A sub-agent's run ended (completed, failed, cancelled): what it started in the background ends with it. */
  childRunEnded: (session: LiveSession) => Promise<void>;
}

export class TurnScheduler {
  private readonly running = new Set<string>();
  /** Turns and background tasks still under way, per root session. */
  private readonly busy = new Map<string, number>();
  private readonly settleWaiters = new Map<string, Array<() => void>>();
  private readonly lastOutcomes = new Map<string, TurnOutcome>();

  constructor(private readonly deps: TurnSchedulerDeps) {}

  isRunning(sessionId: string): boolean {
    return this.running.has(sessionId);
  }

  /** Whether a session other than this one is running a turn. */
  othersRunning(sessionId: string): boolean {
    for (const id of this.running) if (id !== sessionId) return true;
    return false;
  }

  /** Cancels the turn running in a session (and, through its signal, its foreground children). */
  cancel(sessionId: string): boolean {
    const session = this.deps.live.get(sessionId);
    if (!session || !(this.running.has(sessionId) || this.isQueued(sessionId))) return false;
    session.controller.abort();
    return true;
  }

  /** Cancels every running turn, children and background tasks included (quitting). */
  cancelAll(): void {
    for (const [id, session] of this.deps.live) {
      if (this.running.has(id) || this.isQueued(id)) session.controller.abort();
    }
  }

  /** A sub-agent waiting for a free slot (subagents.max_concurrency). */
  private isQueued(sessionId: string): boolean {
    return this.deps.store.getSession(sessionId)?.status === 'queued';
  }

  /**
   * Resolves when a root session has nothing left under way: no running turn, no background
   * task, and no turn started by a background result. `run` waits on this before exiting.
   */
  settled(rootId: string): Promise<void> {
    if (!this.busy.get(rootId)) return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.settleWaiters.get(rootId) ?? [];
      list.push(resolve);
      this.settleWaiters.set(rootId, list);
    });
  }

  /** Resolves when no root has anything under way (quitting: cancelled turns have wound down). */
  async allSettled(): Promise<void> {
    while (this.busy.size > 0) await Promise.all([...this.busy.keys()].map((id) => this.settled(id)));
  }

  /** The outcome of the last turn that ended in a root session, e.g. one a background result started. */
  lastOutcome(sessionId: string): TurnOutcome | undefined {
    return this.lastOutcomes.get(sessionId);
  }

  /** Counts `work` (a background task) against its root until it ends. */
  trackBackground(rootId: string, work: Promise<unknown>): void {
    this.markBusy(rootId, +1);
    void work.finally(() => this.markBusy(rootId, -1));
  }

  /** Runs `work` holding the session as running (no turn starts meanwhile), like a turn. */
  async exclusive<T>(session: LiveSession, work: () => Promise<T>): Promise<T> {
    const root = session.path[0]!;
    this.markBusy(root, +1);
    this.running.add(session.id);
    try {
      return await work();
    } finally {
      this.running.delete(session.id);
      this.markBusy(root, -1);
    }
  }

  setStatus(session: LiveSession, status: SessionStatus, error?: string): void {
    this.deps.store.updateSession(session.id, { status, ...(error ? { error } : {}) });
    session.emit('session.status', { status, ...(error ? { reason: error } : {}) });
  }

  async runLive(session: LiveSession, input: Message, opts?: ChildRunOptions, turn?: TurnOptions): Promise<TurnOutcome> {
    const root = session.path[0]!;
    this.markBusy(root, +1);
    this.running.add(session.id);
    try {
      let next: Message | undefined = input;
      let outcome: TurnOutcome;
      let first: TurnOptions | undefined = turn;
      do {
        outcome = await this.runOneTurn(session, next, opts, first);
        first = undefined;
        // Background results and steering messages that arrived as the turn ended start the next one.
        next = outcome.status !== 'cancelled' ? takeInbox(session) : undefined;
      } while (next);
      // A cancelled session reads nothing more: what was queued for it is dropped, and said so.
      if (outcome.status === 'cancelled') dropSteering(session, 'cancelled');
      // Only a root's is asked for (`run` after background results); a child's goes with it.
      if (!session.parent) this.lastOutcomes.set(session.id, outcome);
      return outcome;
    } finally {
      this.running.delete(session.id);
      // Counted against the root like a background task, so `settled` waits for the shells to go.
      if (session.parent) this.trackBackground(root, this.deps.childRunEnded(session));
      this.releaseChild(session);
      this.markBusy(root, -1);
    }
  }

  /**
   * A background result reaches its parent: folded into a running turn, or starting one. A
   * sub-agent parent whose own task call has already returned passes what that new turn
   * produced on to its parent the same way, so the result climbs to someone who reads it.
   */
  deliver(target: LiveSession, part: TextPart, arrival: ResultArrival): void {
    const { live, store } = this.deps;
    // The session may have been reopened (resumed) since the task started: use the live one.
    // A child released since it returned is taken back, lease and all, as it was.
    let parent = live.get(target.id);
    if (!parent) {
      try {
        store.leases.acquire(target.id);
      } catch (err) {
        target.emit('error', { message: errorMessage(err) });
        return;
      }
      // Another process may have resumed it meanwhile: continue from what is stored.
      target.history = store.loadMessages(target.id);
      live.set(target.id, target);
      parent = target;
    }
    // Said before the turn that reads it, so a front end can name who reported (not the user).
    parent.emit('result.arrived', arrival);
    parent.inbox.push(part);
    if (this.running.has(parent.id)) return;
    const input = takeInbox(parent);
    if (!input) return;
    const root = parent.path[0]!;
    // Held until the result has been passed up, so `settled` does not resolve in between.
    this.markBusy(root, +1);
    const toolLog = parent.parent ? watchToolLog((l) => this.deps.onEvent(l), parent.id) : undefined;
    void this.runLive(parent, input)
      .then((outcome) => {
        const grandparent = parent.parent;
        if (!grandparent) return;
        const row = store.getSession(parent.id);
        const state = outcome.status === 'max_turns' ? 'limited' : outcome.status;
        const text = withNote(outcome.text, 'This follows a background result that arrived after the task had returned.');
        const description = row?.task_description ?? parent.agentName;
        this.deliver(
          grandparent,
          { type: 'text', text: `Task "${description}" (${parent.agentName}) has more to report:\n${formatTaskResult(parent.id, state, text, toolLog?.log())}` },
          { child_id: parent.id, child_agent: parent.agentName, description, state, follow_up: true },
        );
      })
      .catch((err: unknown) => {
        parent.emit('error', { message: errorMessage(err) });
      })
      .finally(() => {
        toolLog?.stop();
        this.markBusy(root, -1);
      });
  }

  /**
   * A child whose turn has ended gives up its memory (history, tools, closures) and its
   * lease: its result has gone to the parent, and a resume or a view reads it back from the
   * store. A later background result for it takes it back (`deliver`).
   */
  private releaseChild(session: LiveSession): void {
    const { live, store } = this.deps;
    if (!session.parent || this.running.has(session.id) || live.get(session.id) !== session) return;
    live.delete(session.id);
    store.leases.release(session.id);
  }

  private async runOneTurn(session: LiveSession, input: Message, opts?: ChildRunOptions, turn?: TurnOptions): Promise<TurnOutcome> {
    session.controller = new AbortController();
    if (turn?.cancelled) session.controller.abort();
    const unlink = linkSignals(session.controller, opts?.links ?? []);
    this.setStatus(session, 'running');
    let outcome: TurnOutcome;
    try {
      // Esc while servers start cancels the turn (runTurn sees the aborted signal) instead of waiting.
      await untilAborted(this.deps.refreshTools(session), session.controller.signal);
      outcome = await runTurn(session, this.deps.loopDeps(), input, turn);
    } finally {
      unlink();
    }
    const stopped = outcome.status === 'cancelled' ? opts?.stopReason() : undefined;
    if (stopped) {
      this.setStatus(session, 'failed', stopped);
    } else if (outcome.status === 'max_turns' && session.depth > 0) {
      // A child at its cap: ended, maybe unfinished, and the user should learn what raises it.
      this.setStatus(session, 'limited', opts?.limitReason?.() ?? `reached its limit of ${session.maxTurns ?? outcome.steps} model requests`);
    } else {
      if (outcome.status === 'failed') session.emit('error', { message: outcome.error ?? 'The turn failed.' });
      // A teammate whose turn ended goes idle, not completed (DESIGN §24): its team says when it ends.
      const teammate = outcome.status === 'completed' && session.depth > 0 && this.deps.store.teamMembers.get(session.id) !== undefined;
      this.setStatus(session, teammate ? 'idle' : statusAfter(outcome, session.depth), outcome.error);
    }
    session.emit('turn.completed', { usage: outcome.usage, cost: outcome.cost });
    return outcome;
  }

  private markBusy(rootId: string, delta: number): void {
    const count = (this.busy.get(rootId) ?? 0) + delta;
    if (count > 0) {
      this.busy.set(rootId, count);
      return;
    }
    this.busy.delete(rootId);
    const waiters = this.settleWaiters.get(rootId) ?? [];
    this.settleWaiters.delete(rootId);
    for (const resolve of waiters) resolve();
  }
}

/** Aborts `controller` when any of `signals` aborts; returns the unsubscribe. */
function linkSignals(controller: AbortController, signals: readonly AbortSignal[]): () => void {
  // Through onAbort: the children of one turn share a single listener on its signal.
  const unlinks = signals.map((signal) => onAbort(signal, () => controller.abort()));
  return () => {
    for (const unlink of unlinks) unlink();
  };
}

function statusAfter(outcome: TurnOutcome, depth: number): SessionStatus {
  switch (outcome.status) {
    case 'failed':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
    default:
      return depth === 0 ? 'idle' : 'completed';
  }
}
