// `--sandbox <mode>` on the built binary: `run` without `--yes` runs a command that would ask
// inside the sandbox, a bad mode is a usage error, and a missing bwrap is one line at start.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { text, toolResults, toolUse } from '../support/fake-anthropic.js';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { bwrapMissing } from './support.js';

let ctx: CliProject;
beforeEach(async () => {
  ctx = await startCliProject();
});
afterEach(() => ctx.close());

describe('--sandbox', () => {
  it.skipIf(bwrapMissing !== undefined)('lets run execute what would ask, inside the sandbox, without --yes', async () => {
    ctx.server.enqueue(toolUse('bash', { command: 'echo boxed > boxed.txt && cat boxed.txt' }), text('done'));
    const result = await runCli(['run', '--sandbox', 'workspace-write', 'build it'], { cwd: ctx.project, env: ctx.env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.stringify(toolResults(ctx.server.requests[1]!))).toContain('boxed');
    expect(existsSync(join(ctx.project, 'boxed.txt'))).toBe(true);
  });

  it('says in one line that the sandbox is unavailable, and commands ask (refused in run)', async () => {
    ctx.server.enqueue(toolUse('bash', { command: 'touch made.txt' }), text('done'));
    const result = await runCli(['run', '--sandbox', 'read-only', 'try it'], { cwd: ctx.project, env: { ...ctx.env, OPENCODE_INK_BWRAP: '/nonexistent/bwrap' } });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      'Sandbox unavailable: /nonexistent/bwrap was not found (install the "bubblewrap" package); commands run unsandboxed and ask for approval as with sandbox.mode "off".\n',
    );
    expect(JSON.stringify(toolResults(ctx.server.requests[1]!))).toMatch(/nobody can approve/);
    expect(existsSync(join(ctx.project, 'made.txt'))).toBe(false);
  });

  it('rejects an unknown mode as bad usage', async () => {
    const result = await runCli(['run', '--sandbox', 'loose', 'x'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/option '--sandbox <mode>' argument 'loose' is invalid\. Allowed choices are off, read-only, workspace-write/);
  });
});
