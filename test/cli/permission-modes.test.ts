// `--permission-mode` on `run` and the TUI through the built binary (DESIGN §26): a bad value
// is one sentence and exit 2; acceptEdits writes unasked and `sessions show` says so; plan
// refuses the write; the config's `permission_mode` and Claude Code's
// `permissions.defaultMode` choose the starting mode, an untrusted project only a stricter one.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { text, toolResults, toolUse } from '../support/fake-anthropic.js';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';

let ctx: CliProject;
beforeEach(async () => {
  ctx = await startCliProject();
});
afterEach(() => ctx.close());

const run = (args: string[]) => runCli(args, { cwd: ctx.project, env: ctx.env });
const lastResult = () => String(toolResults(ctx.server.requests.at(-1)!)[0]?.content);

describe('--permission-mode', () => {
  it('refuses a value that is not a mode in one sentence, with exit 2, on run and on the TUI', async () => {
    for (const args of [['run', '--permission-mode', 'yolo', 'hi'], ['--permission-mode', 'yolo']]) {
      const result = await run(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe('Error: --permission-mode must be one of default, acceptEdits, plan, dontAsk, bypassPermissions; got "yolo".\n');
    }
    const both = await run(['run', '--yes', '--permission-mode', 'plan', 'hi']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^Error: --yes means --permission-mode bypassPermissions/);
    expect(ctx.server.requests).toHaveLength(0);
  });

  it('acceptEdits writes inside the project unasked, and sessions show lists what ran unasked', async () => {
    ctx.server.enqueue(toolUse('write', { file_path: 'a.txt', content: 'A\n' }), text('done'));
    const result = await run(['run', '--permission-mode', 'acceptEdits', 'make a.txt']);
    expect(result.code).toBe(0);
    expect(readFileSync(join(ctx.project, 'a.txt'), 'utf8')).toBe('A\n');
    const [session] = JSON.parse((await run(['sessions', '--json'])).stdout) as Array<{ id: string }>;
    const shown = await run(['sessions', 'show', session!.id]);
    expect(shown.stdout).toContain('Ran without asking (permission mode):\n  [acceptEdits] write a.txt');
    const json = JSON.parse((await run(['sessions', 'show', session!.id, '--json'])).stdout) as { permission_auto: unknown[] };
    expect(json.permission_auto).toEqual([expect.objectContaining({ mode: 'acceptEdits', tool: 'write', permission: 'edit', subject: 'a.txt' })]);
  });

  it('plan refuses the write and says why', async () => {
    ctx.server.enqueue(toolUse('write', { file_path: 'a.txt', content: 'A\n' }), text('done'));
    expect((await run(['run', '--permission-mode', 'plan', 'make a.txt'])).code).toBe(0);
    expect(existsSync(join(ctx.project, 'a.txt'))).toBe(false);
    expect(lastResult()).toMatch(/^Plan mode is read-only/);
  });
});

describe('the starting mode from settings', () => {
  it('takes the config’s permission_mode, and --permission-mode overrides it', async () => {
    mkdirSync(join(ctx.dir, 'config'), { recursive: true });
    writeFileSync(join(ctx.dir, 'config', 'config.json'), JSON.stringify({ permission_mode: 'acceptEdits' }));
    ctx.server.enqueue(toolUse('write', { file_path: 'a.txt', content: 'A\n' }), text('done'));
    expect((await run(['run', 'make a.txt'])).code).toBe(0);
    expect(existsSync(join(ctx.project, 'a.txt'))).toBe(true);
    ctx.server.enqueue(toolUse('write', { file_path: 'b.txt', content: 'B\n' }), text('done'));
    expect((await run(['run', '--permission-mode', 'default', 'make b.txt'])).code).toBe(0);
    expect(existsSync(join(ctx.project, 'b.txt'))).toBe(false);
  });

  it('honours Claude Code’s permissions.defaultMode, but not a looser one from an untrusted project', async () => {
    mkdirSync(join(ctx.project, '.claude'), { recursive: true });
    writeFileSync(join(ctx.project, '.claude', 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'bypassPermissions' } }));
    ctx.server.enqueue(toolUse('write', { file_path: 'a.txt', content: 'A\n' }), text('done'));
    const untrusted = await run(['run', 'make a.txt']);
    expect(untrusted.stderr).toContain('permissions.defaultMode');
    expect(existsSync(join(ctx.project, 'a.txt'))).toBe(false);
    ctx.server.enqueue(toolUse('write', { file_path: 'a.txt', content: 'A\n' }), text('done'));
    expect((await run(['run', '--trust', 'make a.txt'])).code).toBe(0);
    expect(existsSync(join(ctx.project, 'a.txt'))).toBe(true);
  });

  it('lets an untrusted project’s config tighten the mode but not loosen it, naming what it ignored', async () => {
    writeFileSync(join(ctx.project, '.opencoderc.json'), JSON.stringify({ permission_mode: 'bypassPermissions' }));
    ctx.server.enqueue(toolUse('write', { file_path: 'a.txt', content: 'A\n' }), text('done'));
    const loose = await run(['run', 'make a.txt']);
    expect(loose.stderr).toContain('permission_mode');
    expect(existsSync(join(ctx.project, 'a.txt'))).toBe(false);

    writeFileSync(join(ctx.project, '.opencoderc.json'), JSON.stringify({ permission_mode: 'plan' }));
    ctx.server.enqueue(toolUse('write', { file_path: 'a.txt', content: 'A\n' }), text('done'));
    expect((await run(['run', '--yes', 'make a.txt'])).code).toBe(0);
    // --yes is the user's own choice and overrides the project's plan.
    expect(existsSync(join(ctx.project, 'a.txt'))).toBe(true);
    ctx.server.enqueue(toolUse('write', { file_path: 'b.txt', content: 'B\n' }), text('done'));
    expect((await run(['run', 'make b.txt'])).code).toBe(0);
    expect(lastResult()).toMatch(/^Plan mode is read-only/);
  });
});
