// One-reply `run`, this build against another one, interleaved: `BENCH_BASE_BIN=<other
// checkout>/bin/opencode-ink.js node bench/run.mjs run-ab`. Each round times bare `node -e 0`,
// then both builds (in alternating order), so all three see the same load on a shared machine.
// Reported: median wall time and median CPU time (user + system of the whole process, from
// GNU time, 10 ms resolution), each beside `node -e 0`'s, and median peak RSS (GNU time's %M). Each build has its own data dir,
// so neither removes the other's code cache. Without BENCH_BASE_BIN it says so and does nothing.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeServer, text } from '../test/support/fake-anthropic.js';
import { BIN, baseEnv, cliEnv, fmt, median, tempProject } from './support.js';

const base = process.env.BENCH_BASE_BIN;
if (!base) {
  console.log('run-ab: set BENCH_BASE_BIN to the other build\'s bin/opencode-ink.js to compare against it.');
  process.exit(0);
}
const RUNS = Math.max(15, Number(process.env.BENCH_RUNS ?? 21));
const server = await startFakeServer();
server.setHandler(() => text('ok'));
const { dir, project } = tempProject('oci-bench-ab-');
const builds = [
  { name: `base (${base})`, bin: base, env: cliEnv(join(dir, 'base'), server.url) },
  { name: `this build (${BIN})`, bin: BIN, env: cliEnv(join(dir, 'this'), server.url) },
];

/** Wall and CPU milliseconds of one Node process, under GNU time, without blocking the fake server in this process. */
function timed(args: string[], env: NodeJS.ProcessEnv): Promise<{ wall: number; cpu: number; rss: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '__CPU %U %S %M', process.execPath, ...args], { cwd: project, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = performance.now() - start;
      const m = /__CPU ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
      if (code !== 0 || !m) return reject(new Error(`${args.join(' ')} failed (${code}): ${stderr}`));
      resolve({ wall, cpu: (Number(m[1]) + Number(m[2])) * 1000, rss: Number(m[3]) / 1024 });
    });
  });
}

const node: { wall: number; cpu: number; rss: number }[] = [];
const runs = builds.map(() => [] as { wall: number; cpu: number; rss: number }[]);
for (let i = 0; i <= RUNS; i++) {
  const n = await timed(['-e', '0'], baseEnv());
  const order = i % 2 ? [1, 0] : [0, 1];
  const round: { wall: number; cpu: number; rss: number }[] = [];
  for (const j of order) round[j] = await timed([builds[j]!.bin, 'run', 'say ok'], builds[j]!.env);
  // The first round writes each build's code cache: not counted.
  if (i === 0) continue;
  node.push(n);
  round.forEach((r, j) => runs[j]!.push(r));
}
const nodeWall = median(node.map((n) => n.wall));
const nodeCpu = median(node.map((n) => n.cpu));
console.log(`## One-reply \`run\`, A/B interleaved, median of ${RUNS} rounds`);
console.log('| build | wall | × `node -e 0` | CPU | × `node -e 0` | peak RSS |');
console.log('|---|---|---|---|---|---|');
console.log(`| \`node -e 0\` | ${fmt(nodeWall)} | 1.00 | ${fmt(nodeCpu)} | 1.00 | ${median(node.map((n) => n.rss)).toFixed(1)} MB |`);
builds.forEach((b, j) => {
  const wall = median(runs[j]!.map((r) => r.wall));
  const cpu = median(runs[j]!.map((r) => r.cpu));
  const rss = median(runs[j]!.map((r) => r.rss));
  console.log(`| ${b.name} | ${fmt(wall)} | ${(wall / nodeWall).toFixed(2)} | ${fmt(cpu)} | ${(cpu / nodeCpu).toFixed(2)} | ${rss.toFixed(1)} MB |`);
});
await server.close();
rmSync(dir, { recursive: true, force: true });
