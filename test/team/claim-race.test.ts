// `task_list claim` is atomic across processes sharing one data dir (DESIGN §24): ten real
// Node processes, each with its own connection to the same sessions.db, claim at the same
// moment, and the list ends with exactly one owner per task. Each process runs the store's
// real code, bundled from the sources for this test.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/core/store/index.js';
import type { TaskResult } from '../../src/core/team/index.js';
import { REPO_ROOT } from '../support/repo-root.js';

const CLAIMER = `
import { SessionStore } from './src/core/store/index.ts';
const [dataDir, rootId, sessionId, taskId] = process.argv.slice(2);
const store = SessionStore.open(dataDir);
const actor = { sessionId, name: sessionId };
process.stdout.write('ready\\n');
process.stdin.once('data', (line) => {
  // Every process starts at the same instant, given by the test, to the millisecond.
  const at = Number(String(line).trim());
  while (Date.now() < at);
  if (taskId === 'hold') {
    // Works on task 1 as a running session of this process, until it is killed.
    store.updateSession(sessionId, { status: 'running' });
    process.stdout.write(JSON.stringify(store.teamTasks.claim(rootId, actor, '1')) + '\\n');
    setInterval(() => {}, 1000);
    return;
  }
  if (taskId !== 'all') {
    process.stdout.write(JSON.stringify(store.teamTasks.claim(rootId, actor, taskId === '-' ? undefined : taskId)) + '\\n');
  } else {
    // Claims "the next free task" until none is left: as many claims as possible racing each other.
    const won = [];
    for (;;) {
      const result = store.teamTasks.claim(rootId, actor);
      if (!result.ok) break;
      won.push(result.task.id);
    }
    process.stdout.write(JSON.stringify(won) + '\\n');
  }
  store.close();
  process.exit(0);
});
`;

let dir: string;
let claimer: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'oci-claim-race-'));
  claimer = join(dir, 'claimer.mjs');
  const betterSqlite = createRequire(join(REPO_ROOT, 'package.json')).resolve('better-sqlite3');
  await build({
    stdin: { contents: CLAIMER, resolveDir: REPO_ROOT, loader: 'ts', sourcefile: 'claimer.ts' },
    outfile: claimer,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    plugins: [
      {
        // The native module stays outside the bundle, loaded from the repository's node_modules.
        name: 'native-sqlite',
        setup(b) {
          b.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: betterSqlite, external: true }));
        },
      },
    ],
  });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Claimer {
  sessionId: string;
  child: ChildProcessWithoutNullStreams;
  lines: AsyncIterator<string>;
}

function startClaimer(dataDir: string, rootId: string, sessionId: string, taskId: string | undefined): Claimer {
  const child = spawn(process.execPath, [claimer, dataDir, rootId, sessionId, taskId ?? '-'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.on('exit', (code) => {
    if (code !== 0 && code !== null) console.error(`claimer ${sessionId} exited ${code}: ${stderr}`);
  });
  return { sessionId, child, lines: createInterface({ input: child.stdout })[Symbol.asyncIterator]() };
}

async function nextLine(claimer: Claimer): Promise<string> {
  const line = await claimer.lines.next();
  if (line.done) throw new Error(`claimer ${claimer.sessionId} ended without answering`);
  return line.value;
}

/**
 * Ten processes, each opened on the store and ready; then all claim at one instant: `taskId`,
 * the next free task (undefined), or, with `all`, the next free task again and again until
 * none is left (what each won is its answer).
 */
async function claimAtOnce<T = TaskResult>(dataDir: string, rootId: string, sessionIds: readonly string[], taskId: string | undefined): Promise<Array<{ sessionId: string; result: T }>> {
  const claimers = sessionIds.map((id) => startClaimer(dataDir, rootId, id, taskId));
  for (const c of claimers) expect(await nextLine(c)).toBe('ready');
  const at = Date.now() + 200;
  for (const c of claimers) c.child.stdin.write(`${at}\n`);
  return Promise.all(claimers.map(async (c) => ({ sessionId: c.sessionId, result: JSON.parse(await nextLine(c)) as T })));
}

function team(dataDir: string, members: number): { store: SessionStore; rootId: string; memberIds: string[] } {
  const store = SessionStore.open(dataDir);
  const root = store.createSession({ agent: 'build', title: 'lead', status: 'idle', model: 'anthropic/claude-sonnet-4-5', cwd: dir, depth: 0 });
  const memberIds = Array.from(
    { length: members },
    (_, i) => store.createSession({ agent: 'general', title: `member ${i}`, status: 'running', model: 'anthropic/claude-sonnet-4-5', cwd: dir, depth: 1, parent_id: root.id }).id,
  );
  return { store, rootId: root.id, memberIds };
}

describe('claim across processes', () => {
  it('ten processes claim task 1 at the same moment: exactly one owns it, the nine others are told who does', async () => {
    const dataDir = join(dir, 'one-task');
    const { store, rootId, memberIds } = team(dataDir, 10);
    store.teamTasks.create(rootId, { sessionId: rootId, name: 'lead' }, { title: 'Cut the release branch' });

    const outcomes = await claimAtOnce(dataDir, rootId, memberIds, '1');
    const winners = outcomes.filter((o) => o.result.ok);
    expect(winners).toHaveLength(1);
    const winner = winners[0]!.sessionId;
    for (const { result } of outcomes.filter((o) => !o.result.ok)) {
      expect(result).toEqual({ ok: false, error: `Task 1 is already claimed by ${winner}; claim another task or ask them.` });
    }
    expect(store.teamTasks.get(rootId, '1')).toMatchObject({ status: 'in_progress', owner: winner, owner_session_id: winner });
    store.close();
  });

  it('ten processes each claim "the next free task" of three: three distinct winners, no task owned twice', async () => {
    const dataDir = join(dir, 'three-tasks');
    const { store, rootId, memberIds } = team(dataDir, 10);
    for (const title of ['Lint', 'Test', 'Package']) store.teamTasks.create(rootId, { sessionId: rootId, name: 'lead' }, { title });

    const outcomes = await claimAtOnce(dataDir, rootId, memberIds, undefined);
    const won = outcomes.flatMap((o) => (o.result.ok ? [{ sessionId: o.sessionId, task: o.result.task.id }] : []));
    expect(won.map((w) => w.task).sort()).toEqual(['1', '2', '3']);
    expect(new Set(won.map((w) => w.sessionId)).size).toBe(3);
    for (const { result } of outcomes.filter((o) => !o.result.ok)) expect(result).toEqual({ ok: false, error: 'No task is pending: 3 in progress, 0 completed.' });
    for (const { sessionId, task } of won) expect(store.teamTasks.get(rootId, task)).toMatchObject({ status: 'in_progress', owner_session_id: sessionId });
    store.close();
  });

  it('ten processes claim the next free task over and over from a list of 200: every task won exactly once', async () => {
    const dataDir = join(dir, 'many-tasks');
    const { store, rootId, memberIds } = team(dataDir, 10);
    const ids = Array.from({ length: 200 }, (_, i) => String(i + 1));
    for (const id of ids) store.teamTasks.create(rootId, { sessionId: rootId, name: 'lead' }, { title: `Shard ${id}` });

    const outcomes = await claimAtOnce<string[]>(dataDir, rootId, memberIds, 'all');
    const won = outcomes.flatMap((o) => o.result);
    expect(won).toHaveLength(200);
    expect(new Set(won).size).toBe(200);
    for (const { sessionId, result } of outcomes) {
      for (const id of result) expect(store.teamTasks.get(rootId, id)!.owner_session_id).toBe(sessionId);
    }
    store.close();
  });

  it('a process killed with -9 while holding a task: the next start marks its session interrupted and the task is pending again', async () => {
    const dataDir = join(dir, 'killed');
    const { store, rootId, memberIds } = team(dataDir, 1);
    store.teamTasks.create(rootId, { sessionId: rootId, name: 'lead' }, { title: 'Rebuild the index' });
    // The team's sessions are this store's until it closes; the holder's process takes one over.
    store.close();

    const holder = startClaimer(dataDir, rootId, memberIds[0]!, 'hold');
    expect(await nextLine(holder)).toBe('ready');
    holder.child.stdin.write(`${Date.now()}\n`);
    expect(JSON.parse(await nextLine(holder))).toMatchObject({ ok: true, task: { id: '1', status: 'in_progress', owner_session_id: memberIds[0] } });
    const gone = new Promise((resolve) => holder.child.once('exit', resolve));
    holder.child.kill('SIGKILL');
    await gone;

    // What every start does first (project-context.ts openProject).
    const next = SessionStore.open(dataDir);
    expect(next.markInterrupted()).toEqual([memberIds[0]]);
    expect(next.teamTasks.get(rootId, '1')).toMatchObject({ status: 'pending', owner: null, owner_session_id: null });
    next.close();
  });
});
