// End-to-end in a real terminal (tmux): Claude Code's habits at the top level. `-r <id>`
// opens that session, `-r` alone opens the session picker, `--yes` skips approvals and
// says so in the status line (bypassPermissions), and Shift+Tab cycles the permission modes. The binary talks to the fake API server of this process.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { text, toolUse } from '../support/fake-anthropic.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';
import { startTerm, type Term } from '../support/tmux-cli.js';
import { MODE_BADGES } from '../../src/ui/components/status-line.js';

const AUTO_APPROVE_BADGE = MODE_BADGES.bypassPermissions;

const server = tmuxServer(`oci-resume-${process.pid}`);
let ctx: CliProject;
let sessionId: string;
let started: Term[] = [];

function start(name: string, args: string[], cols = 100, rows = 30): Term {
  const term = startTerm(server, ctx, name, args, { cols, rows });
  started.push(term);
  return term;
}

describe.runIf(hasTmux || process.env.CI)('the top-level -r and --yes in a terminal', () => {
  beforeAll(async () => {
    ctx = await startCliProject();
    // Markdown: a resumed transcript is formatted from the first frame on.
    ctx.server.enqueue(text('The answer is **forty-two**.'));
    const made = await runCli(['run', 'remember the answer'], { cwd: ctx.project, env: ctx.env });
    expect(made.code).toBe(0);
    const listed = JSON.parse((await runCli(['sessions', '--json'], { cwd: ctx.project, env: ctx.env })).stdout) as Array<{ id: string }>;
    sessionId = listed[0]!.id;
  });
  afterEach(() => {
    for (const term of started) term.kill();
    started = [];
  });
  afterAll(async () => {
    server.kill();
    await ctx.close();
  });

  it('-r <id> opens that session with its transcript', async () => {
    const t = start('by-id', ['-r', sessionId]);
    const screen = await t.waitFor((s) => s.includes('The answer is') && s.includes('remember the answer'), 'the resumed transcript');
    expect(screen).toContain('The answer is forty-two.');
    expect(screen).not.toContain('**');
    expect(screen).not.toContain(AUTO_APPROVE_BADGE);
  });

  it('-r alone opens the session picker; Enter opens the chosen session', async () => {
    const t = start('picker', ['-r']);
    const picker = await t.waitFor((s) => s.includes('Enter open · type to filter'), 'the session picker');
    expect(picker).toContain('remember the answer');
    t.keys('-l', 'remember');
    await t.waitFor((s) => s.includes('Filter: remember'), 'the filter');
    t.keys('Enter');
    await t.waitFor((s) => s.includes('The answer is forty-two.') && !s.includes('Enter open · type to filter'), 'the chosen session');
  });

  it('--yes shows a badge in the status line and runs an edit without asking', async () => {
    ctx.server.enqueue(toolUse('write', { file_path: 'approved.txt', content: 'written without asking\n' }), text('File written.'));
    const t = start('yes', ['--yes']);
    const first = await t.waitFor((s) => s.includes(AUTO_APPROVE_BADGE), 'the auto-approve badge');
    // The badge sits on the status line, under the prompt.
    const lines = first.split('\n');
    const prompt = lines.findIndex((l) => l.includes('Ask anything'));
    expect(lines.findIndex((l) => l.includes(AUTO_APPROVE_BADGE))).toBeGreaterThan(prompt);
    t.keys('-l', 'write the file');
    await t.waitFor((s) => s.includes('write the file'), 'the typed prompt');
    t.keys('Enter');
    const done = await t.waitFor((s) => s.includes('File written.'), 'the final answer');
    expect(done).not.toContain('Allow once');
    expect(existsSync(join(ctx.project, 'approved.txt'))).toBe(true);
    expect(readFileSync(join(ctx.project, 'approved.txt'), 'utf8')).toBe('written without asking\n');
  });

  it('--yes keeps the badge on a narrow terminal', async () => {
    const t = start('narrow', ['--yes'], 40, 20);
    const screen = await t.waitFor((s) => s.includes(AUTO_APPROVE_BADGE), 'the badge at 40 columns');
    expect(screen).toContain(AUTO_APPROVE_BADGE);
  });

  it('Shift+Tab leaves --yes for default, then cycles accept edits and plan, each shown in the status line', async () => {
    const t = start('modes', ['--yes']);
    await t.waitFor((s) => s.includes(AUTO_APPROVE_BADGE), 'the bypass badge');
    t.keys('BTab');
    await t.waitFor((s) => !s.includes(AUTO_APPROVE_BADGE) && s.includes('Ask anything'), 'default mode, no badge');
    t.keys('BTab');
    await t.waitFor((s) => s.includes(MODE_BADGES.acceptEdits), 'the accept-edits badge');
    t.keys('BTab');
    await t.waitFor((s) => s.includes(MODE_BADGES.plan), 'the plan badge');
  });
});
