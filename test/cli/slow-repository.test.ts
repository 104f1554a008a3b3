// A repository git needs minutes for (issue 35, item 8), against the built binary: a turn that
// changes a file goes on without undo and says why on stderr, a turn that changes nothing
// takes no snapshot at all (issue 36), and SIGINT while the snapshot is being taken stops it
// and ends the run.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply, text } from '../support/fake-anthropic.js';
import { runCli, startCli, startCliProject, type CliProject } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

/** Whether `pid` has a git process among its children (the snapshot being taken). */
/** Whether a git process runs below `pid`: its child, or a child of a shell it starts programs from. */
function runsGit(pid: number): boolean {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,comm='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length === 3);
  const parentOf = new Map(rows.map(([child, parent]) => [Number(child), Number(parent)]));
  const below = (p: number) => {
    for (let up = parentOf.get(p); up !== undefined && up > 1; up = parentOf.get(up)) if (up === pid) return true;
    return false;
  };
  return rows.some(([child, , name]) => name === 'git' && below(Number(child)));
}

const writeMade = () => reply({ type: 'tool_use', name: 'write', input: { file_path: 'made.txt', content: 'made\n' } });

let ctx: CliProject;
beforeEach(async () => {
  ctx = await startCliProject();
  // A .gitignore line git backtracks on for minutes over a folder 40 levels deep.
  writeFileSync(join(ctx.project, '.gitignore'), '**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/b\n');
  const deep = join(ctx.project, ...Array.from({ length: 40 }, () => 'a'));
  mkdirSync(deep, { recursive: true });
  for (const name of ['one', 'two', 'three']) writeFileSync(join(deep, name), `${name}\n`);
});
afterEach(() => ctx.close());

describe('run in a repository git needs minutes for', { timeout: 60_000 }, () => {
  it('changes the file without undo for that prompt, saying why once', async () => {
    ctx.server.enqueue(writeMade(), text('hi'));
    const result = await runCli(['run', '--yes', 'make a file'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('hi');
    expect(existsSync(join(ctx.project, 'made.txt'))).toBe(true);
    const notices = result.stderr.split('\n').filter((line) => /undo/i.test(line));
    expect(notices).toEqual([expect.stringMatching(/^Undo is not available for this prompt: the snapshot of .* took longer than 5 s \(a \.gitignore pattern may be very slow\)\.$/)]);
  });

  it('answers a turn that changes nothing at once, without a snapshot or a notice', async () => {
    ctx.server.enqueue(text('hi'));
    const result = await runCli(['run', 'hello'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('hi');
    expect(result.stderr).not.toMatch(/undo/i);
  });

  it('stops the snapshot and ends with 130 on SIGINT while the snapshot before a change is being taken', async () => {
    ctx.server.enqueue(writeMade(), text('too late'));
    const { child, done } = startCli(['run', '--yes', 'make a file'], { cwd: ctx.project, env: ctx.env });
    try {
      // The write waits for the snapshot, whose walk of this tree runs into its 5 s deadline.
      await waitFor(() => runsGit(child.pid!), 'the snapshot before the write to be under way', { timeoutMs: 20_000 });
      child.kill('SIGINT');
      const ended = await done;
      expect(ended.code).toBe(130);
      // That the snapshot nobody waits for any more is stopped (its git killed, not sat out to
      // its deadline) is checked without a clock in test/checkpoints/shadow-repo.test.ts.
      // Cancelled before the snapshot's deadline: no notice, and the write never ran.
      expect(ended.stderr).not.toMatch(/Undo is not available/);
      expect(existsSync(join(ctx.project, 'made.txt'))).toBe(false);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
