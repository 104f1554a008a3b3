// End-to-end: in a 120-column terminal the UI uses all 120 columns (it was capped at 80).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/repo-root.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';
import { waitForText } from '../support/wait.js';

const server = tmuxServer(`oci-wide-${process.pid}`);
const tmux = server.run;
let home: string;
const NAME = 'wide';

function waitFor(predicate: (s: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
  return waitForText(() => tmux('capture-pane', '-p', '-t', NAME), predicate, what, { timeoutMs, intervalMs: 50 });
}

describe.runIf(hasTmux || process.env.CI)('a 120-column terminal', () => {
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'oci-wide-'));
  });
  afterAll(() => {
    server.kill();
    rmSync(home, { recursive: true, force: true });
  });

  it('lays the transcript, dialogs and the prompt out to 120 columns', async () => {
    const env = [`HOME=${home}`, `OPENCODE_INK_DATA_DIR=${home}/data`, `OPENCODE_INK_CONFIG_DIR=${home}/config`, 'TERM=xterm-256color'];
    tmux('new-session', '-d', '-s', NAME, '-x', '120', '-y', '40', `env ${env.join(' ')} node ${join(REPO_ROOT, 'bin/opencode-ink.js')} --demo; sleep 30`);
    const first = await waitFor((s) => s.includes('Scripted demo') && s.includes('Ask anything'), 'the demo');
    const width = (line: string) => [...line.trimEnd()].length;
    // The prompt's box spans the terminal.
    const box = first.split('\n').find((l) => l.startsWith('╭'));
    expect(box && width(box)).toBe(120);
    // The banner (over 80 characters) is one row longer than 80 columns.
    const banner = first.split('\n').find((l) => l.includes('Scripted demo —'));
    expect(banner && width(banner)).toBeGreaterThan(80);
    // A dialog is as wide as the screen too.
    const dialog = await waitFor((s) => s.includes('Allow once') || s.includes('Question from'), 'a dialog');
    const top = dialog.split('\n').find((l) => l.startsWith('╭'));
    expect(top && width(top)).toBe(120);
  }, 60_000);
});
