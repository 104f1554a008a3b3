// Time to the TUI's first frame in a real terminal (tmux), beside bare `node` measured the
// same way: launch in a fresh tmux pane and poll the screen until the expected text.
//
// The TUI counts as drawn when its header, prompt and status line are all on screen: the
// first frame Ink writes has all three, so a partial or placeholder screen cannot pass.
// The app also records when it reached each start-up milestone (OPENCODE_INK_TRACE_STARTUP),
// which gives where the time goes inside the process.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cliEnv, fmt, median, tempProject } from './support.js';

const SOCKET = `oci-bench-${process.pid}`;
const RUNS = Number(process.env.BENCH_RUNS ?? 9);

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
}

/** Starts `command` in a new window and returns ms until every marker is on screen. */
function timeToScreen(command: string, markers: string[]): number {
  const start = performance.now();
  tmux('new-window', '-d', '-t', 'bench', '-n', 'run', command);
  try {
    for (;;) {
      const screen = tmux('capture-pane', '-p', '-t', 'bench:run');
      if (markers.every((m) => screen.includes(m))) return performance.now() - start;
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
const env = { ...cliEnv(dir, 'http://127.0.0.1:9'), OPENCODE_INK_TRACE_STARTUP: trace };
const envPrefix = Object.entries(env)
  .map(([k, v]) => `${k}=${v}`)
  .join(' ');
// The header (`build · New session`), the prompt and the status line (agent · model).
const TUI_MARKERS = ['build · New session', 'Ask anything', 'build · claude-'];
const bareCommand = `node -e "console.log('ready')"; sleep 5`;
const tuiCommand = `cd ${project} && env ${envPrefix} node ${BIN}; sleep 5`;
try {
  // One server for the whole run, kept alive by a session that outlives every pane: killing
  // the last session stops the server, and a new one started at once sometimes fails with
  // "server exited unexpectedly".
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'bench', '-x', '100', '-y', '30', 'sleep 3600');
  tmux('set-option', '-g', 'exit-empty', 'off');
  const bare: number[] = [];
  const tui: number[] = [];
  // Warm-up: the file cache, and the first run creates the database.
  timeToScreen(bareCommand, ['ready']);
  timeToScreen(tuiCommand, TUI_MARKERS);
  rmSync(trace, { force: true });
  for (let i = 0; i < RUNS; i++) {
    bare.push(timeToScreen(bareCommand, ['ready']));
    tui.push(timeToScreen(tuiCommand, TUI_MARKERS));
  }
  const b = median(bare);
  const t = median(tui);
  console.log(`## TUI first frame (tmux 100×30, median of ${RUNS})`);
  console.log('');
  console.log('| command | time to text on screen |');
  console.log('|---|---|');
  console.log(`| node -e "console.log('ready')" | ${fmt(b)} |`);
  console.log(`| opencode-ink (first frame: header, prompt, status line) | ${fmt(t)} (**${(t / b).toFixed(2)}×**) |`);
  console.log('');
  if (existsSync(trace)) printPhases(readFileSync(trace, 'utf8'));
} finally {
  try {
    tmux('kill-server');
  } catch {
    // no server left
  }
  rmSync(dir, { recursive: true, force: true });
}

/** Median time of each start-up phase, from the milestones the app recorded (ms since process start). */
function printPhases(jsonl: string): void {
  const runs = jsonl
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, number>);
  const phases: [string, string | undefined, string][] = [
    ['Node start-up, CLI and core bundle loaded', undefined, 'cli:loaded'],
    ['argument parsing', 'cli:loaded', 'cli:main'],
    ['UI bundle loaded (React, Ink, Yoga)', 'cli:main', 'ui:loaded'],
    ['config, agents, commands, SQLite store', 'tui:start', 'tui:context'],
    ['engine and session', 'tui:context', 'tui:session'],
    ['first render (React + Ink)', 'tui:session', 'tui:first-frame'],
    ['**total, in the process**', undefined, 'tui:first-frame'],
  ];
  console.log('Where the time goes inside the process (median of the runs above):');
  console.log('');
  console.log('| phase | ms |');
  console.log('|---|---|');
  for (const [label, from, to] of phases) {
    const spans = runs.filter((r) => r[to] !== undefined && (from === undefined || r[from] !== undefined)).map((r) => r[to]! - (from ? r[from]! : 0));
    if (spans.length) console.log(`| ${label} | ${median(spans).toFixed(0)} |`);
  }
  console.log('');
}
