// What a container runner (DESIGN §25) adds to each command: `true` run in a sub-agent's
// container on a local Podman socket, sync both ways included, for an unchanged 5,000-file
// workspace; also the first copy-in (container create + start + copy of the workspace) and a
// command after one file changed here. Goal: ≤ 150 ms median per command. Then ten children
// at once, each in a container of its own on the same 5,000-file project: from the batch's start
// until every container is up and has run its first command (goal ≤ 5 s, 2 cores). Podman and the
// test image come from test/support/podman.ts (its own storage, runc); skipped where it cannot run.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runnerConfigSchema } from '../src/core/runner/config.js';
import { ContainerFleet } from '../src/core/runner/fleet.js';
import type { RemoteCommandRunner } from '../src/core/sandbox/index.js';
import { startPodman } from '../test/support/podman.js';
import { figure, fmt, median } from './support.js';

const RUNS = process.env.BENCH_QUICK ? 8 : 30;
const WARMUPS = 3;
const FILES = 5_000;
const BATCH = 10;

console.log('## Container runner overhead per command');
const podman = await startPodman();
if (typeof podman === 'string') {
  console.log(`Skipped: ${podman}.`);
} else {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'oci-bench-container-')));
  for (let i = 0; i < FILES; i++) {
    const folder = join(workspace, `src${i % 50}`, `sub${i % 7}`);
    if (i < 350) mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `file${i}.ts`), `export const value${i} = ${i};\n`);
  }
  const config = runnerConfigSchema().parse({ kind: 'docker', hosts: [podman.url], image: podman.image });
  const fleet = new ContainerFleet({ config, env: process.env, notice: (line) => console.log(line) });
  const once = async (runner: RemoteCommandRunner, command = 'true'): Promise<number> => {
    const start = performance.now();
    const running = await runner.run(command, { cwd: workspace, env: {}, signal: new AbortController().signal });
    const exit = await running.exited;
    const elapsed = performance.now() - start;
    if (exit.exitCode !== 0) throw new Error(`${command} failed in ${runner.description}: ${JSON.stringify(exit)}`);
    return elapsed;
  };
  try {
    const started = performance.now();
    const runner = await fleet.acquire('ses_bench', workspace);
    const firstCopy = performance.now() - started;
    for (let i = 0; i < WARMUPS; i++) await once(runner);
    const unchanged: number[] = [];
    for (let i = 0; i < RUNS; i++) unchanged.push(await once(runner));
    const oneChanged: number[] = [];
    for (let i = 0; i < Math.max(5, RUNS / 3); i++) {
      writeFileSync(join(workspace, 'src0', 'sub0', 'file0.ts'), `export const value0 = ${i};\n`);
      oneChanged.push(await once(runner, 'echo x > out.txt'));
    }
    const sorted = [...unchanged].sort((a, b) => a - b);
    console.log(`${FILES} files; ${RUNS} runs of \`true\` after ${WARMUPS} warm-ups.`);
    console.log('');
    console.log('| measure | median | min | max |');
    console.log('|---|---|---|---|');
    console.log(`| container up + first copy-in | ${fmt(firstCopy)} | | |`);
    console.log(`| \`true\`, workspace unchanged | ${fmt(median(unchanged))} | ${fmt(sorted[0]!)} | ${fmt(sorted.at(-1)!)} |`);
    console.log(`| one file changed here, the command writes one | ${fmt(median(oneChanged))} | ${fmt(Math.min(...oneChanged))} | ${fmt(Math.max(...oneChanged))} |`);
    figure('container.command', median(unchanged), 'ms');

    // Ten children at once: a fleet of their own, whose limit per host leaves room for all ten (and the container above) on the one host.
    const batchFleet = new ContainerFleet({
      config: runnerConfigSchema().parse({ kind: 'docker', hosts: [podman.url], image: podman.image, max_per_host: 2 * BATCH }),
      env: process.env,
      notice: (line) => console.log(line),
    });
    // This disk's pace at making files now, beside the batch: the base image writes the tree twice
    // (upload, commit), and on a disk without a journal that pace falls for minutes after a mass delete.
    const probe = mkdtempSync(join(tmpdir(), 'oci-bench-disk-'));
    const probeStart = performance.now();
    for (let i = 0; i < FILES; i++) {
      if (i % 100 === 0) mkdirSync(join(probe, `d${i / 100}`));
      writeFileSync(join(probe, `d${Math.floor(i / 100)}`, `f${i}`), 'x\n');
    }
    const diskPace = performance.now() - probeStart;
    try {
      const batchStart = performance.now();
      const each = await Promise.all(
        Array.from({ length: BATCH }, async (_, i) => {
          const child = await batchFleet.acquire(`ses_bench_batch_${i}`, workspace);
          await once(child);
          return performance.now() - batchStart;
        }),
      );
      const batch = Math.max(...each);
      console.log(`| ${BATCH} children at once, each its own container: all up and first command done | ${fmt(batch)} (first done at ${fmt(Math.min(...each))}) | | |`);
      figure('container.batch', batch, 'ms');
      console.log(`| this disk, just before: ${FILES} small files made in | ${fmt(diskPace)} | | |`);
    } finally {
      rmSync(probe, { recursive: true, force: true });
      await batchFleet.close();
    }
  } finally {
    await fleet.close();
    await podman.stop();
    rmSync(workspace, { recursive: true, force: true });
  }
}
