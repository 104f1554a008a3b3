// A process killed while an isolated sub-agent works leaves its worktree behind; the next
// start of the binary finishes it: the child's work committed on its branch, the folder and
// git's record of it gone.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCli, startCliProject, type CliProject } from '../support/cli.js';
import { scriptConversations } from '../support/conversations.js';
import { reply, text } from '../support/fake-anthropic.js';
import { waitFor } from '../support/wait.js';

let ctx: CliProject;
beforeEach(async () => {
  ctx = await startCliProject();
});
afterEach(async () => {
  await ctx.close();
});

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

function worktreeFolders(dataDir: string): string[] {
  const root = join(dataDir, 'worktrees');
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((p) => readdirSync(join(root, p)).filter((e) => !e.endsWith('.json')));
}

describe('worktrees after a crash', { timeout: 120_000 }, () => {
  it('are finished at the next start: work kept on the branch, folder removed', async () => {
    rmSync(join(ctx.project, '.git'), { recursive: true, force: true });
    writeFileSync(join(ctx.project, 'a.txt'), 'a\n');
    git(ctx.project, 'init', '-q', '-b', 'main');
    git(ctx.project, 'add', '-A');
    git(ctx.project, 'commit', '-qm', 'init');
    const dataDir = ctx.env.OPENCODE_INK_DATA_DIR!;
    scriptConversations(ctx.server, {
      'crash please': [
        reply({ type: 'tool_use', name: 'task', id: 'toolu_t1', input: { description: 'Half', prompt: 'write then hang', subagent_type: 'general', isolation: 'worktree' } }),
      ],
      'write then hang': [reply({ type: 'tool_use', name: 'write', id: 'toolu_w1', input: { file_path: 'partial.txt', content: 'partial\n' } }), { type: 'stall' }],
      'hello': [text('hi')],
    });
    const { child, done } = startCli(['run', '--yes', 'crash please'], { cwd: ctx.project, env: ctx.env });
    // The child's second request comes after its write: it is mid-task now.
    await ctx.server.waitForRequests(3, 60_000);
    const folders = await waitFor(() => (worktreeFolders(dataDir).length === 1 ? worktreeFolders(dataDir) : undefined), 'the child worktree');
    expect(folders[0]).toMatch(/^ses_/);
    child.kill('SIGKILL');
    await done;
    expect(git(ctx.project, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(2);

    const next = await runCli(['run', 'hello'], { cwd: ctx.project, env: ctx.env });
    expect(next.stderr).toBe('');
    expect(next.stdout).toBe('hi\n');
    expect(worktreeFolders(dataDir)).toEqual([]);
    expect(git(ctx.project, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    const branch = `opencode/${folders[0]}`;
    expect(git(ctx.project, 'show', `${branch}:partial.txt`)).toBe('partial');
    // The user's tree never saw it.
    expect(existsSync(join(ctx.project, 'partial.txt'))).toBe(false);
  });
});
