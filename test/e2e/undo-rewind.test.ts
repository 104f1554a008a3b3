// End-to-end in a real terminal (tmux) with the built binary: a prompt whose turn writes a
// file; /undo removes it (the turn stays in view marked `[undone]`), /redo brings it back, and /rewind opened with Esc Esc → pick the
// prompt → "Code only" puts the files back as they were before that prompt.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startCliProject, type CliProject } from '../support/cli.js';
import { reply, text } from '../support/fake-anthropic.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';
import { waitFor } from '../support/wait.js';
import { SessionStore } from '../../src/core/store/index.js';

const server = tmuxServer(`oci-rewind-${process.pid}`);
const tmux = server.run;
const NAME = 'rewind';
let ctx: CliProject;

const screen = () => tmux('capture-pane', '-p', '-t', NAME);
const until = (predicate: () => boolean, what: string) => waitFor(predicate, what, { timeoutMs: 30_000, intervalMs: 50, last: screen });

describe.runIf(hasTmux || process.env.CI)('undo, redo and rewind in the terminal', () => {
  beforeAll(async () => {
    ctx = await startCliProject();
  });
  afterAll(async () => {
    server.kill();
    await ctx.close();
  });

  it('/undo removes the written file, /redo restores it, Esc Esc → prompt → Code only removes it again', async () => {
    ctx.server.enqueue(reply({ type: 'tool_use', id: 'toolu_e2e', name: 'write', input: { file_path: 'made.txt', content: 'made\n' } }), text('WROTE-IT'));
    const env = Object.entries({ ...ctx.env, TERM: 'xterm-256color' }).map(([k, v]) => `${k}=${v ?? ''}`);
    tmux('new-session', '-d', '-s', NAME, '-x', '110', '-y', '35', '-c', ctx.project, `env ${env.join(' ')} node ${BIN} --yes; echo "exited=$?"; sleep 30`);
    await until(() => screen().includes('claude-sonnet'), 'the status line');
    const made = join(ctx.project, 'made.txt');

    tmux('send-keys', '-t', NAME, '-l', 'make a file');
    tmux('send-keys', '-t', NAME, 'Enter');
    await until(() => screen().includes('WROTE-IT') && existsSync(made), 'the turn to write made.txt');

    // The turn is over for /undo once its "after" snapshot is stored.
    const store = SessionStore.open(ctx.env.OPENCODE_INK_DATA_DIR!);
    try {
      await until(() => store.listRoots().some((r) => store.messageRows(r.id).some((m) => m.prompt && m.snapshot_after !== null)), 'the snapshot after the prompt');
    } finally {
      store.close();
    }
    tmux('send-keys', '-t', NAME, '-l', '/undo');
    tmux('send-keys', '-t', NAME, 'Enter');
    await until(() => screen().includes('Undid "make a file"'), 'the undo notice');
    expect(existsSync(made)).toBe(false);
    // The undone turn stays in view, marked, as `sessions show` prints it.
    await until(() => screen().includes('[undone] › make a file') && screen().includes('[undone] WROTE-IT'), 'the undone turn marked');

    tmux('send-keys', '-t', NAME, '-l', '/redo');
    tmux('send-keys', '-t', NAME, 'Enter');
    await until(() => screen().includes('Redid "make a file"'), 'the redo notice');
    expect(existsSync(made)).toBe(true);
    await until(() => !screen().includes('[undone]') && screen().includes('› make a file'), 'the redone turn unmarked');

    tmux('send-keys', '-t', NAME, 'Escape', 'Escape');
    await until(() => screen().includes('Rewind: pick a prompt') && screen().includes('❯ make a file'), 'the rewind list');
    tmux('send-keys', '-t', NAME, 'Enter');
    await until(() => screen().includes('Code only'), 'the restore choices');
    tmux('send-keys', '-t', NAME, 'Down');
    tmux('send-keys', '-t', NAME, 'Down');
    await until(() => screen().includes('❯ Code only'), 'Code only highlighted');
    tmux('send-keys', '-t', NAME, 'Enter');
    await until(() => screen().includes('Rewound the code to before "make a file"'), 'the rewind notice');
    expect(existsSync(made)).toBe(false);
  }, 120_000);
});
