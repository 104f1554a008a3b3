// The TUI resuming a session that a `run` process is writing: it shows the notice and never
// writes to that session. The built binary in tmux, the run against the fake server.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lastUserText, text } from '../support/fake-anthropic.js';
import { BIN, runCli, startCli, startCliProject, type CliProject } from '../support/cli.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';

let ctx: CliProject;
const tmux = tmuxServer(`oci-lease-${process.pid}`);

beforeEach(async () => {
  ctx = await startCliProject();
});
afterEach(async () => {
  tmux.kill();
  await ctx.close();
});

async function waitForScreen(name: string, predicate: (s: string) => boolean, what: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  let last = '';
  while (Date.now() < deadline) {
    // The app wraps long lines itself: compare with line breaks folded into spaces.
    last = tmux.run('capture-pane', '-p', '-J', '-t', name).replace(/\s+/g, ' ');
    if (predicate(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Timed out waiting for ${what}. Screen:\n${last}`);
}

describe.skipIf(!hasTmux)('the TUI on a session another process holds', () => {
  it('shows who holds it and refuses to send a prompt into it', async () => {
    const { server, project, env } = ctx;
    server.enqueue(text('started'));
    expect((await runCli(['run', 'start'], { cwd: project, env })).code).toBe(0);
    const db = new Database(join(env.OPENCODE_INK_DATA_DIR!, 'sessions.db'), { readonly: true });
    const id = db.prepare('SELECT id FROM sessions').pluck().get() as string;
    server.setHandler((req) => (lastUserText(req) === 'hold it' ? { type: 'stall' } : text('should never be asked')));
    const owner = startCli(['run', '-s', id, 'hold it'], { cwd: project, env });
    try {
      await server.waitForRequests(2, 15_000);
      const vars = Object.entries({ ...env, TERM: 'xterm-256color' }).map(([k, v]) => `${k}=${v}`);
      tmux.run('new-session', '-d', '-s', 'tui', '-x', '220', '-y', '30', '-c', project, `env ${vars.join(' ')} node ${BIN} -s ${id}; sleep 30`);
      const notice = `Session ${id} is in use by another opencode-ink process (pid ${owner.child.pid})`;
      await waitForScreen('tui', (s) => s.includes(notice), 'the in-use notice');

      tmux.run('send-keys', '-t', 'tui', '-l', 'sneak in');
      await waitForScreen('tui', (s) => s.includes('sneak in'), 'the typed prompt');
      tmux.run('send-keys', '-t', 'tui', 'Enter');
      // The prompt is refused with the same notice (shown again under the input).
      await waitForScreen('tui', (s) => s.split(notice).length > 2, 'the notice for the refused prompt');
      expect(server.requests).toHaveLength(2);
      const stored = db.prepare('SELECT content FROM messages WHERE session_id = ?').pluck().all(id) as string[];
      expect(stored.join('\n')).not.toContain('sneak in');
    } finally {
      db.close();
      owner.child.kill('SIGKILL');
      await owner.done;
    }
  }, 60_000);
});
