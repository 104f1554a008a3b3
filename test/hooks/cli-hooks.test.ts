// Hooks through the built binary (`run`), as a Claude Code user's files would configure them:
// a trusted project's .claude/settings.json blocks a bash call (the model reads why, stderr
// says so, the JSON stream carries a valid `hook.notice`), and an untrusted project's hooks
// never run while the notice names them.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply, text, toolResults } from '../support/fake-anthropic.js';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { validEvent } from '../support/events.js';
import { HookScripts } from './scripts.js';

let ctx: CliProject;
let s: HookScripts;

beforeEach(async () => {
  ctx = await startCliProject();
  s = new HookScripts(join(ctx.dir, 'hooks'));
  const guard = s.command('guard', `if (input.tool_input.command.startsWith('touch')) { process.stderr.write('Touching files is not allowed here.'); process.exit(2); }`);
  const submit = s.command('submit', `fs.writeFileSync(${JSON.stringify(join(s.dir, 'submit.ran'))}, input.prompt);`);
  mkdirSync(join(ctx.project, '.claude'), { recursive: true });
  writeFileSync(
    join(ctx.project, '.claude', 'settings.json'),
    JSON.stringify({
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: guard }] }],
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: submit }] }],
      },
    }),
  );
  ctx.server.setHandler((req) => (req.body.messages.length === 1 ? reply({ type: 'tool_use', name: 'bash', input: { command: 'touch marker' }, id: 'toolu_cli_hook' }) : text('done')));
});

afterEach(() => ctx.close());

describe('run with hooks', () => {
  it('a trusted project\'s PreToolUse hook blocks the call; the model reads why and the user is told', async () => {
    const result = await runCli(['run', '--trust', '--format', 'json', 'touch it'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(0);
    expect(existsSync(join(ctx.project, 'marker'))).toBe(false);
    const [blocked] = toolResults(ctx.server.requests[1]!);
    expect(blocked).toMatchObject({ content: 'Blocked by a PreToolUse hook: Touching files is not allowed here.', is_error: true });
    const events = result.stdout.trim().split('\n').slice(1).map((line) => validEvent(JSON.parse(line)));
    expect(events).toContainEqual(expect.objectContaining({ type: 'hook.notice', hook_event: 'PreToolUse', kind: 'blocked', call_id: 'toolu_cli_hook' }));
    expect(existsSync(join(s.dir, 'submit.ran'))).toBe(true);

    const plain = await runCli(['run', '--trust', 'touch it'], { cwd: ctx.project, env: ctx.env });
    expect(plain.stderr).toContain('Bash call blocked by a PreToolUse hook: Touching files is not allowed here.\n');
  });

  it('an untrusted project\'s hooks never run, and the notice names them', async () => {
    const result = await runCli(['run', 'touch it'], { cwd: ctx.project, env: ctx.env });
    expect(result.stderr).toContain('hooks.PreToolUse, hooks.UserPromptSubmit (.claude/settings.json)');
    expect(s.calls()).toEqual([]);
    expect(existsSync(join(s.dir, 'submit.ran'))).toBe(false);
    expect(existsSync(join(ctx.project, 'marker'))).toBe(false);
  });
});
