/*
 * When the snapshots of checkpoints (DESIGN §18) are taken: never on the model request's path,
 * and only when a change to the project's files may follow.
 *
 * Contract
 * - `promptStarted(rootId)` notes a prompt about to be sent and snapshots nothing yet: its
 *   "before" snapshot is started by `promptMayChange(rootId)` (the model began writing a call to
 *   a tool that can change files: the snapshot is taken while the call streams in) or at the
 *   latest by the first `beforeChange` under that root. A turn that changes nothing takes none.
 *   `promptStored(rootId, messageId)` names the prompt's message; the snapshot is written on it
 *   as soon as both are known. `cancelPrompt(rootId)` (Esc) stops a snapshot still being taken:
 *   the prompt then has none, as when Esc comes while a prompt is prepared. `promptEnded(rootId)`
 *   waits for it and says whether any change was prepared (anywhere in this engine) while the
 *   prompt ran, or that no snapshot was needed (`skipped`).
 * - `childStarted(id, hasStart)` notes a sub-agent's run and snapshots nothing; its start
 *   snapshot is taken by the first `beforeChange` of it or of one of its descendants.
 *   `childEnded(id)` says whether a change was prepared in its run (its end snapshot is then
 *   due) or not (nothing of it changed: neither snapshot is taken).
 * - `beforeChange(path)` (session ids from the root down) resolves once every snapshot that
 *   must exist before that session changes files does: its root's prompt "before" and the
 *   start of each running sub-agent on the path. It never rejects: a snapshot that fails was
 *   already told as a warning by `deps.snapshot`, and the change goes ahead without it.
 * - Start snapshots are shared: a sub-agent whose run began before a start snapshot began,
 *   with no change begun since, takes that one (children of one batch that reach their first
 *   changing tool together cost one snapshot).
 */
import { errorMessage } from '../errors.js';

export interface SnapshotTimingDeps {
  /** The project's files now; null when it could not be taken (already told). Never throws. */
  snapshot: (opts: { signal?: AbortSignal; prompt?: boolean }) => Promise<string | null>;
  setPromptBefore: (messageId: string, snapshot: string) => void;
  setSessionStart: (sessionId: string, snapshot: string, at: number) => void;
  warn: (line: string) => void;
}

interface PromptRun {
  /** Undefined until a change may follow. */
  snapshot: Promise<string | null> | undefined;
  /** The prompt's message, once stored. */
  messageId: string | undefined;
  abort: AbortController;
  /** Settles once the snapshot is written on the prompt's message. */
  written: Promise<void>;
  /** `prepared` when the prompt started. */
  preparedAtStart: number;
}

interface ChildRun {
  startedAt: number;
  /** Settles once its start snapshot is recorded; undefined while none was asked for. */
  start: Promise<void> | undefined;
  changed: boolean;
}

interface Shot {
  id: string | null;
}

export class SnapshotTiming {
  private readonly prompts = new Map<string, PromptRun>();
  private readonly children = new Map<string, ChildRun>();
  /** Changes asked for (`beforeChange` calls), settled or not. */
  private prepared = 0;
  /** Changes that may have begun (`beforeChange` calls that resolved). */
  private begun = 0;
  /** The last start snapshot, and `begun` when it began: shared while that has not moved. */
  private latest: { taken: Promise<Shot>; began: number; begunAt: number } | undefined;

  constructor(private readonly deps: SnapshotTimingDeps) {}

  promptStarted(rootId: string): void {
    this.prompts.set(rootId, { snapshot: undefined, messageId: undefined, abort: new AbortController(), written: Promise.resolve(), preparedAtStart: this.prepared });
  }

  /** A change to the project's files may follow in this prompt's turn: its "before" snapshot starts now if it has not. */
  promptMayChange(rootId: string): void {
    const run = this.prompts.get(rootId);
    if (run) void this.promptSnapshot(run);
  }

  promptStored(rootId: string, messageId: string): void {
    const run = this.prompts.get(rootId);
    if (!run) return;
    run.messageId = messageId;
    if (run.snapshot) run.written = this.writeBefore(run.snapshot, messageId);
  }

  private promptSnapshot(run: PromptRun): Promise<string | null> {
    if (!run.snapshot) {
      run.snapshot = this.deps.snapshot({ signal: run.abort.signal, prompt: true });
      if (run.messageId) run.written = this.writeBefore(run.snapshot, run.messageId);
    }
    return run.snapshot;
  }

  private writeBefore(snapshot: Promise<string | null>, messageId: string): Promise<void> {
    return snapshot.then((id) => {
      if (!id) return;
      try {
        this.deps.setPromptBefore(messageId, id);
      } catch (err) {
        this.deps.warn(`Could not record the snapshot taken before this prompt; undo will not be able to restore its files: ${errorMessage(err)}`);
      }
    });
  }

  cancelPrompt(rootId: string): void {
    this.prompts.get(rootId)?.abort.abort();
  }

  cancelAll(): void {
    for (const run of this.prompts.values()) run.abort.abort();
  }

  /**
   * The prompt's "before" snapshot once written, and whether a change was prepared since it
   * started; `skipped` when none was needed (nothing in its turn could change a file);
   * undefined when the prompt was not noted.
   */
  async promptEnded(rootId: string): Promise<{ before: string | null; changed: boolean; skipped: boolean } | undefined> {
    const run = this.prompts.get(rootId);
    if (!run) return undefined;
    this.prompts.delete(rootId);
    const changed = this.prepared !== run.preparedAtStart;
    if (!run.snapshot) return { before: null, changed, skipped: true };
    const before = await run.snapshot;
    await run.written;
    return { before, changed, skipped: false };
  }

  childStarted(sessionId: string, hasStart: boolean): void {
    this.children.set(sessionId, { startedAt: Date.now(), start: hasStart ? Promise.resolve() : undefined, changed: false });
  }

  /** Whether a change was prepared in the sub-agent's run, and when the run began; undefined when its start was not noted. */
  childEnded(sessionId: string): { changed: boolean; startedAt: number } | undefined {
    const run = this.children.get(sessionId);
    this.children.delete(sessionId);
    return run ? { changed: run.changed, startedAt: run.startedAt } : undefined;
  }

  /** A sub-agent running now whose start snapshot was not needed yet: it has changed nothing so far. */
  awaitingStart(sessionId: string): boolean {
    const run = this.children.get(sessionId);
    return run !== undefined && run.start === undefined;
  }

  async beforeChange(path: readonly string[]): Promise<void> {
    this.prepared++;
    const prompt = path[0] === undefined ? undefined : this.prompts.get(path[0]);
    if (prompt) await this.promptSnapshot(prompt);
    const runs: Array<[string, ChildRun]> = [];
    for (const id of path) {
      const run = this.children.get(id);
      if (run) runs.push([id, run]);
    }
    const due = runs.filter(([, run]) => !run.start);
    if (due.length) {
      const shot = this.shared(Math.min(...due.map(([, run]) => run.startedAt)));
      for (const [id, run] of due) {
        run.start = shot.then(({ id: snapshot }) => {
          if (!snapshot) return;
          try {
            // Its window opens when its run began, as if taken then: what another session changed
            // since is still named as shared when it changed the same file.
            this.deps.setSessionStart(id, snapshot, run.startedAt);
          } catch (err) {
            this.deps.warn(`Could not record the start snapshot of session ${id}: ${errorMessage(err)}`);
          }
        });
      }
    }
    for (const [, run] of runs) run.changed = true;
    await Promise.all(runs.map(([, run]) => run.start));
    this.begun++;
  }

  /** A snapshot begun after `notBefore` with no change begun since, or a new one. */
  private shared(notBefore: number): Promise<Shot> {
    const latest = this.latest;
    if (latest && latest.begunAt === this.begun && latest.began >= notBefore) return latest.taken;
    const began = Date.now();
    const taken = this.deps.snapshot({}).then((id) => ({ id }));
    this.latest = { taken, began, begunAt: this.begun };
    return taken;
  }
}
