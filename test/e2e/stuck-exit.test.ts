// End-to-end: Ctrl+C twice ends the interactive UI promptly even while a libuv pool thread
// is stuck in open() on a FIFO (injected with --import, as a hung network mount would block
// it): process.exit would join that thread and hang forever, so the UI must notice and end
// without it. And however the UI ends (Ctrl+C twice, SIGTERM, SIGINT) while a bash command
// runs, no process that command started is left, escaped ones included.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, toolUse, text, type FakeServer } from '../support/fake-anthropic.js';
import { REPO_ROOT } from '../support/repo-root.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';
import { waitFor as sharedWaitFor } from '../support/wait.js';
import { liveProcessesWhere } from '../support/processes.js';

let home: string;
const server = tmuxServer(`oci-stuck-${process.pid}`);
const tmux = server.run;

async function waitFor(probe: () => boolean, what: string, timeoutMs = 20_000, name = 'ui'): Promise<void> {
  await sharedWaitFor(probe, what, { timeoutMs, intervalMs: 50, last: () => screen(name) });
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

/** The app's process: the child of the pane's shell. */
function uiPid(name: string): number | undefined {
  try {
    return childrenOf(Number(tmux('display-message', '-p', '-t', name, '#{pane_pid}').trim()))[0];
  } catch {
    return undefined;
  }
}

/** A UI that failed to exit would survive the pane's SIGHUP: end it by pid. */
function killUi(name: string): void {
  const pid = uiPid(name);
  if (pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('opencode-ink')) process.kill(pid, 'SIGKILL');
}

/** Live (non-zombie) processes whose command line is exactly `sleep <d>`, or contains `d` with `loose`. */
function sleeps(d: string, loose = false): number[] {
  return liveProcessesWhere((cmdline) => (loose ? cmdline.includes(d) : cmdline === `sleep ${d} `));
}

function screen(name: string): string {
  try {
    return tmux('capture-pane', '-p', '-t', name);
  } catch {
    return '';
  }
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'oci-stuck-'));
  mkdirSync(join(home, 'project', '.git'), { recursive: true });
  execFileSync('mkfifo', [join(home, 'stuck.fifo')]);
});
afterAll(() => {
  for (const name of ['ui', 'keys', 'SIGTERM', 'SIGINT', 'dialog']) killUi(name);
  server.kill();
  rmSync(home, { recursive: true, force: true });
});

describe.runIf(hasTmux || process.env.CI)('exiting the interactive UI with a stuck pool thread', () => {

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

describe.runIf(hasTmux || process.env.CI)('the interactive UI leaves no process behind', () => {
  let api: FakeServer;
  const durations: string[] = [];
  beforeAll(async () => {
    api = await startFakeServer();
  });
  afterAll(async () => {
    for (const d of durations) for (const pid of sleeps(d, true)) process.kill(pid, 'SIGKILL');
    await api.close();
  });

  for (const how of ['keys', 'SIGTERM', 'SIGINT'] as const) {
    it(`ends escaped processes of a running command when the UI ends by ${how === 'keys' ? 'Ctrl+C twice' : how}`, async () => {
      const d = `${600000 + Math.floor(Math.random() * 99999)}.${process.pid}${durations.length}`;
      durations.push(d);
      api.setHandler((req) =>
        req.body.messages.length === 1
          ? toolUse('bash', { command: `setsid -f sleep ${d}; (sleep ${d} &); nohup sleep ${d} >/dev/null 2>&1 & sleep ${d}` })
          : text('done'),
      );
      const env = [
        `HOME=${home}`,
        `OPENCODE_INK_DATA_DIR=${home}/data-${how}`,
        `OPENCODE_INK_CONFIG_DIR=${home}/config`,
        'ANTHROPIC_API_KEY=test',
        `ANTHROPIC_BASE_URL=${api.url}`,
        'TERM=xterm-256color',
      ];
      tmux('new-session', '-d', '-s', how, '-x', '100', '-y', '30', `cd ${home}/project && env ${env.join(' ')} node ${join(REPO_ROOT, 'bin/opencode-ink.js')} start things; echo "EXITED $?"; sleep 30`);
      await waitFor(() => screen(how).includes('Allow once'), 'the approval dialog', 40_000, how);
      tmux('send-keys', '-t', how, 'Enter');
      await waitFor(() => sleeps(d).length === 4, 'the four sleeps', 20_000, how);
      if (how === 'keys') {
        tmux('send-keys', '-t', how, 'C-c');
        await waitFor(() => screen(how).includes('Press Ctrl+C again to exit'), 'the exit hint', 20_000, how);
        tmux('send-keys', '-t', how, 'C-c');
      } else {
        process.kill(uiPid(how)!, how);
      }
      await waitFor(() => /EXITED \d+/.test(screen(how)), 'the app to exit', 20_000, how);
      await waitFor(() => sleeps(d, true).length === 0, 'no process of the command left', 5000, how);
    }, 90_000);
  }

  it('Ctrl+C twice quits while an approval dialog has the keys', async () => {
    api.setHandler((req) => (req.body.messages.length === 1 ? toolUse('bash', { command: 'echo hi' }) : text('done')));
    const env = [`HOME=${home}`, `OPENCODE_INK_DATA_DIR=${home}/data-dialog`, `OPENCODE_INK_CONFIG_DIR=${home}/config`, 'ANTHROPIC_API_KEY=test', `ANTHROPIC_BASE_URL=${api.url}`, 'TERM=xterm-256color'];
    tmux('new-session', '-d', '-s', 'dialog', '-x', '100', '-y', '30', `cd ${home}/project && env ${env.join(' ')} node ${join(REPO_ROOT, 'bin/opencode-ink.js')} say hi; echo "EXITED $?"; sleep 30`);
    await waitFor(() => screen('dialog').includes('Allow once'), 'the approval dialog', 40_000, 'dialog');
    tmux('send-keys', '-t', 'dialog', 'C-c');
    await waitFor(() => screen('dialog').includes('Press Ctrl+C again to exit'), 'the exit hint', 20_000, 'dialog');
    tmux('send-keys', '-t', 'dialog', 'C-c');
    await waitFor(() => /EXITED \d+/.test(screen('dialog')), 'the app to exit', 20_000, 'dialog');
  }, 90_000);
});
