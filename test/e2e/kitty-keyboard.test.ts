// End-to-end in a real pseudo-terminal (util-linux `script`): where the terminal says it
// speaks the kitty keyboard protocol, the UI switches the protocol on, so Shift+Enter can be
// told from Enter; other terminals are left as they are. The UI never sends the protocol
// query: keys typed while an answer was awaited reached the prompt twice.
import { execFileSync, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startCliProject, type CliProject } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

const QUERY = '\x1b[?u';
// The enable sequence: ESC [ > flags u.
const ENABLE = new RegExp(`${String.fromCharCode(27)}\\[>\\d+u`);

const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let ctx: CliProject;

/** The UI in a pty of its own; `answer` replies to a protocol query as a kitty terminal would. */
async function startInPty(term: string, answer: boolean): Promise<{ output: () => string; type: (text: string) => void; stop: () => void }> {
  const env: NodeJS.ProcessEnv = { ...ctx.env, TERM: term };
  delete env.TMUX;
  // Ink never asks the terminal when it believes it runs in CI.
  delete env.CI;
  delete env.CONTINUOUS_INTEGRATION;
  const child = spawn('script', ['-qfec', `stty cols 100 rows 30; exec node ${BIN}`, '/dev/null'], { env, cwd: ctx.project, stdio: ['pipe', 'pipe', 'ignore'] });
  let out = '';
  let answered = false;
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('latin1');
    if (answer && !answered && out.includes(QUERY)) {
      answered = true;
      child.stdin.write('\x1b[?0u');
    }
  });
  return { output: () => out, type: (text) => void child.stdin.write(text), stop: () => void child.kill('SIGKILL') };
}

describe.runIf(hasScript)('the kitty keyboard protocol', () => {
  beforeAll(async () => {
    ctx = await startCliProject();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('is switched on in a terminal that says it is kitty, without a query', async () => {
    const ui = await startInPty('xterm-kitty', true);
    try {
      await waitFor(() => ENABLE.test(ui.output()), 'the protocol to be switched on', { timeoutMs: 20_000, intervalMs: 20, last: () => JSON.stringify(ui.output().slice(-400)) });
      expect(ui.output()).not.toContain(QUERY);
    } finally {
      ui.stop();
    }
  });

  it('types text sent at start-up once', async () => {
    const ui = await startInPty('xterm-kitty', false);
    try {
      await waitFor(() => ui.output().includes('Ask anything'), 'the first frame', { timeoutMs: 20_000, intervalMs: 20, last: () => JSON.stringify(ui.output().slice(-400)) });
      // Typed right after the first frame: while a query was pending, these keys arrived twice.
      ui.type('zqxj');
      await waitFor(() => ui.output().includes('zqxj'), 'the typed text', { timeoutMs: 20_000, intervalMs: 20, last: () => JSON.stringify(ui.output().slice(-400)) });
      ui.type('\r');
      await waitFor(() => ctx.server.requests.length > 0, 'the prompt to be sent', { timeoutMs: 20_000, intervalMs: 20, last: () => JSON.stringify(ui.output().slice(-400)) });
      expect(JSON.stringify(ctx.server.requests[0]!.body.messages)).toContain('"zqxj"');
    } finally {
      ui.stop();
    }
  });

  it('stays off in a terminal that does not say it speaks the protocol', async () => {
    const ui = await startInPty('xterm-256color', false);
    try {
      await waitFor(() => ui.output().includes('Ask anything'), 'the first frame', { timeoutMs: 20_000, intervalMs: 20, last: () => JSON.stringify(ui.output().slice(-400)) });
      ui.type('zqxj');
      await waitFor(() => ui.output().includes('zqxj'), 'the typed text', { timeoutMs: 20_000, intervalMs: 20, last: () => JSON.stringify(ui.output().slice(-400)) });
      expect(ENABLE.test(ui.output())).toBe(false);
      expect(ui.output()).not.toContain(QUERY);
    } finally {
      ui.stop();
    }
  });
});
