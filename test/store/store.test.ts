import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunError } from '../../src/core/errors.js';
import type { Message } from '../../src/core/messages.js';
import { SessionStore, type NewSession } from '../../src/core/store/index.js';
import { SCHEMA_VERSION } from '../../src/core/store/schema.js';

let dir: string;
let store: SessionStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'oci-store-'));
  store = SessionStore.open(dir);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const base: NewSession = { agent: 'build', title: 'root', status: 'idle', model: 'anthropic/claude-sonnet-4-5', cwd: '/p', depth: 0 };
const usage = (input: number, output: number, cache_read = 0, cache_write = 0) => ({
  usage: { input_tokens: input, output_tokens: output, cache_read_input_tokens: cache_read, cache_creation_input_tokens: cache_write },
  cost: (input + output) / 1000,
});
const msg = (role: Message['role'], text: string): Message => ({ role, content: [{ type: 'text', text }] });

describe('SessionStore', () => {
  it('creates a WAL database with a versioned schema and reopens it with data intact', () => {
    const s = store.createSession(base);
    store.appendMessage(s.id, msg('user', 'hello'));
    store.close();
    const raw = new Database(join(dir, 'sessions.db'));
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    raw.close();
    store = SessionStore.open(dir);
    expect(store.loadMessages(s.id)).toEqual([msg('user', 'hello')]);
  });

  it('gives sortable ids in creation order', () => {
    const ids = Array.from({ length: 20 }, () => store.createSession(base).id);
    expect([...ids].sort()).toEqual(ids);
  });

  it('appends messages with consecutive seq and adds their usage to the session', () => {
    const s = store.createSession(base);
    store.appendMessage(s.id, msg('user', 'q'));
    store.appendMessage(s.id, msg('assistant', 'a'), usage(100, 20, 50, 10));
    store.appendMessage(s.id, msg('user', 'q2'));
    expect(store.messageRows(s.id).map((r) => [r.seq, r.role])).toEqual([
      [0, 'user'],
      [1, 'assistant'],
      [2, 'user'],
    ]);
    const row = store.getSession(s.id)!;
    expect(row).toMatchObject({ input_tokens: 160, output_tokens: 20, cache_read_tokens: 50, cache_write_tokens: 10 });
    expect(row.cost).toBeCloseTo(0.12);
  });

  it('rolls totals up from every descendant and lists only roots', () => {
    const root = store.createSession(base);
    const child = store.createSession({ ...base, parent_id: root.id, depth: 1, agent: 'general', task_description: 'look' });
    const grandchild = store.createSession({ ...base, parent_id: child.id, depth: 2, agent: 'explore' });
    const other = store.createSession({ ...base, title: 'other' });
    store.appendMessage(root.id, msg('assistant', 'r'), usage(10, 1));
    store.appendMessage(child.id, msg('assistant', 'c'), usage(100, 10));
    store.appendMessage(grandchild.id, msg('assistant', 'g'), usage(1000, 100));

    expect(store.totals(root.id)).toMatchObject({ total_tokens: 1221, input_tokens: 1110, output_tokens: 111 });
    expect(store.totals(root.id).total_cost).toBeCloseTo(1.221);
    expect(store.totals(child.id).total_tokens).toBe(1210);

    const roots = store.listRoots();
    expect(roots.map((r) => r.id).sort()).toEqual([root.id, other.id].sort());
    expect(roots.find((r) => r.id === root.id)).toMatchObject({ total_tokens: 1221 });

    const all = store.listAll();
    const i = all.findIndex((r) => r.id === root.id);
    expect(all.slice(i, i + 3).map((r) => r.id)).toEqual([root.id, child.id, grandchild.id]);
    expect(all.find((r) => r.id === child.id)).toMatchObject({ total_tokens: 1210, parent_id: root.id });

    const tree = store.tree(root.id);
    expect(tree.children.map((c) => c.session.id)).toEqual([child.id]);
    expect(tree.children[0]!.children[0]!.session).toMatchObject({ id: grandchild.id, total_tokens: 1100 });
  });

  it('finds the most recently updated root session of a directory', () => {
    const a = store.createSession(base);
    store.createSession({ ...base, cwd: '/elsewhere' });
    const b = store.createSession(base);
    store.appendMessage(a.id, msg('user', 'newer activity'));
    expect(store.mostRecentRoot('/p')?.id).toBe(a.id);
    expect(store.mostRecentRoot('/nowhere')).toBeUndefined();
    expect(b.id).not.toBe(a.id);
  });

  it('marks sessions of dead processes interrupted but leaves live owners alone', () => {
    const crashed = store.createSession({ ...base, status: 'running' });
    const queued = store.createSession({ ...base, status: 'queued', parent_id: crashed.id, depth: 1 });
    const alive = store.createSession({ ...base, status: 'running' });
    const db = new Database(join(dir, 'sessions.db'));
    db.prepare('UPDATE sessions SET owner_pid = ? WHERE id IN (?, ?)').run(2 ** 22 + 12345, crashed.id, queued.id);
    db.prepare('UPDATE sessions SET owner_pid = ? WHERE id = ?').run(process.ppid, alive.id);
    db.close();

    expect(store.markInterrupted().sort()).toEqual([crashed.id, queued.id].sort());
    expect(store.getSession(crashed.id)!.status).toBe('interrupted');
    expect(store.getSession(queued.id)!.status).toBe('interrupted');
    expect(store.getSession(alive.id)!.status).toBe('running');
  });

  it('updates status, error and title and records the owning process while running', () => {
    const s = store.createSession(base);
    store.updateSession(s.id, { status: 'running' });
    expect(store.getSession(s.id)!.owner_pid).toBe(process.pid);
    store.updateSession(s.id, { status: 'failed', error: 'boom', title: 'renamed' });
    expect(store.getSession(s.id)).toMatchObject({ status: 'failed', error: 'boom', title: 'renamed', owner_pid: null });
  });

  it('stores todo lists per session', () => {
    const s = store.createSession(base);
    expect(store.getTodos(s.id)).toEqual([]);
    store.setTodos(s.id, [{ id: '1', content: 'write tests', status: 'in_progress' }]);
    store.setTodos(s.id, [{ id: '1', content: 'write tests', status: 'completed' }]);
    expect(store.getTodos(s.id)).toEqual([{ id: '1', content: 'write tests', status: 'completed' }]);
  });

  it('refuses a database written by a newer schema with a clear message', () => {
    store.close();
    const raw = new Database(join(dir, 'sessions.db'));
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => SessionStore.open(dir)).toThrow(RunError);
    expect(() => SessionStore.open(dir)).toThrow(/sessions\.db.*newer opencode-ink/);
    store = SessionStore.open(':memory:');
  });
});
