// Writer leases and crash repair through the store's public API. Two store instances on one
// file are two owners, as two processes would be; real processes are in multiprocess.test.ts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repairHistory } from '../../src/core/agent/history.js';
import type { Message } from '../../src/core/messages.js';
import { SessionBusyError, SessionStore, type NewSession } from '../../src/core/store/index.js';

let dir: string;
let a: SessionStore;
let b: SessionStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'oci-lease-'));
  a = SessionStore.open(dir);
  b = SessionStore.open(dir);
});
afterEach(() => {
  a.close();
  b.close();
  rmSync(dir, { recursive: true, force: true });
});

const base: NewSession = { agent: 'build', title: 'root', status: 'idle', model: 'anthropic/claude-sonnet-4-5', cwd: '/p', depth: 0 };
const msg = (role: Message['role'], text: string): Message => ({ role, content: [{ type: 'text', text }] });

/** Rewrites a lease row as if another owner had left it behind. */
function forge(sessionId: string, fields: { pid: number; expires_at: number; host?: string }): void {
  const raw = new Database(join(dir, 'sessions.db'), { timeout: 5000 });
  raw
    .prepare('UPDATE leases SET owner = @owner, host = @host, pid = @pid, expires_at = @expires_at WHERE session_id = @id')
    .run({ id: sessionId, owner: 'elsewhere', host: fields.host ?? hostname(), pid: fields.pid, expires_at: fields.expires_at });
  raw.close();
}

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  return r.pid!;
}

describe('session leases', () => {
  it('lets the creator write and refuses another owner with one clear line naming the pid', () => {
    const s = a.createSession(base);
    a.appendMessage(s.id, msg('user', 'mine'));
    expect(() => b.leases.acquire(s.id)).toThrow(SessionBusyError);
    expect(() => b.leases.acquire(s.id)).toThrow(
      `Session ${s.id} is in use by another opencode-ink process (pid ${process.pid}); wait for it to finish or continue another session.`,
    );
    expect(() => b.appendMessage(s.id, msg('user', 'theirs'))).toThrow(/in use by another opencode-ink process/);
    expect(a.loadMessages(s.id)).toEqual([msg('user', 'mine')]);
  });

  it('hands the session over once the owner closes', () => {
    const s = a.createSession(base);
    a.close();
    b.leases.acquire(s.id);
    b.appendMessage(s.id, msg('user', 'after'));
    expect(b.loadMessages(s.id)).toEqual([msg('user', 'after')]);
  });

  it('takes over a lease whose owner is dead on this host', () => {
    const s = a.createSession(base);
    forge(s.id, { pid: deadPid(), expires_at: Date.now() + 60_000 });
    b.leases.acquire(s.id);
    expect(b.leases.holds(s.id)).toBe(true);
  });

  it('takes over an expired lease even when its pid is alive, and keeps a live one on another host', () => {
    const s = a.createSession(base);
    forge(s.id, { pid: process.pid, expires_at: Date.now() - 1 });
    b.leases.acquire(s.id);
    const t = a.createSession(base);
    // Another host's pid cannot be checked: only expiry frees it.
    forge(t.id, { pid: deadPid(), expires_at: Date.now() + 60_000, host: 'other-host' });
    expect(() => b.leases.acquire(t.id)).toThrow(/\(pid \d+ on other-host\)/);
  });

  it('stops a displaced owner from writing after another process took the session over', () => {
    const s = a.createSession(base);
    a.appendMessage(s.id, msg('user', 'one'));
    forge(s.id, { pid: process.pid, expires_at: Date.now() - 1 });
    b.leases.acquire(s.id);
    b.appendMessage(s.id, msg('user', 'two'));
    expect(() => a.appendMessage(s.id, msg('assistant', 'stale'))).toThrow(/taken over by another opencode-ink process/);
    expect(a.loadMessages(s.id).map((m) => m.content[0])).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ]);
  });

  it('renews its leases so that they do not expire while the owner lives', () => {
    const s = a.createSession(base);
    forge(s.id, { pid: process.pid, expires_at: Date.now() + 5 });
    // The forged owner is another one; renewal must only extend the renewing owner's rows.
    const t = a.createSession(base);
    const raw = new Database(join(dir, 'sessions.db'));
    const before = raw.prepare('SELECT expires_at FROM leases WHERE session_id = ?').pluck().get(t.id) as number;
    a.leases.renew();
    const after = raw.prepare('SELECT expires_at FROM leases WHERE session_id = ?').pluck().get(t.id) as number;
    const forged = raw.prepare('SELECT owner FROM leases WHERE session_id = ?').pluck().get(s.id) as string;
    raw.close();
    expect(after).toBeGreaterThanOrEqual(before);
    expect(forged).toBe('elsewhere');
    // The lease a renewal found taken is no longer counted as held.
    expect(a.leases.holds(s.id)).toBe(false);
    // ...and is never written again by this owner, even once the other one is gone.
    forge(s.id, { pid: deadPid(), expires_at: Date.now() - 1 });
    expect(() => a.appendMessage(s.id, msg('user', 'stale view'))).toThrow(/taken over by another opencode-ink process/);
    a.leases.acquire(s.id);
    a.appendMessage(s.id, msg('user', 'taken back'));
  });
});

describe('markInterrupted after a crash', () => {
  it('answers an in-flight task call with the child id and how to resume it, and other calls generically', () => {
    const root = a.createSession({ ...base, status: 'running' });
    a.appendMessage(root.id, msg('user', 'delegate'));
    a.appendMessage(root.id, {
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'toolu_task', name: 'task', input: { description: 'd', prompt: 'p', subagent_type: 'explore' } },
        { type: 'tool_use', id: 'toolu_bash', name: 'bash', input: { command: 'sleep 9' } },
      ],
    });
    const child = a.createSession({ ...base, status: 'running', parent_id: root.id, depth: 1, tool_call_id: 'toolu_task', task_description: 'd' });
    // The crashed owner: its pid is gone and its leases are left behind.
    const dead = deadPid();
    forge(root.id, { pid: dead, expires_at: Date.now() + 60_000 });
    forge(child.id, { pid: dead, expires_at: Date.now() + 60_000 });
    const raw = new Database(join(dir, 'sessions.db'));
    raw.prepare('UPDATE sessions SET owner_pid = ?').run(dead);
    raw.close();

    expect(b.markInterrupted().sort()).toEqual([root.id, child.id].sort());
    const stored = b.loadMessages(root.id);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const [task, bash] = stored[2]!.content as Array<{ type: string; tool_use_id: string; content: string; is_error: boolean }>;
    expect(task).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_task', is_error: true });
    expect(task!.content).toBe(
      `<task id="${child.id}" state="interrupted"><task_result>The sub-agent was interrupted before it finished (outcome unknown). Resume it with task(session_id="${child.id}", …) to continue where it stopped.</task_result></task>`,
    );
    expect(bash).toMatchObject({ tool_use_id: 'toolu_bash', is_error: true, content: expect.stringMatching(/interrupted/) });
    expect(bash!.content).not.toContain('task');
    // Already valid for the API: nothing left for the in-memory repair to add.
    expect(repairHistory(stored)).toEqual(stored);
    expect(b.getSession(child.id)!.status).toBe('interrupted');
  });

  it('leaves a session alone while another live process holds its lease', () => {
    const root = a.createSession({ ...base, status: 'running' });
    const raw = new Database(join(dir, 'sessions.db'));
    raw.prepare('UPDATE sessions SET owner_pid = ?').run(deadPid());
    raw.close();
    // `a` (alive, another owner) still holds the lease.
    expect(b.markInterrupted()).toEqual([]);
    expect(b.getSession(root.id)!.status).toBe('running');
  });
});
