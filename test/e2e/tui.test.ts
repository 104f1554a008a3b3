// End-to-end: the built binary in a real pseudo-terminal (tmux). Drives the offline demo by
// keyboard: approves, answers a routed question, steps into a child session and back.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/harness.js';

const SOCKET = `oci-e2e-${process.pid}`;
const SESSION = 'demo';
let home: string;

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
}
const screen = () => tmux('capture-pane', '-p', '-t', SESSION);
const keys = (...k: string[]) => tmux('send-keys', '-t', SESSION, ...k);

async function waitForScreen(predicate: (s: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    last = screen();
    if (predicate(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Timed out waiting for ${what}. Screen:\n${last}`);
}

const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
})();

describe.runIf(hasTmux || process.env.CI)('the built binary in a terminal', () => {
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'oci-e2e-'));
    const env = [`HOME=${home}`, `OPENCODE_INK_DATA_DIR=${home}/data`, `OPENCODE_INK_CONFIG_DIR=${home}/config`, 'TERM=xterm-256color'];
    tmux('new-session', '-d', '-s', SESSION, '-x', '100', '-y', '40', `env ${env.join(' ')} node ${join(REPO_ROOT, 'bin/opencode-ink.js')} --demo; sleep 5`);
  });
  afterAll(() => {
    try {
      tmux('kill-server');
    } catch {
      // already gone
    }
    rmSync(home, { recursive: true, force: true });
  });

  it('runs the demo: approvals, a routed question, and navigation into a child', async () => {
    await waitForScreen((s) => s.includes('Scripted demo'), 'the demo banner');
    let answered = false;
    let approvals = 0;
    const deadline = Date.now() + 60_000;
    // Dialogs arrive in an order that depends on timing: handle whichever is up.
    while (Date.now() < deadline) {
      const s = screen();
      if (s.includes('Next step would be')) break;
      if (s.includes('Which should get the rate limit?') && !answered) {
        expect(s).toContain('build › explore (Find API routes)');
        keys('Down');
        keys('Enter');
        answered = true;
        await waitForScreen((x) => !x.includes('Which should get the rate limit?'), 'the question to close');
      } else if (s.includes('Allow once')) {
        keys('Enter');
        approvals++;
        await waitForScreen((x) => !x.includes('Allow once') || approvals > 5, 'the approval to close');
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(answered).toBe(true);
    expect(approvals).toBeGreaterThanOrEqual(2);
    await waitForScreen((s) => s.includes('Next step would be'), 'the final answer');

    keys('C-x');
    keys('Right');
    const child = await waitForScreen((s) => s.includes('read-only'), 'the child view');
    expect(child).toMatch(/explore \(1 of 3\)/);

    keys('C-x');
    keys('Up');
    await waitForScreen((s) => !s.includes('read-only sub-agent view') && s.includes('Next step would be'), 'the parent view again');

    keys('/exit', 'Enter');
    await waitForScreen((s) => !s.includes('Ask anything'), 'the app to exit');
  }, 120_000);
});
