// Shared helpers for the benchmarks: timing child processes, medians, temp projects.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: benches run bundled from .tmp/bench, so look upward for our package.json. */
export const REPO = findRepo(dirname(fileURLToPath(import.meta.url)));

function findRepo(from: string): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'opencode-ink') return dir;
  }
  throw new Error(`opencode-ink repository not found above ${from}`);
}
/** `BENCH_BIN` measures another build (e.g. the previous commit's) with the same benchmark. */
export const BIN = process.env.BENCH_BIN ?? join(REPO, 'bin', 'opencode-ink.js');

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Wall time in ms of a synchronous child process, `runs` times (after one warm-up), in baseEnv() unless told. */
export function timeSync(cmd: string, args: string[], runs: number, opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): number[] {
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const start = performance.now();
    const r = spawnSync(cmd, args, { cwd: opts.cwd, env: opts.env ?? baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const elapsed = performance.now() - start;
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr.toString()}`);
    if (i > 0) times.push(elapsed);
  }
  return times;
}

export interface TimedRun {
  wallMs: number;
  maxRssKb: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Process groups of runs with a deadline still going: killed if this bench ends first. */
const runningGroups = new Set<number>();
let watchingExit = false;

function killGroup(group: number): void {
  try {
    process.kill(-group, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function killRunningGroups(): void {
  for (const group of runningGroups) killGroup(group);
  runningGroups.clear();
}

/**
 * A run in its own process group does not get the terminal's Ctrl-C: when this bench is
 * interrupted, or ends on an error, its runs go with it.
 */
function killRunsWhenThisEnds(): void {
  if (watchingExit) return;
  watchingExit = true;
  process.once('exit', killRunningGroups);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killRunningGroups();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
}

/**
 * Runs a process under GNU time for wall time and peak RSS (of its largest process), without
 * blocking the event loop (the fake server lives in this process). With `deadlineMs`, a run
 * still going by then is killed with everything it started, and the promise rejects saying so:
 * for programs that are not ours (bench/peers.bench.ts), which may wait on something forever.
 */
export function timeAsync(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; deadlineMs?: number }): Promise<TimedRun> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const deadline = opts.deadlineMs;
    // Its own process group when it may have to be killed, so its children go with it.
    const child = spawn('/usr/bin/time', ['-f', '__TIME__ %M', cmd, ...args], { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], detached: deadline !== undefined });
    if (deadline !== undefined && child.pid !== undefined) {
      killRunsWhenThisEnds();
      runningGroups.add(child.pid);
    }
    let stdout = '';
    let stderr = '';
    let overdue = false;
    const timer =
      deadline === undefined
        ? undefined
        : setTimeout(() => {
            overdue = true;
            if (child.pid !== undefined) killGroup(child.pid);
          }, deadline);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (child.pid !== undefined) runningGroups.delete(child.pid);
      if (overdue) {
        reject(new Error(`${cmd} did not finish within ${deadline} ms and was killed; its output: ${(stdout + stderr).slice(-500)}`));
        return;
      }
      const wallMs = performance.now() - start;
      const m = /__TIME__ (\d+)/.exec(stderr);
      resolve({ wallMs, maxRssKb: m ? Number(m[1]) : Number.NaN, code, stdout, stderr: stderr.replace(/__TIME__ \d+\n?/, '') });
    });
  });
}

export function tempProject(prefix: string): { dir: string; project: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const project = join(dir, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  return { dir, project };
}

/**
 * The environment every timed process starts with, bare `node -e 0` included, so that ratios
 * compare like with like: PATH, and NODE_EXTRA_CA_CERTS when this machine sets it (Node then
 * reads and parses that certificate file at every start: ~30 ms here, before any of our code).
 * `withCaCerts: false` drops it, for the figures without that cost.
 */
export function baseEnv(withCaCerts = true): NodeJS.ProcessEnv {
  const certs = process.env.NODE_EXTRA_CA_CERTS;
  return { PATH: process.env.PATH, ...(withCaCerts && certs ? { NODE_EXTRA_CA_CERTS: certs } : {}) };
}

/** Whether this machine sets NODE_EXTRA_CA_CERTS (see baseEnv). */
export const MACHINE_SETS_CA_CERTS = Boolean(process.env.NODE_EXTRA_CA_CERTS);

export function cliEnv(dir: string, serverUrl: string, withCaCerts = true): NodeJS.ProcessEnv {
  return {
    ...baseEnv(withCaCerts),
    HOME: dir,
    OPENCODE_INK_CONFIG_DIR: join(dir, 'config'),
    OPENCODE_INK_DATA_DIR: join(dir, 'data'),
    ANTHROPIC_API_KEY: 'bench',
    ANTHROPIC_BASE_URL: serverUrl,
  };
}

export const fmt = (ms: number) => `${ms.toFixed(0)} ms`;

/**
 * One figure for the summary of `node bench/run.mjs all` (bench/figures.mjs names each one's
 * goal): printed as a line the runner picks out of the output, `@figure {"id",...}`. A `ratio`
 * (ours against a peer's, bench/peers.bench.ts) keeps two decimals: its goals are stated so.
 * `nodeMs`: the bare `node -e 0` the bench timed interleaved with this figure, by the same
 * method; the summary then takes the figure's ratio against it rather than against the
 * runner's own `node -e 0` (timed minutes apart, under another load).
 */
export function figure(id: string, value: number, unit: 'ms' | 'MB' | 'ratio', nodeMs?: number): void {
  const rounded = unit === 'ratio' ? Math.round(value * 100) / 100 : Math.round(value * 10) / 10;
  console.log(`@figure ${JSON.stringify({ id, value: rounded, unit, ...(nodeMs === undefined ? {} : { nodeMs: Math.round(nodeMs * 10) / 10 }) })}`);
}
