// Ten isolated writers (issue 36, DESIGN §17): ten sub-agents started together on a
// 5,000-file repository (packed, with an uncommitted change in the parent's tree), each
// writing one file, against ten writers in the parent's own tree. The isolated batch is the
// engine's worktree path without the model: ten `Workspaces.create` at once, one write each,
// ten `finish(merge)` at once, and the background work after the results (the folders'
// removal, or their move into the pool) — what a `run` waits for before it exits. Measured
// three ways: without a pool (`subagents.worktree.pool: 0`, every child checks out all 5,000
// files), with a pool on its first batch (empty: the same checkouts, then the trees are kept),
// and with a pool that earlier batches filled (each new `Workspaces` is a new process's view
// of the same data dir). `writers.added` is the last minus the non-isolated writers.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Workspaces } from '../src/core/workspace/worktree.js';
import { figure, fmt, median } from './support.js';

const FILES = 5_000;
const WRITERS = 10;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

const dir = mkdtempSync(join(tmpdir(), 'oci-bench-writers-'));
const project = join(dir, 'project');
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', ...args], { cwd, stdio: 'pipe' });
let batch = 0;

/** Ten children at once, one file each, merged back; resolves when all background work is done. */
async function isolated(data: string, pool: number): Promise<Batch> {
  const workspaces = new Workspaces(data);
  const round = ++batch;
  const start = performance.now();
  let created = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, i) => {
      const wt = await workspaces.create(project, `ses_writer${round}_${i}`, ['node_modules'], pool);
      created = Math.max(created, performance.now() - start);
      appendFileSync(join(wt.path, `src/d${i}/f${i}.ts`), `// writer ${round}\n`);
      const outcome = await workspaces.finish(wt, 'merge');
      if (outcome.state !== 'merged') throw new Error(`expected a merge, got ${JSON.stringify(outcome)}`);
    }),
  );
  const ready = performance.now() - start;
  await workspaces.settled();
  return { created, ready, total: performance.now() - start };
}

interface Batch {
  /** When the last of the ten worktrees was ready for its child. */
  created: number;
  /** When the last result (commit, merge back) was in. */
  ready: number;
  /** When the background work after the results was done too. */
  total: number;
}

async function inPlace(): Promise<number> {
  const round = ++batch;
  const start = performance.now();
  await Promise.all(Array.from({ length: WRITERS }, (_, i) => writeFile(join(project, `src/d${i}/f${i}.ts`), `export const value${i} = ${round};\n`)));
  return performance.now() - start;
}

try {
  mkdirSync(project);
  git(project, 'init', '-q');
  for (let i = 0; i < FILES; i++) {
    const folder = join(project, `src/d${i % 50}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `f${i}.ts`), `export const value${i} = ${i};\n// line two\n// line three\n`);
  }
  git(project, 'add', '-A');
  git(project, 'commit', '-qm', 'init');
  git(project, 'repack', '-adq');
  appendFileSync(join(project, 'src/d49/f49.ts'), '// uncommitted\n');

  const plain: number[] = [];
  const unpooled: Batch[] = [];
  const warm: Batch[] = [];
  const pooledData = join(dir, 'pooled', 'worktrees');
  execFileSync('sync');
  const cold = await isolated(pooledData, WRITERS);
  for (let run = 0; run <= RUNS; run++) {
    execFileSync('sync');
    const a = await inPlace();
    execFileSync('sync');
    const b = await isolated(join(dir, `unpooled-${run}`, 'worktrees'), 0);
    execFileSync('sync');
    const c = await isolated(pooledData, WRITERS);
    // The first round warms the file cache and git's code; it is not counted.
    if (run === 0) continue;
    plain.push(a);
    unpooled.push(b);
    warm.push(c);
  }
  const base = median(plain);
  const created = (xs: Batch[]) => median(xs.map((x) => x.created));
  const ready = (xs: Batch[]) => median(xs.map((x) => x.ready));
  const total = (xs: Batch[]) => median(xs.map((x) => x.total));
  console.log(`\n### Ten isolated writers, ${FILES} files, packed (median of ${RUNS}; pool: first batch once)\n`);
  console.log('| writers | ten worktrees ready | results ready (commit + merge back) | all done (what a run waits for) | added vs not isolated |');
  console.log('|---|---|---|---|---|');
  console.log(`| ten in the parent's tree | — | ${fmt(base)} | ${fmt(base)} | — |`);
  console.log(`| ten isolated, no pool (\`pool: 0\`) | ${fmt(created(unpooled))} | ${fmt(ready(unpooled))} | ${fmt(total(unpooled))} | +${fmt(total(unpooled) - base)} |`);
  console.log(`| ten isolated, pool empty (first batch) | ${fmt(cold.created)} | ${fmt(cold.ready)} | ${fmt(cold.total)} | +${fmt(cold.total - base)} |`);
  console.log(`| ten isolated, pool filled by earlier batches | ${fmt(created(warm))} | ${fmt(ready(warm))} | ${fmt(total(warm))} | +${fmt(total(warm) - base)} |`);
  figure('writers.added', total(warm) - base, 'ms');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
