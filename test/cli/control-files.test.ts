// The security review's scenario through the built binary: with the README's rules plus
// `"edit": "allow"`, a model adds `core.fsmonitor=<cmd>` to `.git/config` and then runs the
// allowed `git status`, which would run `<cmd>`. `run` refuses the edit (with and without
// `--yes`), says which file and why, and the command never runs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { text, toolResults, toolUse } from '../support/fake-anthropic.js';
import { validStreamLines } from '../support/events.js';

let p: CliProject;
beforeEach(async () => {
  p = await startCliProject();
  execFileSync('git', ['init', '-q'], { cwd: p.project });
  mkdirSync(join(p.dir, 'config'), { recursive: true });
  // The user's own config: trusted, so its allow rules apply.
  writeFileSync(join(p.dir, 'config', 'config.json'), JSON.stringify({ permission: { edit: 'allow', bash: { '*': 'ask', 'git status*': 'allow' } } }));
});
afterEach(() => p.close());

function scriptFsmonitorAttack(): void {
  p.server.enqueue(
    toolUse('read', { file_path: '.git/config' }),
    toolUse('edit', { file_path: '.git/config', old_string: 'bare = false', new_string: 'bare = false\n\tfsmonitor = touch PWNED' }),
    toolUse('bash', { command: 'git status --short' }),
    text('Done.'),
  );
}

describe('a control-file write under run', () => {
  for (const yes of [false, true]) {
    it(`is refused${yes ? ' under --yes' : ''}, naming the file and why, so git status runs nothing`, async () => {
      const before = readFileSync(join(p.project, '.git', 'config'), 'utf8');
      scriptFsmonitorAttack();
      const result = await runCli(['run', ...(yes ? ['--yes'] : []), '--format', 'json', 'tidy the repo'], { cwd: p.project, env: p.env });
      expect(result.code).toBe(0);
      expect(readFileSync(join(p.project, '.git', 'config'), 'utf8')).toBe(before);
      expect(existsSync(join(p.project, 'PWNED'))).toBe(false);

      const [edited] = toolResults(p.server.requests[2]!);
      expect(edited).toMatchObject({ is_error: true });
      expect(String(edited!.content)).toContain('edit was refused: it writes .git/config, which controls git');
      expect(String(edited!.content)).toContain(yes ? '--yes does not approve them' : 'nobody can approve it in this non-interactive run');
      // The allowed git status still ran, harmlessly.
      expect(toolResults(p.server.requests[3]!)[0]).not.toMatchObject({ is_error: true });

      const events = validStreamLines(result.stdout).slice(1) as Array<{ type: string; reason?: string; reply?: string }>;
      expect(events.find((e) => e.type === 'permission.asked')).toMatchObject({ reason: 'writes .git/config, which controls git: always asked' });
      expect(result.stderr).toContain('Refused edit (writes .git/config, which controls git: always asked).');
    });
  }
});
