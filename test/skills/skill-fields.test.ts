// Claude Code's skill fields (issue 39 item 3): `user-invocable` (a slash command, on by
// default), `model`, `context: fork` with `agent` (the command runs as that sub-agent),
// `disable-model-invocation` (hidden from the model's `skill` tool), and `allowed-tools` read
// as Claude Code settings' allow entries, naming those it cannot apply (applied:
// skill-activation.test.ts).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandDefinition } from '../../src/core/commands/index.js';
import { addSkillCommands, loadSkills } from '../../src/core/skills/index.js';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { text } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';

let root: string;
let h: Harness | undefined;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'oci-skill-fields-'));
  mkdirSync(join(root, 'project', '.git'), { recursive: true });
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  rmSync(root, { recursive: true, force: true });
});

function skill(name: string, frontMatter: string, body = `Instructions of ${name}.`): void {
  const dir = join(root, 'project', '.claude', 'skills', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: The ${name} skill.\n${frontMatter}---\n${body}\n`);
}

const load = () => loadSkills({ configDir: join(root, 'config'), cwd: join(root, 'project') });

describe('skill file fields', () => {
  it('makes user-invocable skills slash commands with their model, and context: fork a subtask of its agent', () => {
    skill('plain', '');
    skill('forked', 'context: fork\nagent: explore\nmodel: haiku\n');
    skill('hidden-from-user', 'user-invocable: false\n');
    skill('init', '');
    const catalogue = load();
    const commands = new Map<string, CommandDefinition>([['init', { name: 'init', template: 'x', source: 'builtin' }]]);
    const warnings = addSkillCommands(catalogue.skills.values(), commands, undefined);
    expect([...commands.keys()].sort()).toEqual(['forked', 'init', 'plain']);
    expect(commands.get('plain')).toMatchObject({ description: 'The plain skill.', source: join(root, 'project', '.claude', 'skills', 'plain', 'SKILL.md') });
    expect(commands.get('plain')!.template).toContain('Instructions of plain.');
    expect(commands.get('forked')).toMatchObject({ agent: 'explore', subtask: true, model: 'haiku' });
    expect(warnings).toEqual([expect.objectContaining({ message: expect.stringMatching(/^skill "init" is not a slash command: \/init is the command of builtin/) })]);
  });

  it('names fields it does not apply as written, with the file', () => {
    skill('tools', 'allowed-tools: Read, Grep Bash(git add:*), Teleport\n');
    skill('odd-context', 'context: inline\nagent: explore\n');
    skill('nobody', 'user-invocable: false\ndisable-model-invocation: true\n');
    const { warnings } = load();
    const of = (name: string) => warnings.filter((w) => w.source.endsWith(join(name, 'SKILL.md'))).map((w) => w.message);
    expect(of('tools')).toEqual(['skill "tools": "allowed-tools": "Teleport" names no tool (or scope) this program has, so it still asks as the rules say.']);
    expect(of('odd-context')).toEqual([
      'skill "odd-context": ignoring "context: inline": the only context a skill can ask for is fork.',
      'skill "odd-context": ignoring "agent": it names the sub-agent of "context: fork", which this skill does not set.',
    ]);
    expect(of('nobody')).toEqual([expect.stringMatching(/nobody can use this skill/)]);
  });

  it('grants Claude Code\'s team tools as their counterparts here, and says which tools have none', () => {
    skill('teamwork', 'allowed-tools: TeamCreate, TeamDelete, NotebookEdit, ToolSearch\n');
    const { skills, warnings } = load();
    expect(skills.get('teamwork')!.grants).toEqual([
      { permission: 'task', patterns: ['*'] },
      { permission: 'send_message', patterns: ['*'] },
    ]);
    expect(warnings.map((w) => w.message)).toEqual([
      'skill "teamwork": "allowed-tools": "NotebookEdit" is a Claude Code tool with no counterpart here (notebooks are edited as text by edit and write), so it grants nothing.',
      'skill "teamwork": "allowed-tools": "ToolSearch" is a Claude Code tool with no counterpart here (every tool is offered to the model at once, so there is nothing to search for), so it grants nothing.',
    ]);
  });

  it('forks a skill naming Claude Code\'s built-in sub-agents into ours', () => {
    skill('cc-general', 'context: fork\nagent: general-purpose\n');
    skill('cc-explore', 'context: fork\nagent: Explore\n');
    skill('own', 'context: fork\nagent: reviewer\n');
    const { skills } = load();
    expect(skills.get('cc-general')!.fork).toEqual({ agent: 'general' });
    expect(skills.get('cc-explore')!.fork).toEqual({ agent: 'explore' });
    expect(skills.get('own')!.fork).toEqual({ agent: 'reviewer' });
  });

  it('reads allowed-tools as a list or as entries split on commas and spaces outside parentheses', () => {
    skill('spaced', 'allowed-tools: Bash(git add:*) Bash(git commit, git status), Read\n');
    skill('listed', 'allowed-tools:\n  - "Bash(npm run test:*)"\n  - WebFetch(domain:example.com)\n');
    const { skills, warnings } = load();
    expect(warnings).toEqual([]);
    expect(skills.get('spaced')).toMatchObject({
      allowedTools: ['Bash(git add:*)', 'Bash(git commit, git status)', 'Read'],
      grants: [
        { permission: 'bash', patterns: ['git add', 'git add *'] },
        { permission: 'bash', patterns: ['git commit', 'git status'] },
        { permission: 'read', patterns: ['*'] },
      ],
    });
    expect(skills.get('listed')!.grants).toEqual([
      { permission: 'bash', patterns: ['npm run test', 'npm run test *'] },
      { permission: 'webfetch', patterns: ['https://example.com/*', 'http://example.com/*'] },
    ]);
  });

  it('keeps a disable-model-invocation skill out of the model\'s skill tool', async () => {
    h = await startHarness({
      files: {
        '.claude/skills/public/SKILL.md': '---\nname: public\ndescription: Anyone may load it.\n---\nPUBLIC\n',
        '.claude/skills/manual/SKILL.md': '---\nname: manual\ndescription: Only by hand.\ndisable-model-invocation: true\n---\nMANUAL\n',
      },
    });
    const engine = h.newEngine({ skills: loadSkills({ configDir: join(h.dir, 'config'), cwd: h.projectDir }) });
    scriptConversations(h.server, { 'which skills': [text('none')] });
    await engine.prompt(engine.createSession().id, 'which skills');
    const tools = requestsOf(h.server, 'which skills')[0]!.body.tools as Array<{ name: string; description: string }>;
    const skillTool = tools.find((t) => t.name === 'skill')!;
    expect(skillTool.description).toContain('- public:');
    expect(skillTool.description).not.toContain('manual');
  });
});
