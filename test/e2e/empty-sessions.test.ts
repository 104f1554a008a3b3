// End-to-end in a real terminal (tmux): opening the UI and quitting without sending anything
// stores no session, so it neither tops `sessions` nor is what `-c` reopens; an empty session
// left behind by a crash is cleaned up at the next start, unless a live process holds it.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, startCliProject, type CliProject } from '../support/cli.js';
import { text } from '../support/fake-anthropic.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';
import { waitFor } from '../support/wait.js';
import { SessionStore } from '../../src/core/store/index.js';

const server = tmuxServer(`oci-empty-${process.pid}`);
const tmux = server.run;
let ctx: CliProject;

async function listed(): Promise<Array<{ id: string; title: string }>> {
  const result = await runCli(['sessions', '--json'], { cwd: ctx.project, env: ctx.env });
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Array<{ id: string; title: string }>;
}

describe.runIf(hasTmux || process.env.CI)('sessions nobody prompted', () => {
  beforeAll(async () => {
    ctx = await startCliProject();
  });
  afterAll(async () => {
    server.kill();
    await ctx.close();
  });

  it('are not stored when the UI quits without a prompt, and -c goes on with the last real one', async () => {
    ctx.server.enqueue(text('First answer.'));
    expect((await runCli(['run', 'the real conversation'], { cwd: ctx.project, env: ctx.env })).code).toBe(0);
    const [real] = await listed();

    const env = Object.entries({ ...ctx.env, TERM: 'xterm-256color' }).map(([k, v]) => `${k}=${v ?? ''}`);
    tmux('new-session', '-d', '-s', 'quit', '-x', '100', '-y', '30', '-c', ctx.project, `env ${env.join(' ')} node ${BIN}; echo "exited=$?"; sleep 30`);
    const screen = () => tmux('capture-pane', '-p', '-t', 'quit');
    await waitFor(() => screen().includes('claude-sonnet'), 'the status line', { timeoutMs: 20_000, intervalMs: 50, last: screen });
    tmux('send-keys', '-t', 'quit', '/exit', 'Enter');
    await waitFor(() => screen().includes('exited=0'), 'the UI to exit', { timeoutMs: 20_000, intervalMs: 50, last: screen });

    expect((await listed()).map((s) => s.id)).toEqual([real!.id]);
    ctx.server.enqueue(text('Second answer.'));
    const continued = await runCli(['run', '-c', 'and again'], { cwd: ctx.project, env: ctx.env });
    expect(continued.code).toBe(0);
    const sent = ctx.server.requests.at(-1)!.body.messages as Array<{ role: string }>;
    expect(sent.length).toBe(3);
  });

  it('cleans up an empty session a dead process left, but not one a live process holds', async () => {
    const dataDir = join(ctx.project, '..', 'data');
    const crashed = SessionStore.open(ctx.env.OPENCODE_INK_DATA_DIR ?? dataDir);
    const orphan = crashed.createSession({ agent: 'build', title: 'New session', status: 'idle', model: 'anthropic/claude-sonnet-4-6', cwd: ctx.project, depth: 0 });
    crashed.close();
    const open = SessionStore.open(ctx.env.OPENCODE_INK_DATA_DIR ?? dataDir);
    try {
      const held = open.createSession({ agent: 'build', title: 'New session', status: 'idle', model: 'anthropic/claude-sonnet-4-6', cwd: ctx.project, depth: 0 });
      const ids = (await listed()).map((s) => s.id);
      expect(ids).not.toContain(orphan.id);
      expect(ids).toContain(held.id);
    } finally {
      open.close();
    }
  });
});
