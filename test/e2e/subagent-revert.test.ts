// End-to-end in a real terminal (tmux) with the built binary (DESIGN §18): a sub-agent writes a
// file; its block in the parent's view shows the diff stat, and the revert key in its view,
// after `y`, removes the file again.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startCliProject, type CliProject } from '../support/cli.js';
import { reply, text } from '../support/fake-anthropic.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';
import { waitFor } from '../support/wait.js';

const server = tmuxServer(`oci-subrevert-${process.pid}`);
const tmux = server.run;
const NAME = 'subrevert';
let ctx: CliProject;

const screen = () => tmux('capture-pane', '-p', '-t', NAME);
const until = (predicate: () => boolean, what: string) => waitFor(predicate, what, { timeoutMs: 30_000, intervalMs: 50, last: screen });

describe.runIf(hasTmux || process.env.CI)("a sub-agent's diff stat and revert key in the terminal", () => {
  beforeAll(async () => {
    ctx = await startCliProject();
  });
  afterAll(async () => {
    server.kill();
    await ctx.close();
  });

  it('shows +1 −0 in 1 file on the finished block, and ctrl+x u → y in its view removes the file', async () => {
    ctx.server.enqueue(
      reply({ type: 'tool_use', id: 'toolu_task', name: 'task', input: { description: 'Make a file', prompt: 'write made.txt', subagent_type: 'general' } }),
      reply({ type: 'tool_use', id: 'toolu_write', name: 'write', input: { file_path: 'made.txt', content: 'made\n' } }),
      text('CHILD-DONE'),
      text('PARENT-DONE'),
    );
    const env = Object.entries({ ...ctx.env, TERM: 'xterm-256color' }).map(([k, v]) => `${k}=${v ?? ''}`);
    tmux('new-session', '-d', '-s', NAME, '-x', '100', '-y', '30', '-c', ctx.project, `env ${env.join(' ')} node ${BIN} --yes; echo "exited=$?"; sleep 30`);
    await until(() => screen().includes('claude-sonnet'), 'the status line');
    const made = join(ctx.project, 'made.txt');

    tmux('send-keys', '-t', NAME, '-l', 'delegate a file');
    tmux('send-keys', '-t', NAME, 'Enter');
    await until(() => screen().includes('PARENT-DONE') && existsSync(made), 'the turn and its sub-agent to finish');
    expect(screen()).toContain('+1 −0 in 1 file');

    tmux('send-keys', '-t', NAME, 'C-x', 'Right');
    await until(() => screen().includes('sub-agent session'), "the sub-agent's view");
    tmux('send-keys', '-t', NAME, 'C-x', 'u');
    await until(() => screen().includes("changes to 1 file (its sub-agents' included)? y/n"), 'the y/n question');
    tmux('send-keys', '-t', NAME, 'y');
    await until(() => screen().includes('1 file restored (made.txt)'), 'the revert notice');
    expect(existsSync(made)).toBe(false);
  }, 120_000);
});
