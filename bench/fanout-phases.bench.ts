// Fan-out phases: the fan-out bench's scenario (bench/fanout.bench.ts), timed from the fake
// server's side: process start → the parent's first request; its reply → the first child request;
// first → last child request; the last child reply → the parent's second request; its reply →
// the process gone. Medians of BENCH_RUNS warm runs, the CPU time's mean and the peak RSS's max.
// `BENCH_BIN` times another build; `BENCH_BIN_B` a second one, interleaved run by run (A/B).
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstUserText } from '../test/support/conversations.js';
import { FANOUT_CHILDREN, FANOUT_PROMPT, startFanOutServer } from './fanout-scenario.js';
import { BIN, cliEnv, median, tempProject } from './support.js';

const CHILDREN = FANOUT_CHILDREN;
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const ROOT_PROMPT = FANOUT_PROMPT;
const server = await startFanOutServer();

type Phases = Record<string, number>;

/** The run under GNU time: its peak RSS and its CPU time (user + system, 10 ms steps: compare means). */
function timed(bin: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ rssMb: number; cpuMs: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', '__TIME__ %M %U %S', process.execPath, bin, 'run', ROOT_PROMPT], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const m = /__TIME__ (\d+) ([\d.]+) ([\d.]+)/.exec(stderr);
      if (code !== 0 || !m) return reject(new Error(`run failed (${code}): ${stderr}`));
      resolve({ rssMb: Number(m[1]) / 1024, cpuMs: (Number(m[2]) + Number(m[3])) * 1000 });
    });
  });
}
async function once(bin: string, dir: string, project: string): Promise<Phases> {
  mkdirSync(join(dir, 'config'), { recursive: true });
  writeFileSync(join(dir, 'config', 'config.json'), JSON.stringify({ subagents: { max_concurrency: CHILDREN } }));
  const before = server.requests.length;
  const start = performance.timeOrigin + performance.now();
  const r = await timed(bin, project, cliEnv(dir, server.url));
  const end = performance.timeOrigin + performance.now();
  const reqs = server.requests.slice(before);
  const parents = reqs.filter((q) => firstUserText(q) === ROOT_PROMPT);
  const kids = reqs.filter((q) => firstUserText(q).startsWith('child '));
  const kidStart = kids.map((q) => q.receivedAt);
  const kidEnd = kids.map((q) => q.finishedAt ?? Number.NaN);
  return {
    wall: end - start,
    cpu: r.cpuMs,
    rss: r.rssMb,
    toFirstRequest: parents[0]!.receivedAt - start,
    firstReplyDone: parents[0]!.finishedAt! - parents[0]!.receivedAt,
    toFirstChild: Math.min(...kidStart) - parents[0]!.finishedAt!,
    spread: Math.max(...kidStart) - Math.min(...kidStart),
    lastChildDoneToParent: parents[1]!.receivedAt - Math.max(...kidEnd),
    toExit: end - parents[1]!.finishedAt!,
  };
}

const bins = [BIN, ...(process.env.BENCH_BIN_B ? [process.env.BENCH_BIN_B] : [])];
const samples = bins.map(() => [] as Phases[]);
const shared = bins.map(() => tempProject('oci-bench-fanphase-'));
for (let b = 0; b < bins.length; b++) await once(bins[b]!, shared[b]!.dir, shared[b]!.project);
for (let i = 0; i < RUNS; i++) {
  for (let b = 0; b < bins.length; b++) samples[b]!.push(await once(bins[b]!, shared[b]!.dir, shared[b]!.project));
}
for (const s of shared) rmSync(s.dir, { recursive: true, force: true });
await server.close();
for (let b = 0; b < bins.length; b++) {
  const keys = Object.keys(samples[b]![0]!);
  const mean = (k: string) => samples[b]!.reduce((sum, s) => sum + s[k]!, 0) / samples[b]!.length;
  console.log(`${bins[b]}: medians ${keys.map((k) => `${k} ${median(samples[b]!.map((s) => s[k]!)).toFixed(1)}`).join(', ')}; mean cpu ${mean('cpu').toFixed(1)}, max rss ${Math.max(...samples[b]!.map((s) => s.rss!)).toFixed(1)}`);
}
