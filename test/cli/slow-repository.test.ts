// A repository git needs minutes for (issue 35, item 8), against the built binary: `run` goes
// on without undo and says why on stderr, and SIGINT while the prompt's snapshot is being
// taken ends the run at once.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { text } from '../support/fake-anthropic.js';
import { runCli, startCli, startCliProject, type CliProject } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

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
  it('answers without undo for that prompt, saying why once', async () => {
    ctx.server.enqueue(text('hi'));
    const result = await runCli(['run', 'hello'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('hi');
    const notices = result.stderr.split('\n').filter((line) => /undo/i.test(line));
    expect(notices).toEqual([expect.stringMatching(/^Undo is not available for this prompt: the snapshot of .* took longer than 5 s \(a \.gitignore pattern may be very slow\)\.$/)]);
  });

  it('ends at once on SIGINT while the prompt is being prepared', async () => {
    ctx.server.enqueue(text('never reached'));
    const { child, done } = startCli(['run', 'hello'], { cwd: ctx.project, env: ctx.env });
    try {
      // The shadow repository's excludes are written last before the walk of the tree starts.
      const snapshots = join(ctx.dir, 'data', 'snapshots');
      await waitFor(() => existsSync(snapshots) && readdirSync(snapshots).some((d) => existsSync(join(snapshots, d, 'info', 'exclude'))), 'the snapshot to start', {
        timeoutMs: 20_000,
      });
      child.kill('SIGINT');
      const ended = await done;
      expect(ended.code).toBe(130);
      // Cancelled before the snapshot's deadline: no notice, and the model was never asked.
      expect(ended.stderr).not.toMatch(/Undo is not available/);
      expect(ctx.server.requests).toHaveLength(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
