// The sessions an engine holds in memory, by id. Contract: a Map whose entries may carry a
// cleanup (`whenGone`), run once when that session object leaves the map — deleted, replaced
// by another object under its id, or cleared. What a live session alone keeps running (its
// agent's own MCP servers) ends there, and never while the session is still held.
import type { LiveSession } from '../agent/live-session.js';

export class LiveSessions extends Map<string, LiveSession> {
  private readonly cleanups = new WeakMap<LiveSession, () => void>();

  /** Runs `cleanup` once `session` is no longer held (at most once). */
  whenGone(session: LiveSession, cleanup: () => void): void {
    this.cleanups.set(session, cleanup);
  }

  override set(id: string, session: LiveSession): this {
    const before = super.get(id);
    super.set(id, session);
    if (before !== undefined && before !== session) this.gone(before);
    return this;
  }

  override delete(id: string): boolean {
    const before = super.get(id);
    const deleted = super.delete(id);
    if (before !== undefined) this.gone(before);
    return deleted;
  }

  override clear(): void {
    const all = [...super.values()];
    super.clear();
    for (const session of all) this.gone(session);
  }

  private gone(session: LiveSession): void {
    const cleanup = this.cleanups.get(session);
    if (!cleanup) return;
    this.cleanups.delete(session);
    cleanup();
  }
}
