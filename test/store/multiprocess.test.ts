// Several real `opencode-ink run` processes, with sub-agents, on one data dir: nothing lost,
// nothing locked, and one session written by one process at a time.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { busyMessage, SessionStore } from '../../src/core/store/index.js';
import { SCHEMA_VERSION } from '../../src/core/store/schema.js';
import { REPO_ROOT } from '../support/repo-root.js';
import { lastUserText, text, toolUse, type FakeServer, type ScriptedReply } from '../support/fake-anthropic.js';
import { runCli, startCli, startCliProject, type CliProject, type CliResult } from '../support/cli.js';
import { firstUserText } from '../support/conversations.js';

let ctx: CliProject;
let server: FakeServer;
let project: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ctx = await startCliProject();
  ({ server, project, env } = ctx);
});
afterEach(() => ctx.close());

function openDb(): Database.Database {
  return new Database(join(env.OPENCODE_INK_DATA_DIR!, 'sessions.db'), { readonly: true, timeout: 10_000 });
}

async function sessionIdOf(prompt: string): Promise<string> {
  server.enqueue(text('started'));
  const first = await runCli(['run', prompt], { cwd: project, env });
  expect(first.code).toBe(0);
  const db = openDb();
  const id = db.prepare('SELECT id FROM sessions WHERE parent_id IS NULL ORDER BY created_at DESC LIMIT 1').pluck().get() as string;
  db.close();
  return id;
}

function roles(id: string): string[] {
  const db = openDb();
  const out = db.prepare('SELECT role FROM messages WHERE session_id = ? ORDER BY seq').pluck().all(id) as string[];
  db.close();
  return out;
}

describe('several processes on one data dir', () => {
  it('creates a fresh data dir from 6 processes starting at once, each migration applied once', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => runCli(['sessions', '--json'], { cwd: project, env })));
    for (const r of results) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([]);
    }
    const db = openDb();
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
  });

  it('waits to open the store while another process holds it locked (as a first start migrating it does)', async () => {
    const dataDir = env.OPENCODE_INK_DATA_DIR!;
    mkdirSync(dataDir, { recursive: true });
    // Another process takes the brand-new file's exclusive lock and keeps it for a while.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('better-sqlite3'))(process.argv[1]); db.exec('BEGIN EXCLUSIVE; CREATE TABLE t(x)');
         console.log('locked'); setTimeout(() => { db.exec('COMMIT'); db.close(); }, 1500);`,
        join(dataDir, 'sessions.db'),
      ],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const exited = new Promise((resolve) => holder.on('close', resolve));
    const store = SessionStore.open(dataDir);
    const s = store.createSession({ agent: 'build', title: 't', status: 'idle', model: 'm', cwd: '/p', depth: 0 });
    store.close();
    await exited;
    const db = openDb();
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.prepare('SELECT id FROM sessions').pluck().all()).toEqual([s.id]);
    db.close();
  });

  it('loses no message and hits no lock with 4 runs of 10 sub-agents each writing at once', async () => {
    const RUNS = 4;
    const CHILDREN = 10;
    const CHILD_STEPS = 3;
    server.setHandler((req): ScriptedReply => {
      const key = firstUserText(req);
      const n = req.body.messages.length;
      if (key.startsWith('hammer')) {
        if (n > 1) return text(`${key} done`);
        return {
          type: 'message',
          content: Array.from({ length: CHILDREN }, (_, i) => ({
            type: 'tool_use' as const,
            name: 'task',
            input: { description: `part ${i}`, prompt: `child of ${key} #${i}`, subagent_type: 'explore' },
          })),
        };
      }
      // A child: a few tool calls, then its report.
      return n < 2 * CHILD_STEPS + 1 ? toolUse('list', {}) : text(`report from ${key}`);
    });

    const runs = Array.from({ length: RUNS }, (_, k) => runCli(['run', '--format', 'json', `hammer ${k}`], { cwd: project, env }));
    const results = await Promise.all(runs);
    for (const r of results) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).not.toMatch(/locked|SQLITE_BUSY/i);
    }

    const db = openDb();
    const roots = db.prepare('SELECT id FROM sessions WHERE parent_id IS NULL').pluck().all() as string[];
    const children = db.prepare('SELECT id, status FROM sessions WHERE parent_id IS NOT NULL').all() as Array<{ id: string; status: string }>;
    const perSession = db.prepare('SELECT session_id, COUNT(*) AS n, MAX(seq) AS last FROM messages GROUP BY session_id').all() as Array<{
      session_id: string;
      n: number;
      last: number;
    }>;
    const total = db.prepare('SELECT COUNT(*) FROM messages').pluck().get() as number;
    const errors = db.prepare("SELECT COUNT(*) FROM messages WHERE content LIKE '%\"is_error\":true%'").pluck().get() as number;
    const leftLeases = db.prepare('SELECT COUNT(*) FROM leases').pluck().get() as number;
    db.close();

    const childMessages = 2 + 2 * CHILD_STEPS;
    expect(roots).toHaveLength(RUNS);
    expect(children).toHaveLength(RUNS * CHILDREN);
    expect(children.every((c) => c.status === 'completed')).toBe(true);
    expect(total).toBe(RUNS * (4 + CHILDREN * childMessages));
    expect(total).toBeGreaterThanOrEqual(300);
    const counts = new Map(perSession.map((s) => [s.session_id, s]));
    for (const id of roots) expect(counts.get(id)).toMatchObject({ n: 4, last: 3 });
    for (const c of children) expect(counts.get(c.id)).toMatchObject({ n: childMessages, last: childMessages - 1 });
    expect(errors).toBe(0);
    // Every process released its leases on the way out.
    expect(leftLeases).toBe(0);
  });

  it('gives one of two `run -s` on the same session the session and refuses the other with one line', async () => {
    const id = await sessionIdOf('start');
    let anyExited!: () => void;
    const firstExit = new Promise<void>((resolve) => (anyExited = resolve));
    let held = false;
    server.setHandler(async (req) => {
      // The first continuation is held until one of the two processes has ended, so both
      // are certainly running at once; without leases the second would answer and end.
      if (!held) {
        held = true;
        await Promise.race([firstExit, new Promise((resolve) => setTimeout(resolve, 20_000))]);
      }
      return text(`reply to ${lastUserText(req)}`);
    });
    const a = startCli(['run', '-s', id, 'from A'], { cwd: project, env });
    const b = startCli(['run', '-s', id, 'from B'], { cwd: project, env });
    const done = [a, b].map((p) => p.done.then((r) => (anyExited(), r)));
    const [ra, rb] = (await Promise.all(done)) as [CliResult, CliResult];

    const [winner, loser, winnerPid, winnerPrompt] = ra.code === 0 ? [ra, rb, a.child.pid!, 'from A'] : [rb, ra, b.child.pid!, 'from B'];
    expect([ra.code, rb.code].sort()).toEqual([0, 1]);
    expect(winner.stdout).toBe(`reply to ${winnerPrompt}\n`);
    expect(loser.stdout).toBe('');
    expect(loser.stderr).toBe(`Error: ${busyMessage(id, { pid: winnerPid, host: hostname() })}\n`);
    // One history, not two interleaved: start, its answer, the winner's prompt and answer.
    expect(roles(id)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const db = openDb();
    const texts = (db.prepare('SELECT content FROM messages WHERE session_id = ? ORDER BY seq').pluck().all(id) as string[]).join('\n');
    db.close();
    expect(texts).toContain(winnerPrompt);
    expect(texts).not.toContain(winnerPrompt === 'from A' ? 'from B' : 'from A');
  });

  it('takes over the lease of an owner killed with SIGKILL, and refuses while it lived', async () => {
    const id = await sessionIdOf('start');
    server.setHandler((req) => (lastUserText(req) === 'hold it' ? { type: 'stall' } : text('resumed')));
    const owner = startCli(['run', '-s', id, 'hold it'], { cwd: project, env });
    await server.waitForRequests(2, 15_000);
    const db = openDb();
    const lease = db.prepare('SELECT pid FROM leases WHERE session_id = ?').get(id) as { pid: number } | undefined;
    db.close();
    expect(lease?.pid).toBe(owner.child.pid);

    const refused = await runCli(['run', '-s', id, 'too early'], { cwd: project, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`Error: ${busyMessage(id, { pid: owner.child.pid!, host: hostname() })}\n`);

    owner.child.kill('SIGKILL');
    await owner.done;
    const resumed = await runCli(['run', '-s', id, 'after the crash'], { cwd: project, env });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('resumed\n');
    expect(lastUserText(server.requests.at(-1)!)).toContain('after the crash');
    expect(roles(id)).toEqual(['user', 'assistant', 'user', 'user', 'assistant']);
  });

  it('leaves its WAL to the exit instead of checkpointing it, and the next process reads all of it back', async () => {
    const walFile = join(env.OPENCODE_INK_DATA_DIR!, 'sessions.db-wal');
    const id = await sessionIdOf('remember the word heron');
    // The last connection's close would have copied the WAL into the database and removed it.
    expect(existsSync(walFile)).toBe(true);
    expect(statSync(walFile).size).toBeGreaterThan(0);
    const before = openDb();
    // Released at the exit all the same: the next process finds the session free.
    expect(before.prepare('SELECT COUNT(*) FROM leases').pluck().get()).toBe(0);
    before.close();

    server.setHandler((req) => text(`history: ${req.body.messages.length} messages`));
    const next = await runCli(['run', '-s', id, 'what was the word?'], { cwd: project, env });
    expect(next.stderr).toBe('');
    expect(next.code).toBe(0);
    // The first exchange, read back from the WAL, went with the second prompt.
    expect(next.stdout).toBe('history: 3 messages\n');
    expect(firstUserText(server.requests.at(-1)!)).toContain('remember the word heron');
    expect(roles(id)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('checkpoints at the exit once the WAL has grown past 2 MiB, so no later run pauses mid-way to do it', async () => {
    const walFile = join(env.OPENCODE_INK_DATA_DIR!, 'sessions.db-wal');
    const answer = 'x'.repeat(3 * 1024 * 1024);
    server.enqueue(text(answer));
    const big = await runCli(['run', 'answer at length'], { cwd: project, env });
    expect(big.code).toBe(0);
    expect(big.stdout.length).toBe(answer.length + 1);
    // The last connection's close copied the WAL into the database and removed it.
    expect(existsSync(walFile)).toBe(false);
    const db = openDb();
    const stored = db.prepare("SELECT length(content) FROM messages WHERE role = 'assistant'").pluck().get() as number;
    db.close();
    expect(stored).toBeGreaterThan(answer.length);
  });
});
