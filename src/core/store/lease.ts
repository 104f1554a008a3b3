/*
 * Per-session writer leases: one process at a time writes a session's history.
 *
 * Contract
 * - A store instance is one owner (host, pid and a random tag). `acquire(id)` takes the
 *   session's row in `leases` for this owner, or throws SessionBusyError naming the pid
 *   that holds it. Taking a lease it already holds is a no-op.
 * - A lease is stale, and taken over, when its owner's pid is not alive on this host or
 *   when it has expired (owner on another host, or a pid reused after a crash). Live owners
 *   renew every lease they hold every RENEW_MS, so a lease expires only when its owner is
 *   gone or has stopped running (suspended, hung) for longer than TTL_MS.
 * - `assertWritable(id)` runs inside every message write: a session leased by another live
 *   owner, or one this owner held and lost, is never written, so histories never interleave.
 * - `releaseAll()` on close; a killed process leaves rows behind that the next one takes over.
 * - Every read-then-write runs in an IMMEDIATE transaction: in WAL mode a deferred one that
 *   upgrades to a write fails at once with SQLITE_BUSY, whatever the busy timeout says.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type Database from 'better-sqlite3';
import { RunError } from '../errors.js';

/** How long a lease lasts without renewal. */
export const LEASE_TTL_MS = 2 * 60_000;
/** How often a live owner renews its leases. */
const RENEW_MS = 20_000;

export interface LeaseHolder {
  owner: string;
  host: string;
  pid: number;
  expires_at: number;
}

/** Another live process is writing this session. Exit 1: not a usage error; retry later works. */
export class SessionBusyError extends RunError {
  constructor(
    readonly sessionId: string,
    readonly holder: Pick<LeaseHolder, 'pid' | 'host'>,
  ) {
    super(busyMessage(sessionId, holder));
  }
}

export function busyMessage(sessionId: string, holder: Pick<LeaseHolder, 'pid' | 'host'>): string {
  const where = holder.host === hostname() ? `pid ${holder.pid}` : `pid ${holder.pid} on ${holder.host}`;
  return `Session ${sessionId} is in use by another opencode-ink process (${where}); wait for it to finish or continue another session.`;
}

export class SessionLeases {
  readonly owner: string;
  private readonly host = hostname();
  private readonly held = new Set<string>();
  /** Leases another owner took over from this one: never written again unless re-acquired. */
  private readonly lost = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly stmt: ReturnType<SessionLeases['prepare']>;

  constructor(
    private readonly db: Database.Database,
    private readonly now: () => number = Date.now,
  ) {
    this.owner = `${this.host}:${process.pid}:${randomBytes(6).toString('hex')}`;
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    return {
      get: db.prepare<[string], LeaseHolder>('SELECT owner, host, pid, expires_at FROM leases WHERE session_id = ?'),
      put: db.prepare(`
        INSERT INTO leases (session_id, owner, host, pid, expires_at) VALUES (@id, @owner, @host, @pid, @expires)
        ON CONFLICT(session_id) DO UPDATE SET owner = excluded.owner, host = excluded.host, pid = excluded.pid, expires_at = excluded.expires_at`),
      release: db.prepare('DELETE FROM leases WHERE session_id = ? AND owner = ?'),
      releaseAll: db.prepare('DELETE FROM leases WHERE owner = ?'),
      renew: db.prepare('UPDATE leases SET expires_at = ? WHERE owner = ?'),
      mine: db.prepare<[string], { session_id: string }>('SELECT session_id FROM leases WHERE owner = ?'),
    };
  }

  /** Takes the session for this owner, or throws SessionBusyError when a live owner holds it. */
  acquire(sessionId: string): void {
    const holder = this.db.transaction(() => this.take(sessionId)).immediate();
    if (holder) throw new SessionBusyError(sessionId, holder);
  }

  /**
   * Inside a write transaction: takes the lease unless a live owner holds it, and returns
   * that owner then. Used for sessions this process creates, too.
   */
  take(sessionId: string): LeaseHolder | undefined {
    const row = this.stmt.get.get(sessionId);
    if (row && row.owner !== this.owner && !this.isStale(row)) return row;
    this.stmt.put.run({ id: sessionId, owner: this.owner, host: this.host, pid: process.pid, expires: this.now() + LEASE_TTL_MS });
    this.held.add(sessionId);
    this.lost.delete(sessionId);
    this.startRenewing();
    return undefined;
  }

  /** The live owner other than this one that holds the session, if any (for notices). */
  otherHolder(sessionId: string): LeaseHolder | undefined {
    const row = this.stmt.get.get(sessionId);
    return row && row.owner !== this.owner && !this.isStale(row) ? row : undefined;
  }

  /**
   * Inside a write transaction on the session: throws when this owner may not write it.
   * A session nobody leases (a store used directly, without an engine) stays writable.
   */
  assertWritable(sessionId: string): void {
    const row = this.stmt.get.get(sessionId);
    if (row?.owner === this.owner) return;
    // Taken over (and maybe released since): this process's view of the history is out of date.
    if (this.held.has(sessionId) || this.lost.has(sessionId)) {
      const by = row ? ` (pid ${row.pid})` : '';
      throw new RunError(`Session ${sessionId} was taken over by another opencode-ink process${by}; this process stopped writing to it.`);
    }
    if (row && !this.isStale(row)) throw new RunError(busyMessage(sessionId, row));
  }

  holds(sessionId: string): boolean {
    return this.held.has(sessionId);
  }

  release(sessionId: string): void {
    if (!this.held.delete(sessionId)) return;
    this.stmt.release.run(sessionId, this.owner);
    if (this.held.size === 0) this.stopRenewing();
  }

  releaseAll(): void {
    this.stopRenewing();
    if (this.held.size === 0) return;
    this.held.clear();
    try {
      this.stmt.releaseAll.run(this.owner);
    } catch {
      // Closing anyway: the rows go stale once this process is gone.
    }
  }

  /** Extends every lease this owner holds; forgets the ones another process took over. */
  renew(): void {
    this.db
      .transaction(() => {
        this.stmt.renew.run(this.now() + LEASE_TTL_MS, this.owner);
        const still = new Set(this.stmt.mine.all(this.owner).map((r) => r.session_id));
        for (const id of this.held) {
          if (still.has(id)) continue;
          this.held.delete(id);
          this.lost.add(id);
        }
      })
      .immediate();
    if (this.held.size === 0) this.stopRenewing();
  }

  private isStale(row: LeaseHolder): boolean {
    if (row.expires_at <= this.now()) return true;
    return row.host === this.host && !processAlive(row.pid);
  }

  private startRenewing(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      try {
        this.renew();
      } catch {
        // A busy or closed database: the next tick tries again; the TTL leaves room for it.
      }
    }, RENEW_MS);
    // Renewal never keeps a finished process alive.
    this.timer.unref();
  }

  private stopRenewing(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
