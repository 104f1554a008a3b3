// The Anthropic SDK warns on stderr each time a request names a model it lists as deprecated
// (claude-sonnet-4-5 in SDK 1.x): that chatter shows only with --debug.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { text } from '../support/fake-anthropic.js';

/** A model @anthropic-ai/sdk 1.x warns about in messages.create (its DEPRECATED_MODELS). */
const DEPRECATED = 'anthropic/claude-sonnet-4-5';

let ctx: CliProject;
beforeEach(async () => {
  ctx = await startCliProject();
});
afterEach(() => ctx.close());

describe('SDK warnings', () => {
  it('stay off stderr without --debug', async () => {
    ctx.server.enqueue(text('one'));
    const result = await runCli(['run', '-m', DEPRECATED, 'hello'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('one');
    expect(ctx.server.requests).toHaveLength(1);
    expect(ctx.server.requests[0]!.body.model).toBe('claude-sonnet-4-5');
    expect(result.stderr).toBe('');
  });

  it('show with --debug', async () => {
    ctx.server.enqueue(text('two'));
    const result = await runCli(['--debug', 'run', '-m', DEPRECATED, 'hello'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/claude-sonnet-4-5' is deprecated/);
  });
});
