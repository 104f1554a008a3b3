// Snapshot cost (DESIGN §18): a 5,000-file project, snapshotted into its shadow repository
// with no change since the last snapshot, and with 100 files changed; and what watching one
// `bash` call of a sub-agent adds (a snapshot before, one after, the paths that differ, for a
// command that changed one file). Median of 7 after one
// warm-up; the target for "no change" is under 100 ms. Besides wall time, the CPU time of the
// git processes (their user + system time, from /proc/self/stat) is given: on a shared,
// overloaded machine it is the figure that says what a snapshot costs.
import { readFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ShadowRepo } from '../src/core/checkpoints/index.js';
import { figure, median } from './support.js';

const FILES = 5_000;
const CHANGED = 100;
const RUNS = Number(process.env.BENCH_RUNS ?? 7);

/** CPU milliseconds used by this process's finished children (Linux; 0 elsewhere). */
function childCpuMs(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    // Fields 16 and 17 of the whole line (cutime, cstime), in clock ticks of 10 ms.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return 0;
  }
}

// git spawned by this process, not by the relay shell (src/core/process-relay.ts): only then are
// the git processes this process's children, whose CPU /proc/self/stat counts. In a process this
// small the two start git at the same speed (bench/RESULTS.md, 2026-11-29 01:10).
process.env.OPENCODE_INK_PROCESS_RELAY ??= '0';

const dir = mkdtempSync(join(tmpdir(), 'oci-bench-snapshot-'));
const project = join(dir, 'project');

try {
  for (let i = 0; i < FILES; i++) {
    const folder = join(project, `src/d${i % 50}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `f${i}.ts`), `export const value${i} = ${i};\n// line two\n// line three\n`);
  }
  const repo = new ShadowRepo({ root: join(dir, 'data', 'snapshots'), project, maxFileMb: 5 });
  let start = performance.now();
  await repo.snapshot();
  const first = performance.now() - start;

  const unchanged: number[] = [];
  const changed: number[] = [];
  const unchangedCpu: number[] = [];
  const changedCpu: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    start = performance.now();
    let cpu = childCpuMs();
    await repo.snapshot();
    const none = performance.now() - start;
    const noneCpu = childCpuMs() - cpu;
    for (let i = 0; i < CHANGED; i++) writeFileSync(join(project, `src/d${i % 50}/f${i}.ts`), `export const value${i} = ${run};\n`);
    start = performance.now();
    cpu = childCpuMs();
    await repo.snapshot();
    const some = performance.now() - start;
    const someCpu = childCpuMs() - cpu;
    if (run === 0) continue;
    unchanged.push(none);
    changed.push(some);
    unchangedCpu.push(noneCpu);
    changedCpu.push(someCpu);
  }
  const watched: number[] = [];
  const watchedCpu: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    start = performance.now();
    const cpu = childCpuMs();
    const before = await repo.snapshot();
    writeFileSync(join(project, 'src/d0/f0.ts'), `export const watched = ${run};\n`);
    const after = await repo.snapshot();
    await repo.changes(before!, after!);
    if (run === 0) continue;
    watched.push(performance.now() - start);
    watchedCpu.push(childCpuMs() - cpu);
  }
  console.log(`\n### Snapshots, ${FILES} files (median of ${RUNS})\n`);
  console.log('| measure | wall time | git CPU time |');
  console.log('|---|---|---|');
  console.log(`| first snapshot (empty shadow repository) | ${Math.round(first)} ms | |`);
  figure('snapshot.unchanged', median(unchanged), 'ms');
  console.log(`| no change | ${Math.round(median(unchanged))} ms | ${Math.round(median(unchangedCpu))} ms |`);
  console.log(`| ${CHANGED} files changed | ${Math.round(median(changed))} ms | ${Math.round(median(changedCpu))} ms |`);
  console.log(`| one watched command (before, after, changed paths) | ${Math.round(median(watched))} ms | ${Math.round(median(watchedCpu))} ms |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
