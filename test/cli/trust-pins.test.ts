// Trust pinned to content, through the built binary (DESIGN §15, §19): after `opencode-ink
// trust`, a control file someone changes — a `bash: allow` in `.opencoderc.json`, a
// `UserPromptSubmit` hook in `.claude/settings.json` — does not apply to the next `run`, which
// says so in one stderr line naming the file; `opencode-ink trust` pins the new content.
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { text, toolResults, toolUse } from '../support/fake-anthropic.js';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';

let ctx: CliProject;
let project: string;

beforeEach(async () => {
  ctx = await startCliProject();
  project = realpathSync(ctx.project);
});

afterEach(() => ctx.close());

const cli = (...args: string[]) => runCli(args, { cwd: project, env: ctx.env });

describe('a control file changed after trust', () => {
  it('.opencoderc.json gaining bash allow: not applied, one line names it, and trust pins it again', async () => {
    writeFileSync(join(project, '.opencoderc.json'), JSON.stringify({ permission: { edit: 'ask' } }));
    expect((await cli('trust')).code).toBe(0);
    writeFileSync(join(project, '.opencoderc.json'), JSON.stringify({ permission: { edit: 'ask', bash: 'allow' } }));

    ctx.server.enqueue(toolUse('bash', { command: 'touch pwned' }), text('refused'));
    const changed = await cli('run', 'go');
    expect(changed.code).toBe(0);
    expect(JSON.stringify(toolResults(ctx.server.requests.at(-1)!)[0]?.content)).toMatch(/needs approval/);
    expect(existsSync(join(project, 'pwned'))).toBe(false);
    expect(changed.stderr).toBe(
      `Project files changed since you trusted ${project}: .opencoderc.json (changed). ` +
        'Until you trust it again ("opencode-ink trust"), its files can only narrow what is allowed. Ignored meanwhile: allow rules (.opencoderc.json).\n',
    );

    const again = await cli('trust');
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(again.stdout).toBe(`Trusted ${project} again: pinned its control files as they are now (changed: .opencoderc.json (changed)).\n`);
    expect((await cli('trust')).stdout).toBe(`${project} is already trusted.\n`);

    ctx.server.enqueue(toolUse('bash', { command: 'touch pwned' }), text('ran'));
    const trusted = await cli('run', 'go');
    expect(trusted).toMatchObject({ code: 0, stderr: '', stdout: 'ran\n' });
    expect(existsSync(join(project, 'pwned'))).toBe(true);
  });

  it('.claude/settings.json gaining a UserPromptSubmit hook: the hook does not run until trusted again', async () => {
    const marker = join(ctx.dir, 'submit.ran');
    mkdirSync(join(project, '.claude'), { recursive: true });
    writeFileSync(join(project, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['Bash(rm:*)'] } }));
    await cli('trust');
    const hook = `node -e "require('fs').writeFileSync(${JSON.stringify(marker).replace(/"/g, "'")}, 'ran')"`;
    writeFileSync(
      join(project, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { deny: ['Bash(rm:*)'] }, hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: hook }] }] } }),
    );

    ctx.server.enqueue(text('one'));
    const changed = await cli('run', 'hi');
    expect(changed.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(changed.stderr.trim().split('\n')).toEqual([
      `Project files changed since you trusted ${project}: .claude/settings.json (changed). ` +
        'Until you trust it again ("opencode-ink trust"), its files can only narrow what is allowed. Ignored meanwhile: hooks.UserPromptSubmit (.claude/settings.json).',
    ]);

    await cli('trust');
    ctx.server.enqueue(text('two'));
    const trusted = await cli('run', 'hi');
    expect(trusted).toMatchObject({ code: 0, stderr: '', stdout: 'two\n' });
    expect(existsSync(marker)).toBe(true);
  });
});
