// Store write throughput across processes: 1 and then 3 processes append messages to one
// data dir at the same time, one IMMEDIATE transaction per message (as the agent loop writes),
// each to its own session. Workers open the store first and start writing together on a
// signal, so process start-up is not counted. Reports messages/s, failures and a recount.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SessionStore } from '../src/core/store/index.js';
import { median, tempProject } from './support.js';

const PER_WORKER = 4_000;
const ROUNDS = 3;
const usage = { usage: { input_tokens: 120, output_tokens: 40, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, cost: 0.001 };

if (process.argv[2] === 'worker') {
  await worker(process.argv[3]!, Number(process.argv[4]));
} else {
  await main();
}

async function worker(dataDir: string, count: number): Promise<void> {
  const store = SessionStore.open(dataDir);
  const session = store.createSession({ agent: 'build', title: 'bench', status: 'running', model: 'anthropic/claude-sonnet-4-5', cwd: dataDir, depth: 0 });
  console.log('ready');
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  process.stdin.destroy();
  let failed = 0;
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    try {
      if (i % 2 === 0) store.appendMessage(session.id, { role: 'user', content: [{ type: 'text', text: `question ${i} `.repeat(8) }] });
      else store.appendMessage(session.id, { role: 'assistant', content: [{ type: 'text', text: `answer ${i} `.repeat(20) }] }, usage);
    } catch {
      failed++;
    }
  }
  const ms = performance.now() - start;
  store.close();
  console.log(JSON.stringify({ ms, failed }));
}

async function round(processes: number): Promise<{ wallMs: number; failed: number; stored: number }> {
  const { dir } = tempProject('oci-bench-store-write-');
  const dataDir = join(dir, 'data');
  // Created up front so the workers only race on writes here (opening races are tested elsewhere).
  SessionStore.open(dataDir).close();
  const children = Array.from({ length: processes }, () =>
    spawn(process.execPath, [process.argv[1]!, 'worker', dataDir, String(PER_WORKER)], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const lines = children.map((c) => createInterface({ input: c.stdout })[Symbol.asyncIterator]());
  for (const l of lines) await l.next();
  const start = performance.now();
  for (const c of children) c.stdin.end('go\n');
  const reports = await Promise.all(lines.map(async (l) => JSON.parse((await l.next()).value as string) as { ms: number; failed: number }));
  const wallMs = performance.now() - start;
  await Promise.all(children.map((c) => new Promise((resolve) => (c.exitCode !== null ? resolve(null) : c.on('close', resolve)))));
  const store = SessionStore.open(dataDir);
  const stored = store.listRoots().reduce((n, s) => n + store.messageRows(s.id).length, 0);
  store.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    wallMs,
    failed: reports.reduce((n, r) => n + r.failed, 0),
    stored,
  };
}

async function main(): Promise<void> {
  console.log(`## Store writes across processes (${PER_WORKER.toLocaleString('en')} messages per process, median of ${ROUNDS} rounds)`);
  console.log('| processes | messages | wall | throughput | failed writes (all rounds) | messages lost (all rounds) |');
  console.log('|---|---|---|---|---|---|');
  for (const processes of [1, 3]) {
    const rounds = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await round(processes));
    const total = processes * PER_WORKER;
    const wallMs = median(rounds.map((r) => r.wallMs));
    const failed = rounds.reduce((n, r) => n + r.failed, 0);
    const lost = rounds.reduce((n, r) => n + total - r.stored, 0);
    console.log(
      `| ${processes} | ${total.toLocaleString('en')} | ${(wallMs / 1000).toFixed(2)} s | ${Math.round((total * 1000) / wallMs).toLocaleString('en')} messages/s | ${failed} | ${lost} |`,
    );
  }
  console.log('');
}
