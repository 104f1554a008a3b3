// Time to the TUI's first frame in a real terminal (tmux), beside bare `node -e 0` measured
// the same way: launch in a fresh tmux pane and poll the screen until the expected text.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { BIN, cliEnv, fmt, median, tempProject } from './support.js';

const SOCKET = `oci-bench-${process.pid}`;
const RUNS = 7;

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
}

/** Starts `command` in a new pane and returns ms until `marker` is on screen. */
function timeToScreen(command: string, marker: string): number {
  const start = performance.now();
  tmux('new-session', '-d', '-s', 'b', '-x', '100', '-y', '30', command);
  try {
    for (;;) {
      if (tmux('capture-pane', '-p', '-t', 'b').includes(marker)) return performance.now() - start;
      if (performance.now() - start > 20_000) throw new Error(`"${marker}" never appeared`);
    }
  } finally {
    tmux('kill-session', '-t', 'b');
  }
}

try {
  execFileSync('tmux', ['-V']);
} catch {
  console.log('## TUI first frame\n\ntmux is not installed; skipped.\n');
  process.exit(0);
}

const { dir, project } = tempProject('oci-bench-tui-');
const env = cliEnv(dir, 'http://127.0.0.1:9');
const envPrefix = Object.entries(env)
  .map(([k, v]) => `${k}=${v}`)
  .join(' ');
try {
  const bare: number[] = [];
  const tui: number[] = [];
  timeToScreen(`node -e "console.log('ready')"; sleep 5`, 'ready');
  timeToScreen(`cd ${project} && env ${envPrefix} node ${BIN}; sleep 5`, 'Ask anything');
  for (let i = 0; i < RUNS; i++) {
    bare.push(timeToScreen(`node -e "console.log('ready')"; sleep 5`, 'ready'));
    tui.push(timeToScreen(`cd ${project} && env ${envPrefix} node ${BIN}; sleep 5`, 'Ask anything'));
  }
  const b = median(bare);
  const t = median(tui);
  console.log('## TUI first frame (tmux, median of 7)');
  console.log('');
  console.log('| command | time to text on screen |');
  console.log('|---|---|');
  console.log(`| node -e "console.log('ready')" | ${fmt(b)} |`);
  console.log(`| opencode-ink (first frame) | ${fmt(t)} (${(t / b).toFixed(2)}×) |`);
  console.log('');
} finally {
  try {
    tmux('kill-server');
  } catch {
    // no server left
  }
  rmSync(dir, { recursive: true, force: true });
}
