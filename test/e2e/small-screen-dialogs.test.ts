// End-to-end: at 50x14 the approval dialog keeps its header (who asks, which tool) and the
// command on screen, the question dialog its header and options; digits pick in both.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/repo-root.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';
import { waitForText } from '../support/wait.js';

const server = tmuxServer(`oci-small-${process.pid}`);
const tmux = server.run;
let home: string;
const NAME = 'small';
const screen = () => tmux('capture-pane', '-p', '-t', NAME);

function waitFor(predicate: (s: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
  return waitForText(screen, predicate, what, { timeoutMs, intervalMs: 50 });
}

describe.runIf(hasTmux || process.env.CI)('dialogs on a 50x14 screen', () => {
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'oci-small-'));
  });
  afterAll(() => {
    server.kill();
    rmSync(home, { recursive: true, force: true });
  });

  it('keeps the approval header and command visible and picks with digits', async () => {
    const env = [`HOME=${home}`, `OPENCODE_INK_DATA_DIR=${home}/data`, `OPENCODE_INK_CONFIG_DIR=${home}/config`, 'TERM=xterm-256color'];
    tmux('new-session', '-d', '-s', NAME, '-x', '50', '-y', '14', `env ${env.join(' ')} node ${join(REPO_ROOT, 'bin/opencode-ink.js')} --demo; sleep 30`);
    let approvals = 0;
    let answered = false;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && !(answered && approvals >= 2)) {
      const s = screen();
      if (s.includes('Question from') && !answered) {
        // Compact on this screen: the header and every option are in view.
        expect(s).toMatch(/Question from build/);
        expect(s).toContain('3. /v1/login only');
        tmux('send-keys', '-t', NAME, '2');
        answered = true;
        await waitFor((x) => !x.includes('Question from'), 'the question to close');
      } else if (/wants to (?:use \S+|\S+ \S+)/.test(s)) {
        // `wants to use bash`, or `wants to edit src/x.js` for a file change.
        const asking = /wants to (?:use \S+|\S+ \S+)/.exec(s)?.[0] ?? '';
        const tool = /wants to use (\S+)/.exec(s)?.[1] ?? '';
        // The dialog's first rows are on screen: who asks and which tool, then the subject.
        expect(s).toMatch(/Permission from build/);
        if (tool === 'bash') expect(s).toContain('$ ls tests');
        expect(s).toMatch(/1 Allow/);
        tmux('send-keys', '-t', NAME, '1');
        approvals++;
        await waitFor((x) => !x.includes(asking) || x !== s, 'the approval to close');
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(answered).toBe(true);
    expect(approvals).toBeGreaterThanOrEqual(2);
  }, 90_000);
});
