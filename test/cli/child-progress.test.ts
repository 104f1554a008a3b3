// Plain `run` (text output) tells on stderr as each sub-agent starts and ends — failures and
// limits named — and says nothing of them with `--quiet` (issue 40, item 14). The built binary
// against the fake Messages API; stdout keeps only the answer.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { scriptConversations, toolUse } from '../support/conversations.js';
import { reply, text } from '../support/fake-anthropic.js';

let ctx: CliProject;
beforeEach(async () => {
  ctx = await startCliProject();
});
afterEach(() => ctx.close());

function script(): void {
  scriptConversations(ctx.server, {
    'Map the routes.': [
      reply(
        toolUse('task', { description: 'Find routes', prompt: 'Find the routes.', subagent_type: 'general' }),
        toolUse('task', { description: 'Loop \u001b[31mforever', prompt: 'Loop forever.', subagent_type: 'general', max_turns: 1 }),
      ),
      text('Routes mapped.'),
    ],
    'Find the routes.': [text('found them')],
    'Loop forever.': [reply(toolUse('glob', { pattern: '*' })), text('never read')],
  });
}

it('prints one stderr line per sub-agent start and end, the limited one with why', async () => {
  script();
  const result = await runCli(['run', 'Map the routes.'], { cwd: ctx.project, env: ctx.env });
  expect(result.code).toBe(0);
  expect(result.stdout).toBe('Routes mapped.\n');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(4);
  expect(lines).toContain('▸ general (Find routes) started');
  expect(lines).toContain('▸ general (Loop forever) started');
  expect(lines.find((l) => l.startsWith('✓ general (Find routes) '))).toMatch(/^✓ general \(Find routes\) \d+s$/);
  expect(lines.find((l) => l.startsWith('■ '))).toMatch(
    /^■ general \(Loop forever\) limited after \d+s: reached its limit of 1 model request \(raise task call's max_turns\)$/,
  );
  // Each child's start comes before its end.
  expect(lines.findIndex((l) => l.startsWith('▸ general (Find routes)'))).toBeLessThan(lines.findIndex((l) => l.startsWith('✓ general (Find routes)')));
});

it('says nothing of the sub-agents with --quiet, for run and -p alike', async () => {
  script();
  const quiet = await runCli(['run', '--quiet', 'Map the routes.'], { cwd: ctx.project, env: ctx.env });
  expect(quiet.code).toBe(0);
  expect(quiet.stdout).toBe('Routes mapped.\n');
  expect(quiet.stderr).toBe('');
  script();
  const print = await runCli(['-p', '-q', 'Map the routes.'], { cwd: ctx.project, env: ctx.env });
  expect(print.code).toBe(0);
  expect(print.stderr).toBe('');
  // Only with a prompt to run: the interactive UI has no such lines to silence.
  const misplaced = await runCli(['--quiet'], { cwd: ctx.project, env: ctx.env });
  expect(misplaced.code).toBe(2);
  expect(misplaced.stderr).toContain('--quiet applies to run and -p only');
});
