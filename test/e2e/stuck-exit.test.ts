// End-to-end: Ctrl+C twice ends the interactive UI promptly even while a libuv pool thread
// is stuck in open() on a FIFO (injected with --import, as a hung network mount would block
// it): process.exit would join that thread and hang forever, so the UI must notice and end
// without it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/harness.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';

let home: string;
const server = tmuxServer(`oci-stuck-${process.pid}`);
const tmux = server.run;

async function waitFor(probe: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}. Screen:\n${screen('ui')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Direct children of a process, from /proc. */
function childrenOf(parent: number): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent) found.push(Number(pid));
    } catch {
      // gone
    }
  }
  return found;
}

function screen(name: string): string {
  try {
    return tmux('capture-pane', '-p', '-t', name);
  } catch {
    return '';
  }
}

describe.runIf(hasTmux || process.env.CI)('exiting the interactive UI with a stuck pool thread', () => {
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'oci-stuck-'));
    mkdirSync(join(home, 'project', '.git'), { recursive: true });
    execFileSync('mkfifo', [join(home, 'stuck.fifo')]);
  });
  afterAll(() => {
    // A UI that failed to exit would survive the pane's SIGHUP: end it by pid.
    let pane: number | undefined;
    try {
      pane = Number(tmux('display-message', '-p', '-t', 'ui', '#{pane_pid}').trim());
    } catch {
      // no pane
    }
    if (pane) for (const pid of childrenOf(pane)) process.kill(pid, 'SIGKILL');
    server.kill();
    rmSync(home, { recursive: true, force: true });
  });

  it('Ctrl+C twice exits within the deadline', async () => {
    const env = [
      `HOME=${home}`,
      `OPENCODE_INK_DATA_DIR=${home}/data`,
      `OPENCODE_INK_CONFIG_DIR=${home}/config`,
      'ANTHROPIC_API_KEY=test',
      'ANTHROPIC_BASE_URL=http://127.0.0.1:9',
      'TERM=xterm-256color',
      `NODE_OPTIONS=--import=${join(REPO_ROOT, 'test', 'support', 'stuck-pool.mjs')}`,
      `OCI_TEST_STUCK_FIFO=${home}/stuck.fifo`,
    ];
    // The pane outlives the app (sleep) and shows its exit status.
    tmux('new-session', '-d', '-s', 'ui', '-x', '100', '-y', '30', `cd ${home}/project && env ${env.join(' ')} node ${join(REPO_ROOT, 'bin/opencode-ink.js')}; echo "EXITED $?"; sleep 30`);
    await waitFor(() => screen('ui').includes('build · New session'), 'the first frame', 40_000);
    tmux('send-keys', '-t', 'ui', 'C-c');
    await waitFor(() => screen('ui').includes('Press Ctrl+C again to exit'), 'the exit hint');
    tmux('send-keys', '-t', 'ui', 'C-c');
    // Usually well under a second; without the fix it never exits at all.
    await waitFor(() => /EXITED \d+/.test(screen('ui')), 'the app to exit', 5000);
    expect(screen('ui')).toMatch(/EXITED 130/);
  }, 60_000);
});
