// The API key in this program's own environment block: on Linux it is blanked at start, so a
// shell command the model runs cannot read it back from /proc/$PPID/environ, while the program
// keeps authenticating with it and its commands' environment stays as it was.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { text, toolResults, toolUse } from '../support/fake-anthropic.js';

const KEY = 'sk-ant-test-4f1c9e0b7d2a';
const CUSTOM = 'custom-provider-secret-93b7';

let ctx: CliProject;
beforeEach(async () => {
  ctx = await startCliProject();
});
afterEach(() => ctx.close());

describe.runIf(process.platform === 'linux')('credentials in the environment block', () => {
  it('are not in /proc/$PPID/environ for a bash command, yet the run authenticates and commands keep their environment', async () => {
    mkdirSync(ctx.env.OPENCODE_INK_CONFIG_DIR!, { recursive: true });
    // A key the config takes from another variable is blanked too.
    writeFileSync(join(ctx.env.OPENCODE_INK_CONFIG_DIR!, 'config.json'), JSON.stringify({ provider: { anthropic: { apiKey: '{env:MY_CUSTOM_KEY}' } } }));
    const command = `tr '\\0' '\\n' < /proc/$PPID/environ; echo "--- own:"; env | grep -E '^(KEEP_ME|MY_CUSTOM_KEY|ANTHROPIC_API_KEY)=' || true`;
    ctx.server.enqueue(toolUse('bash', { command, description: 'read the parent environment' }), text('done'));
    const result = await runCli(['run', '--yes', 'look'], {
      cwd: ctx.project,
      env: { ...ctx.env, ANTHROPIC_API_KEY: KEY, MY_CUSTOM_KEY: CUSTOM, KEEP_ME: 'visible-value' },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [bash] = toolResults(ctx.server.requests[1]!);
    const output = String(bash!.content);
    const [parent, own] = output.split('--- own:');
    // The block was read (other variables are there), the credentials were not.
    expect(parent).toContain('KEEP_ME=visible-value');
    expect(parent).toMatch(/^ANTHROPIC_API_KEY=$/m);
    expect(parent).toMatch(/^MY_CUSTOM_KEY=$/m);
    expect(output).not.toContain(KEY);
    expect(output).not.toContain(CUSTOM);
    // The command's own environment is what it was: credentials dropped, the rest kept.
    expect(own!.trim()).toBe('KEEP_ME=visible-value');
    // Both requests, the second after the blanking, carried the configured key.
    for (const request of ctx.server.requests) expect(JSON.stringify(request.headers)).toContain(CUSTOM);
  });
});
