// Teammates and their messages in SQLite (DESIGN §24, tables of store migration 7). Contract:
// a teammate is a child session of its lead, known in its root's team by a name unique there;
// its state (`working | idle | ended | failed`) is written the moment it changes, so whatever
// reads the store (another process, `-c`, `sessions show --json`) sees it exact. A message is
// stored when sent and stays undelivered until the turn that reads it takes it (`take`), so a
// crash or an exit never loses one. Nothing here emits events or runs sessions
// (team/teammates.ts does).
import type Database from 'better-sqlite3';
import type { MemberState } from './members.js';

/** What a teammate's spawn fixed for all its runs: tools narrowing, isolation, cap on model requests. */
export interface TeammateSpawn {
  narrow?: string[] | undefined;
  isolation: 'none' | 'worktree';
  max_turns: number;
  /** The setting that decided `max_turns`, named when the teammate stops at it. */
  max_turns_key: string;
}

export interface TeamMember {
  session_id: string;
  root_id: string;
  /** The session that started it (the root). */
  lead_id: string;
  name: string;
  state: MemberState;
  spawn: TeammateSpawn;
  /** The last line of text it wrote before going idle. */
  last_line: string | null;
  /** `send_message` with `shutdown: true` asked it to end after its current turn. */
  shutdown: boolean;
  created_at: number;
  updated_at: number;
}

export interface TeamMessage {
  seq: number;
  root_id: string;
  to_session: string;
  /** Who sent it: `lead`, a teammate's name, `user`, or `team` for the team's own notices (a task assigned). */
  sender: string;
  text: string;
  created_at: number;
}

interface RawMember extends Omit<TeamMember, 'spawn' | 'shutdown' | 'state'> {
  state: string;
  spawn: string;
  shutdown: number;
}

const STATES: readonly MemberState[] = ['working', 'idle', 'ended', 'failed'];

export class TeamMemberStore {
  private readonly stmt: ReturnType<TeamMemberStore['prepare']>;

  constructor(private readonly db: Database.Database) {
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    return {
      insert: db.prepare(`
        INSERT INTO team_members (session_id, root_id, lead_id, name, state, spawn, created_at, updated_at)
        VALUES (@session_id, @root_id, @lead_id, @name, @state, @spawn, @now, @now)`),
      bySession: db.prepare<[string], RawMember>('SELECT * FROM team_members WHERE session_id = ?'),
      byName: db.prepare<[string, string], RawMember>('SELECT * FROM team_members WHERE root_id = ? AND name = ?'),
      list: db.prepare<[string], RawMember>('SELECT * FROM team_members WHERE root_id = ? ORDER BY created_at, rowid'),
      setState: db.prepare('UPDATE team_members SET state = @state, last_line = COALESCE(@last_line, last_line), updated_at = @now WHERE session_id = @id'),
      setShutdown: db.prepare('UPDATE team_members SET shutdown = @shutdown, updated_at = @now WHERE session_id = @id'),
      failWorking: db.prepare("UPDATE team_members SET state = 'failed', updated_at = @now WHERE session_id = @id AND state = 'working'"),
      post: db.prepare<{ root_id: string; to_session: string; sender: string; text: string; now: number }, { seq: number }>(`
        INSERT INTO team_messages (root_id, to_session, sender, text, created_at) VALUES (@root_id, @to_session, @sender, @text, @now) RETURNING seq`),
      waiting: db.prepare<[string], TeamMessage>('SELECT seq, root_id, to_session, sender, text, created_at FROM team_messages WHERE to_session = ? AND delivered_at IS NULL ORDER BY seq'),
      deliver: db.prepare('UPDATE team_messages SET delivered_at = @now WHERE seq = @seq AND delivered_at IS NULL'),
    };
  }

  add(member: { session_id: string; root_id: string; lead_id: string; name: string; state: MemberState; spawn: TeammateSpawn }): TeamMember {
    this.stmt.insert.run({ ...member, spawn: JSON.stringify(member.spawn), now: Date.now() });
    return this.get(member.session_id)!;
  }

  get(sessionId: string): TeamMember | undefined {
    const raw = this.stmt.bySession.get(sessionId);
    return raw && toMember(raw);
  }

  byName(rootId: string, name: string): TeamMember | undefined {
    const raw = this.stmt.byName.get(rootId, name);
    return raw && toMember(raw);
  }

  /** The root's teammates, in the order they were started. */
  list(rootId: string): TeamMember[] {
    return this.stmt.list.all(rootId).map(toMember);
  }

  setState(sessionId: string, state: MemberState, lastLine?: string): void {
    this.stmt.setState.run({ id: sessionId, state, last_line: lastLine ?? null, now: Date.now() });
  }

  setShutdown(sessionId: string, shutdown: boolean): void {
    this.stmt.setShutdown.run({ id: sessionId, shutdown: shutdown ? 1 : 0, now: Date.now() });
  }

  /** A teammate whose process died mid-turn: `failed` (store.markInterrupted calls this). */
  failIfWorking(sessionId: string): void {
    this.stmt.failWorking.run({ id: sessionId, now: Date.now() });
  }

  /** Stores a message for `toSession`, undelivered; returns its sequence number. */
  post(rootId: string, toSession: string, sender: string, text: string): number {
    return this.stmt.post.get({ root_id: rootId, to_session: toSession, sender, text, now: Date.now() })!.seq;
  }

  /** The messages waiting for a session, oldest first. */
  waiting(sessionId: string): TeamMessage[] {
    return this.stmt.waiting.all(sessionId);
  }

  /**
   * Marks the waiting messages of a session delivered and returns them, in one IMMEDIATE
   * transaction: a message is taken by exactly one turn, whichever process asks.
   */
  take(sessionId: string): TeamMessage[] {
    return this.db
      .transaction(() => {
        const messages = this.stmt.waiting.all(sessionId);
        const now = Date.now();
        for (const m of messages) this.stmt.deliver.run({ seq: m.seq, now });
        return messages;
      })
      .immediate();
  }

  /** Marks one message delivered (it reached its reader by another way, e.g. a running turn's inbox). */
  delivered(seq: number): void {
    this.stmt.deliver.run({ seq, now: Date.now() });
  }
}

function toMember(raw: RawMember): TeamMember {
  return {
    session_id: raw.session_id,
    root_id: raw.root_id,
    lead_id: raw.lead_id,
    name: raw.name,
    state: STATES.find((s) => s === raw.state) ?? 'failed',
    spawn: parseSpawn(raw.spawn),
    last_line: raw.last_line,
    shutdown: raw.shutdown === 1,
    created_at: raw.created_at,
    updated_at: raw.updated_at,
  };
}

function parseSpawn(json: string): TeammateSpawn {
  const fallback: TeammateSpawn = { isolation: 'none', max_turns: 20, max_turns_key: 'subagents.max_turns' };
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed !== 'object' || parsed === null) return fallback;
    const p = parsed as Record<string, unknown>;
    return {
      narrow: Array.isArray(p.narrow) ? p.narrow.filter((n): n is string => typeof n === 'string') : undefined,
      isolation: p.isolation === 'worktree' ? 'worktree' : 'none',
      max_turns: typeof p.max_turns === 'number' && p.max_turns > 0 ? p.max_turns : fallback.max_turns,
      max_turns_key: typeof p.max_turns_key === 'string' ? p.max_turns_key : fallback.max_turns_key,
    };
  } catch {
    return fallback;
  }
}
