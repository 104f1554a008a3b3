// `npm run bench`: bundles each bench/*.bench.ts with esbuild (they import the TypeScript
// fake server and store directly) and runs them one after another in fresh processes.
// Results are printed as markdown; copy them into bench/RESULTS.md with the date.
//
// `node bench/run.mjs [--quick] all` runs the benches of issue 36's table (bench/figures.mjs)
// and ends with that table: each figure beside its goal and its ratio to the machine's bare
// `node -e 0` (the one its bench timed interleaved with it where it did, else the one timed
// here, before and after, in the same environment as the benches), then
// one line to append to bench/RESULTS.md's "Runs" table, so a regression shows at once.
// `--quick` repeats each measurement fewer times (BENCH_RUNS=3): a rough reading in about a
// minute or two instead of several. Build first (`npm run build`): the benches run dist/.
import { build } from 'esbuild';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_BENCHES, FIGURES } from './figures.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', '.tmp', 'bench');
mkdirSync(out, { recursive: true });
const quick = process.argv.includes('--quick');
const words = process.argv.slice(2).filter((a) => a !== '--quick');
const all = words.includes('all');
const only = all ? ALL_BENCHES : words;
const available = readdirSync(here).filter((f) => f.endsWith('.bench.ts'));
const benches = all
  ? ALL_BENCHES.map((name) => `${name}.bench.ts`).filter((f) => available.includes(f))
  : available.filter((f) => only.length === 0 || only.some((o) => f.includes(o)));

/** The machine's bare Node start, as the benches time it (bench/support.ts baseEnv). */
function nodeStartMs(runs) {
  const env = { PATH: process.env.PATH, ...(process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}) };
  const times = [];
  for (let i = 0; i <= runs; i++) {
    const start = performance.now();
    spawnSync(process.execPath, ['-e', '0'], { env, stdio: 'ignore' });
    if (i > 0) times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Runs one bundled bench, passing its output through except the `@figure` lines, which it returns. */
function runBench(outfile, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [outfile], { stdio: ['ignore', 'pipe', 'inherit'], env });
    const figures = [];
    let pending = '';
    child.stdout.on('data', (chunk) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) {
        if (line.startsWith('@figure ')) figures.push(JSON.parse(line.slice('@figure '.length)));
        else process.stdout.write(`${line}\n`);
      }
    });
    child.on('close', (code) => {
      if (pending) process.stdout.write(pending);
      resolve({ code, figures });
    });
  });
}

const started = new Date();
const nodeBefore = all ? nodeStartMs(quick ? 5 : 15) : undefined;
const loadBefore = loadAverage();
const figures = new Map();
const failed = [];
for (const file of benches) {
  const outfile = join(out, file.replace(/\.ts$/, '.mjs'));
  await build({
    entryPoints: [join(here, file)],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  // Bundled with packages external: React picks its production build from the environment.
  // Colours on, as in a real terminal: styled text costs Ink noticeably more to draw.
  const env = { ...process.env, NODE_ENV: 'production', FORCE_COLOR: process.env.FORCE_COLOR ?? '2', ...(quick ? { BENCH_RUNS: '3', BENCH_QUICK: '1' } : {}) };
  const result = await runBench(outfile, env);
  for (const f of result.figures) figures.set(f.id, f);
  if (result.code !== 0) {
    failed.push(file);
    process.exitCode = 1;
  }
}

if (all) {
  const nodeAfter = nodeStartMs(quick ? 5 : 15);
  const node = (nodeBefore + nodeAfter) / 2;
  const loadAfter = loadAverage();
  const show = (f) => (f.unit === 'ms' ? `${Math.round(f.value)} ms` : f.unit === 'ratio' ? `${f.value.toFixed(2)}×` : `${f.value.toFixed(1)} MB`);
  console.log(`## Issue 36's figures${quick ? ' (--quick: fewer repetitions, rougher)' : ''}`);
  console.log(`\`node -e 0\`: ${Math.round(nodeBefore)} ms before, ${Math.round(nodeAfter)} ms after; load average ${loadBefore} before, ${loadAfter} after; ${cpus().length} cores.\n`);
  console.log('| figure | now | × `node -e 0` | goal | met |');
  console.log('|---|---|---|---|---|');
  const cells = [];
  for (const def of FIGURES) {
    const f = figures.get(def.id);
    if (!f) {
      console.log(`| ${def.name} | not measured | | ${def.goalText} | — |`);
      continue;
    }
    // Against the `node -e 0` the bench timed beside the figure when it did (same load, same method).
    const ratio = f.unit === 'ms' ? f.value / (f.nodeMs ?? node) : undefined;
    const checked = def.goal ? (def.goal.perNode ? ratio : f.value) : undefined;
    const met = def.goal && checked !== undefined ? (checked <= def.goal.max ? 'yes' : '**no**') : '';
    const beside = f.nodeMs === undefined ? '' : ` (node ${Math.round(f.nodeMs)} ms beside it)`;
    console.log(`| ${def.name} | ${show(f)} | ${ratio === undefined ? '' : `${ratio.toFixed(2)}×${beside}`} | ${def.goalText} | ${met} |`);
    cells.push(`${def.id} ${show(f)}${ratio === undefined ? '' : ` (${ratio.toFixed(2)}×)`}${met === '**no**' ? ' ✗' : ''}`);
  }
  if (failed.length) console.log(`\nFailed: ${failed.join(', ')} (their figures are missing above).`);
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: here, encoding: 'utf8' }).stdout.trim();
  console.log('\nLine for the "Runs" table of bench/RESULTS.md:\n');
  console.log(
    `| ${started.toISOString().slice(0, 16).replace('T', ' ')} | ${commit}${quick ? ' (quick)' : ''} | ${Math.round(node)} ms | ${loadBefore.split(' ')[0]}–${loadAfter.split(' ')[0]} | ${cells.join('; ')} |`,
  );
}
