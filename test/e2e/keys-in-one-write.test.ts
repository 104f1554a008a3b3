// End-to-end: keys that reach the terminal in one write — as a fast typist or a laggy SSH
// link delivers them — are typed and Enter sends them, in the prompt and in the AskUser
// dialog; a bracketed paste (tmux paste-buffer -p, which adds the markers only when the app
// switched bracketed paste on) stays in the draft with its line breaks.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/repo-root.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';
import { waitForText } from '../support/wait.js';

const server = tmuxServer(`oci-keys-${process.pid}`);
const tmux = server.run;
let home: string;
const NAME = 'keys';

const screen = () => tmux('capture-pane', '-p', '-t', NAME);

function waitFor(predicate: (s: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
  return waitForText(screen, predicate, what, { timeoutMs, intervalMs: 50 });
}

/** Writes `data` to the app in a single write: paste-buffer without -p adds no markers. */
function writeOnce(data: string, bracketed = false): void {
  tmux('set-buffer', '-b', 'oci', data);
  tmux('paste-buffer', '-d', '-r', ...(bracketed ? ['-p'] : []), '-b', 'oci', '-t', NAME);
}

describe.runIf(hasTmux || process.env.CI)('keys in one write', () => {
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'oci-keys-'));
  });
  afterAll(() => {
    server.kill();
    rmSync(home, { recursive: true, force: true });
  });

  it('answers the AskUser dialog and sends a prompt typed with Enter in one write; keeps a bracketed paste as a draft', async () => {
    const env = [`HOME=${home}`, `OPENCODE_INK_DATA_DIR=${home}/data`, `OPENCODE_INK_CONFIG_DIR=${home}/config`, 'TERM=xterm-256color'];
    tmux('new-session', '-d', '-s', NAME, '-x', '100', '-y', '40', `env ${env.join(' ')} node ${join(REPO_ROOT, 'bin/opencode-ink.js')} --demo; echo exited with $?; sleep 30`);
    await waitFor((s) => s.includes('Scripted demo'), 'the demo banner');

    let answered = false;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const s = screen();
      if (s.includes('Next step would be') || s.includes('I left `src/server.ts` unchanged') || s.includes('findings above still hold')) break;
      // The dialog's header, not the question alone: the asking child's block shows its latest
      // call (`› ask_user <question>`) before the dialog opens, and keys typed then go elsewhere.
      if (s.includes('Question from') && s.includes('Which should get the rate limit?') && !answered) {
        writeOnce('blue\r');
        answered = true;
        await waitFor((x) => !x.includes('Question from'), 'the question to be answered by "blue⏎"');
      } else if (s.includes('Allow once')) {
        const asking = /wants to (?:use \S+|\S+ \S+)/.exec(s)?.[0] ?? '';
        tmux('send-keys', '-t', NAME, 'Enter');
        await waitFor((x) => !x.includes('Allow once') || !x.includes(asking), 'the approval to close');
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(answered).toBe(true);
    await waitFor((s) => /tests\/auth\.test\.js\.|findings above still hold/.test(s) && !s.includes('working…'), 'the end of the scripted turn');
    // The sub-agent that asked got the free-text answer: its own transcript shows it.
    tmux('send-keys', '-t', NAME, 'C-x');
    tmux('send-keys', '-t', NAME, 'Right');
    const child = await waitFor((s) => s.includes('goes to this sub-agent'), 'the first child view');
    expect(child).toContain('Find API routes');
    expect(child).toMatch(/blue/);
    tmux('send-keys', '-t', NAME, 'C-x');
    tmux('send-keys', '-t', NAME, 'Up');
    await waitFor((s) => !s.includes('goes to this sub-agent'), 'the parent view again');

    writeOnce('fix the bug\r');
    await waitFor((s) => s.includes('You asked: “fix the bug”'), 'the prompt sent by its Enter');

    // A terminal pastes a line break as CR, which typed would be Enter: only with bracketed
    // paste switched on (tmux then adds the markers) does it stay in the draft.
    writeOnce('first pasted line\rsecond pasted line', true);
    const draft = await waitFor((s) => s.includes('second pasted line'), 'the paste in the draft');
    expect(draft).toMatch(/build first pasted line/);
    expect(draft).not.toContain('You asked: “first pasted line');
    tmux('send-keys', '-t', NAME, 'Enter');
    await waitFor((s) => s.includes('You asked: “first pasted line second pasted line”'), 'the pasted prompt sent');
    await waitFor((s) => s.replace(/\s+/g, ' ').split('to talk to Claude.').length === 3, 'the reply to the pasted prompt to end');

    writeOnce('/exit\r');
    await waitFor((s) => s.includes('exited with 0'), 'the app to exit');
  }, 120_000);
});
