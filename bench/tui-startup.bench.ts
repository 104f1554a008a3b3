// Time to the TUI's first frame in a real terminal (tmux), beside bare `node` measured the
// same way: launch in a fresh tmux pane and poll the screen until the expected text.
//
// The TUI counts as drawn when its header, prompt and status line are all on screen: the
// first frame Ink writes has all three, so a partial or placeholder screen cannot pass.
// The app also records when it reached each start-up milestone (OPENCODE_INK_TRACE_STARTUP),
// which gives where the time goes inside the process.
//
// The UI's code runs from a script compiled with a V8 code cache that the first start writes
// (src/boot): "warm" starts have it; "first" starts (the first after installing or upgrading)
// have their cache folder removed before they start, and compile from the cache the build
// left in dist/cache; "cold" ones have that hidden too and compile from scratch.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, REPO, cliEnv, fmt, median, tempProject } from './support.js';

const SOCKET = `oci-bench-${process.pid}`;
const RUNS = Number(process.env.BENCH_RUNS ?? 9);

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
}

/** Starts `command` in a new window and returns ms until every marker is on screen (then waits for `until`, if given, before closing it). */
function timeToScreen(command: string, markers: string[], until?: () => boolean): number {
  const start = performance.now();
  tmux('new-window', '-d', '-t', 'bench', '-n', 'run', command);
  try {
    for (;;) {
      const screen = tmux('capture-pane', '-p', '-t', 'bench:run');
      if (markers.every((m) => screen.includes(m))) {
        const elapsed = performance.now() - start;
        while (until && !until() && performance.now() - start < 10_000) execFileSync('sleep', ['0.05']);
        return elapsed;
      }
      if (performance.now() - start > 20_000) throw new Error(`${markers.join(', ')} never appeared; screen:\n${screen}`);
    }
  } finally {
    tmux('kill-window', '-t', 'bench:run');
  }
}

try {
  execFileSync('tmux', ['-V']);
} catch {
  console.log('## TUI first frame\n\ntmux is not installed; skipped.\n');
  process.exit(0);
}

const { dir, project } = tempProject('oci-bench-tui-');
const trace = join(dir, 'startup-trace.jsonl');
const coldTrace = join(dir, 'startup-trace-cold.jsonl');
const env = cliEnv(dir, 'http://127.0.0.1:9');
const cacheDir = join(env.OPENCODE_INK_DATA_DIR!, 'cache');
const envPrefix = (traceFile: string) =>
  Object.entries({ ...env, OPENCODE_INK_TRACE_STARTUP: traceFile })
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
// The header (`build · New session`), the prompt and the status line (agent · model).
const TUI_MARKERS = ['build · New session', 'Ask anything', 'build · claude-'];
const bareCommand = `node -e "console.log('ready')"; sleep 5`;
const tuiCommand = (traceFile: string) => `cd ${project} && env ${envPrefix(traceFile)} node ${BIN}; sleep 5`;
const cacheFiles = () => (existsSync(cacheDir) ? readdirSync(cacheDir).map((f) => join(cacheDir, f)) : []);
try {
  // One server for the whole run, kept alive by a session that outlives every pane: killing
  // the last session stops the server, and a new one started at once sometimes fails with
  // "server exited unexpectedly".
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'bench', '-x', '100', '-y', '30', 'sleep 3600');
  tmux('set-option', '-g', 'exit-empty', 'off');
  const bare: number[] = [];
  const warm: number[] = [];
  const first: number[] = [];
  const cold: number[] = [];
  const firstTrace = join(dir, 'startup-trace-first.jsonl');
  // Warm-up: the file cache, the database, and the code cache (written after the first frame).
  timeToScreen(bareCommand, ['ready']);
  timeToScreen(tuiCommand(trace), TUI_MARKERS, () => cacheFiles().length > 0);
  rmSync(trace, { force: true });
  const cached = cacheFiles();
  const cachedAt = cached.map((f) => statSync(f).mtimeMs);
  for (let i = 0; i < RUNS; i++) {
    bare.push(timeToScreen(bareCommand, ['ready']));
    warm.push(timeToScreen(tuiCommand(trace), TUI_MARKERS));
  }
  // A warm start that rejected the cache would have rewritten it.
  const cacheKept = cached.length === 1 && cacheFiles().length === 1 && statSync(cached[0]!).mtimeMs === cachedAt[0];
  const userCacheless = (into: number[], traceFile: string) => {
    for (let i = 0; i < RUNS; i++) {
      bare.push(timeToScreen(bareCommand, ['ready']));
      // The last start may still be writing its cache as it exits.
      execFileSync('sleep', ['0.3']);
      rmSync(cacheDir, { recursive: true, force: true });
      into.push(timeToScreen(tuiCommand(traceFile), TUI_MARKERS));
    }
  };
  userCacheless(first, firstTrace);
  // The build's cache, hidden for the cold starts and put back whatever happens.
  const seeds = join(REPO, 'dist', 'cache');
  const hidden = `${seeds}.hidden-by-bench`;
  const hide = existsSync(seeds);
  if (hide) renameSync(seeds, hidden);
  try {
    userCacheless(cold, coldTrace);
  } finally {
    if (hide) renameSync(hidden, seeds);
  }
  const b = median(bare);
  const w = median(warm);
  const f = median(first);
  const c = median(cold);
  console.log(`## TUI first frame (tmux 100×30, median of ${RUNS})`);
  console.log('');
  console.log('| command | time to text on screen |');
  console.log('|---|---|');
  console.log(`| node -e "console.log('ready')" | ${fmt(b)} |`);
  console.log(`| opencode-ink, warm code cache (first frame: header, prompt, status line) | ${fmt(w)} (**${(w / b).toFixed(2)}×**) |`);
  console.log(`| opencode-ink, first start after installing (no cache of the user's yet; the build's, dist/cache) | ${fmt(f)} (**${(f / b).toFixed(2)}×**) |`);
  console.log(`| opencode-ink, cold (no code cache at all) | ${fmt(c)} (**${(c / b).toFixed(2)}×**) |`);
  console.log('');
  if (!cacheKept) console.log('**The code cache was not kept across the warm starts: they compiled from scratch.**\n');
  const cacheUse = (file: string, mark: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l.includes(`"${mark}"`)).length : 0);
  console.log(`Code cache used by ${cacheUse(trace, 'boot:code-cache-used')} of ${RUNS} warm starts; the build's by ${cacheUse(firstTrace, 'boot:code-cache-seeded')} of ${RUNS} first starts; any by ${cacheUse(coldTrace, 'boot:code-cache-used') + cacheUse(coldTrace, 'boot:code-cache-seeded')} of ${RUNS} cold ones.\n`);
  if (existsSync(trace)) printPhases('warm', readFileSync(trace, 'utf8'));
  if (existsSync(firstTrace)) printPhases('first start after installing', readFileSync(firstTrace, 'utf8'));
  if (existsSync(coldTrace)) printPhases('cold', readFileSync(coldTrace, 'utf8'));
} finally {
  try {
    tmux('kill-server');
  } catch {
    // no server left
  }
  // An app closed a moment ago may still be writing its code cache.
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}

/** Median time of each start-up phase, from the milestones the app recorded (ms since process start). */
function printPhases(label: string, jsonl: string): void {
  const runs = jsonl
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, number>);
  const phases: [string, string | undefined, string][] = [
    ['Node start-up, CLI and core code loaded', undefined, 'cli:loaded'],
    ['… of which Node start-up and loading dist/boot.cjs', undefined, 'boot:start'],
    ['… of which reading and compiling dist/tui.js', 'boot:start', 'boot:compiled'],
    ['… of which running the CLI and core code', 'boot:compiled', 'cli:loaded'],
    ['argument parsing', 'cli:loaded', 'cli:main'],
    ['UI code loaded (React, Ink, Yoga)', 'cli:main', 'ui:loaded'],
    ['config, agents, commands, SQLite store', 'tui:start', 'tui:context'],
    ['engine and session', 'tui:context', 'tui:session'],
    ['first render (React + Ink)', 'tui:session', 'tui:first-frame'],
    ['**total, in the process**', undefined, 'tui:first-frame'],
  ];
  console.log(`Where the time goes inside the process, ${label} (median of the runs above):`);
  console.log('');
  console.log('| phase | ms |');
  console.log('|---|---|');
  for (const [label, from, to] of phases) {
    const spans = runs.filter((r) => r[to] !== undefined && (from === undefined || r[from] !== undefined)).map((r) => r[to]! - (from ? r[from]! : 0));
    if (spans.length) console.log(`| ${label} | ${median(spans).toFixed(0)} |`);
  }
  console.log('');
}
