// `--agents '<json>'` defines sub-agents for one start, as Claude Code's flag does: listed by
// `agents` with their source, their fields applied and warned about like a file's; bad JSON
// or an unknown field is one sentence naming the flag, exit 2.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';

let ctx: CliProject;
beforeEach(async () => {
  ctx = await startCliProject();
});
afterEach(() => ctx.close());

interface Listing {
  name: string;
  mode: string;
  model: string | null;
  tools: string[];
  source: string;
  warnings?: string[];
}

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'agent-fields');

describe('agents --json', () => {
  it("shows the fields of a trusted project's agent file that change how it runs", async () => {
    mkdirSync(join(ctx.project, '.claude', 'agents'), { recursive: true });
    copyFileSync(join(FIXTURES, 'every-field.md'), join(ctx.project, '.claude', 'agents', 'every-field.md'));
    expect((await runCli(['trust'], { cwd: ctx.project, env: ctx.env })).code).toBe(0);
    const result = await runCli(['agents', '--json'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(0);
    const listed = (JSON.parse(result.stdout) as Array<Record<string, unknown>>).find((a) => a.name === 'every-field')!;
    expect(listed).toMatchObject({
      permissionMode: 'acceptEdits',
      maxTurns: 7,
      isolation: 'worktree',
      background: true,
      memory: 'project',
      color: 'cyan',
      effort: 'high',
      skills: ['code-style'],
      mcpServers: ['local'],
      hooks: ['PreToolUse'],
    });
    // The built-in agents set none of them: nothing is listed that no file set.
    const build = (JSON.parse(result.stdout) as Array<Record<string, unknown>>).find((a) => a.name === 'build')!;
    expect(Object.keys(build).sort()).toEqual(['description', 'mode', 'model', 'name', 'source', 'tools']);
  });
});

describe('--agents', () => {
  it('adds session sub-agents with every field applied, and names what it cannot apply', async () => {
    const agents = {
      reviewer: { description: 'Reviews code', prompt: 'You review code.', tools: ['Read', 'Grep', 'Bash'], disallowedTools: ['Bash'], model: 'haiku', effort: 'high' },
    };
    const result = await runCli(['agents', '--json', '--agents', JSON.stringify(agents)], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(0);
    const listed = (JSON.parse(result.stdout) as Listing[]).find((a) => a.name === 'reviewer')!;
    expect(listed).toMatchObject({ mode: 'subagent', model: 'haiku', source: '--agents', tools: ['read', 'grep', 'ask_user'] });
    expect(listed.warnings).toEqual(['agent "reviewer": "effort: high" is not applied: anthropic/claude-haiku-4-5 takes no effort setting.']);
  });

  it('refuses bad JSON, a non-object and an unknown field in one sentence naming the flag, exit 2', async () => {
    for (const [value, pattern] of [
      ['{"reviewer": ', /^Error: --agents is not valid JSON \(.*\); expected an object of agents by name/],
      ['["reviewer"]', /^Error: --agents must be a JSON object of agents by name/],
      ['{"reviewer": {"descripton": "typo"}}', /^Error: --agents: agent "reviewer" has the unknown field "descripton"/],
      ['{"../x": {}}', /^Error: --agents: "\.\.\/x" is not an agent name/],
    ] as const) {
      const result = await runCli(['run', '--agents', value, 'hello'], { cwd: ctx.project, env: ctx.env });
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(pattern);
    }
  });
});

describe('agents', () => {
  it('names a skill an agent file would preload that no skills folder holds', async () => {
    mkdirSync(join(ctx.project, '.claude', 'agents'), { recursive: true });
    writeFileSync(join(ctx.project, '.claude', 'agents', 'styled.md'), '---\nname: styled\ndescription: Styled.\nskills: [code-style, brand-*]\n---\nBody\n');
    const json = await runCli(['agents', '--json'], { cwd: ctx.project, env: ctx.env });
    const listed = (JSON.parse(json.stdout) as Listing[]).find((a) => a.name === 'styled')!;
    expect(listed.warnings).toEqual(['agent "styled": no skill named "code-style" was found, so its "skills" preloads nothing for it.']);
    const text = await runCli(['agents'], { cwd: ctx.project, env: ctx.env });
    expect(text.stdout).toContain('styled.md: agent "styled": no skill named "code-style" was found');
  });

  it('sums up fields not applied in many files in one start-up line and lists each in agents', async () => {
    mkdirSync(join(ctx.project, '.claude', 'agents'), { recursive: true });
    for (let i = 0; i < 5; i++) {
      writeFileSync(join(ctx.project, '.claude', 'agents', `a${i}.md`), `---\nname: a${i}\ndescription: A.\neffort: high\n${i % 2 ? 'version: 2\n' : ''}---\nBody\n`);
    }
    const result = await runCli(['agents'], { cwd: ctx.project, env: ctx.env });
    const lines = result.stderr.split('\n').filter((l) => l.startsWith('Warning:'));
    // `effort: high` applies (no model of their own says otherwise); `version` is no field at all.
    expect(lines).toEqual(['Warning: 2 agent files carry fields this program does not apply (e.g. version); see `opencode-ink agents`.']);
    expect(result.stdout.split('\n').filter((l) => l.includes('ignoring'))).toHaveLength(2);
  });
});
