// A repository git needs minutes for (issue 35, item 8), against the built binary: `run` goes
// on without undo and says why on stderr, the model request does not wait for the prompt's
// snapshot, and SIGINT while that snapshot is being taken ends the run at once.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { text } from '../support/fake-anthropic.js';
import { runCli, startCli, startCliProject, type CliProject } from '../support/cli.js';

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

  it('sends the model request while the snapshot is being taken, and ends at once on SIGINT', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    ctx.server.setHandler(async () => {
      await held;
      return text('too late');
    });
    const { child, done } = startCli(['run', 'hello'], { cwd: ctx.project, env: ctx.env });
    try {
      // The walk of this tree runs into its 5 s deadline; the request does not wait for it.
      await ctx.server.waitForRequests(1, 20_000);
      child.kill('SIGINT');
      const ended = await done;
      expect(ended.code).toBe(130);
      // Cancelled before the snapshot's deadline: no notice.
      expect(ended.stderr).not.toMatch(/Undo is not available/);
    } finally {
      release();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
