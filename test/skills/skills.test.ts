// Skills (DESIGN §20) through the real loaders, the real engine and the fake Messages API:
// the vendored Apache-2.0 skills of anthropics/skills are listed in the `skill` tool's
// description (names and descriptions, never bodies) and each loads with its folder's path;
// broken SKILL.md files become warnings; agents' `skills:` narrows what they see.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/core/project-context.js';
import { readFrontMatter } from '../../src/core/frontmatter.js';
import { agentToolNames, Engine } from '../../src/core/engine.js';
import { createProvider } from '../../src/core/provider/index.js';
import { loadSkills, MAX_LISTING_CHARS, skillListing, type SkillDefinition } from '../../src/core/skills/index.js';
import { reply, text, toolResults, type RecordedRequest } from '../support/fake-anthropic.js';
import { waitForEvent } from '../support/harness.js';
import type { EventOf } from '../../src/core/events.js';
import { projectFixtureForEachTest, put } from '../support/project-fixture.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'anthropic-skills');
const VENDORED = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

const fixture = projectFixtureForEachTest('oci-skills-');

function installVendoredSkills(): void {
  cpSync(FIXTURES, join(fixture.dir, '.claude', 'skills'), { recursive: true });
}

function engineFor(interactive = false): { engine: Engine; warnings: string[] } {
  const ctx = loadProject({ cwd: fixture.project, env: fixture.env });
  const provider = createProvider('anthropic', { apiKey: 'test-key', baseURL: fixture.server.url, maxRetries: 0 });
  const engine = new Engine({
    cwd: fixture.project,
    config: ctx.config,
    store: fixture.store,
    agents: ctx.agents,
    commands: ctx.commands,
    skills: ctx.skills,
    interactive,
    providerFor: () => provider,
  });
  return { engine, warnings: ctx.warnings };
}

function skillTool(req: RecordedRequest): { name: string; description?: string } | undefined {
  return req.body.tools?.find((t) => t.name === 'skill');
}

function resultTexts(req: RecordedRequest): Array<{ text: string; isError: boolean }> {
  return toolResults(req).map((r) => ({ text: typeof r.content === 'string' ? r.content : JSON.stringify(r.content), isError: r.is_error === true }));
}

describe('the vendored anthropics/skills', () => {
  it('are the twelve Apache-2.0 skills, each with its license', () => {
    expect(VENDORED).toHaveLength(12);
    for (const name of VENDORED) expect(readFileSync(join(FIXTURES, name, 'LICENSE.txt'), 'utf8')).toContain('Apache License');
  });

  it('are all listed in the skill tool and all load with their folder, through the engine', async () => {
    installVendoredSkills();
    const { engine, warnings } = engineFor();
    expect(warnings.filter((w) => /skill/i.test(w))).toEqual([]);
    fixture.server.enqueue(reply(...VENDORED.map((name) => ({ type: 'tool_use' as const, name: 'skill', input: { name } }))), text('done'));
    const session = engine.createSession();
    await engine.prompt(session.id, 'use the skills');

    const listing = skillTool(fixture.server.requests[0]!)?.description ?? '';
    for (const name of VENDORED) {
      const front = readFrontMatter(readFileSync(join(FIXTURES, name, 'SKILL.md'), 'utf8'));
      if (!front.ok) throw new Error(front.reason);
      const description = String(front.data.description).replace(/\s+/g, ' ').trim();
      expect(listing).toContain(`- ${name}: ${description.slice(0, 200)}`);
      // Progressive disclosure: the instructions are not in the prompt.
      expect(listing).not.toContain(front.body.trim().slice(0, 300));
    }

    const results = resultTexts(fixture.server.requests[1]!);
    expect(results).toHaveLength(VENDORED.length);
    VENDORED.forEach((name, i) => {
      const result = results[i]!;
      expect(result.isError).toBe(false);
      expect(result.text).toContain(`folder: ${join(fixture.dir, '.claude', 'skills', name)}`);
      const body = readFileSync(join(FIXTURES, name, 'SKILL.md'), 'utf8').split('\n---\n').slice(1).join('\n---\n').trim();
      expect(result.text).toContain(body.slice(0, 500));
      expect(result.text).toContain(body.slice(-300));
    });
  });

  it('answer an unknown name with an error naming the close ones', async () => {
    installVendoredSkills();
    const { engine } = engineFor();
    fixture.server.enqueue(reply({ type: 'tool_use', name: 'skill', input: { name: 'theme-factori' } }), text('done'));
    await engine.prompt(engine.createSession().id, 'go');
    const [result] = resultTexts(fixture.server.requests[1]!);
    expect(result).toEqual({ isError: true, text: expect.stringContaining('Unknown skill "theme-factori". Did you mean "theme-factory"?') });
  });
});

describe('skill folders', () => {
  it('let a project skill replace the user\'s of the same name, and load without trust', () => {
    put(join(fixture.dir, '.claude', 'skills', 'deploy', 'SKILL.md'), '---\nname: deploy\ndescription: the user\'s\n---\nUser body.');
    put(join(fixture.dir, 'config', 'skills', 'lint', 'SKILL.md'), '---\ndescription: lint things\n---\nLint body.');
    put(join(fixture.project, '.claude', 'skills', 'deploy', 'SKILL.md'), '---\nname: deploy\ndescription: the project\'s\n---\nProject body.');
    put(join(fixture.project, '.opencode', 'skills', 'notes', 'SKILL.md'), '---\nname: notes\ndescription: take notes\n---\nNotes.');
    const { skills } = loadProject({ cwd: fixture.project, env: fixture.env });
    expect([...skills.skills.keys()].sort()).toEqual(['deploy', 'lint', 'notes']);
    expect(skills.skills.get('deploy')).toMatchObject({ description: "the project's", body: 'Project body.', origin: 'project' });
    // No name in the front-matter: the folder's name.
    expect(skills.skills.get('lint')).toMatchObject({ origin: 'user', dir: join(fixture.dir, 'config', 'skills', 'lint') });
  });

  it('sum broken SKILL.md files up in one warning, and skip them', () => {
    put(join(fixture.project, '.claude', 'skills', 'good', 'SKILL.md'), '---\ndescription: fine\n---\nok');
    put(join(fixture.project, '.claude', 'skills', 'no-description', 'SKILL.md'), '---\nname: no-description\n---\nbody');
    put(join(fixture.project, '.claude', 'skills', 'bad-yaml', 'SKILL.md'), '---\ndescription: [unclosed\n---\nbody');
    put(join(fixture.project, '.claude', 'skills', 'bad-name', 'SKILL.md'), '---\nname: "\\u001b]0;pwned\\u0007"\ndescription: x\n---\nbody');
    put(join(fixture.project, '.claude', 'skills', 'huge', 'SKILL.md'), `---\ndescription: big\n---\n${'x'.repeat(1024 * 1024 + 10)}`);
    // A FIFO would block a plain read forever: it is skipped unread.
    mkdirSync(join(fixture.project, '.claude', 'skills', 'fifo'), { recursive: true });
    execFileSync('mkfifo', [join(fixture.project, '.claude', 'skills', 'fifo', 'SKILL.md')]);
    // Not a skill: a folder of assets without SKILL.md says nothing.
    put(join(fixture.project, '.claude', 'skills', 'assets', 'logo.txt'), 'logo');
    const ctx = loadProject({ cwd: fixture.project, env: fixture.env });
    expect([...ctx.skills.skills.keys()]).toEqual(['good']);
    const lines = ctx.warnings.filter((w) => /skill/i.test(w));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Warning: 5 skills could not be loaded \(.*bad-name.*, and 2 more\); first: .*\/skills/);
    expect(ctx.skills.warnings.map((w) => w.source.split('/').at(-2))).toEqual(['bad-name', 'bad-yaml', 'fifo', 'huge', 'no-description']);
    expect(ctx.skills.warnings[4]!.message).toMatch(/description/);
    expect(ctx.skills.warnings[3]!.message).toMatch(/too big|MB|bytes/i);
    expect(ctx.skills.warnings[2]!.message).toMatch(/FIFO|regular/i);
  });

  it('keep the listing bounded, naming the skills left without a description', () => {
    const many: SkillDefinition[] = Array.from({ length: 200 }, (_, i) => ({
      name: `skill-${String(i).padStart(3, '0')}`,
      description: 'd'.repeat(2000),
      body: '',
      dir: '/x',
      file: '/x/SKILL.md',
      origin: 'user',
    }));
    const listing = skillListing(many);
    expect(listing.length).toBeLessThan(MAX_LISTING_CHARS + 4_200);
    expect(listing).toContain(`- skill-000: ${'d'.repeat(1023)}…`);
    expect(listing).toMatch(/Also available \(descriptions left out for space\): skill-0\d\d, /);
    expect(listing).toContain('skill-199');
  });

  it('read nothing but the first folders of a crowded skills folder', () => {
    for (let i = 0; i < 510; i++) mkdirSync(join(fixture.project, '.claude', 'skills', `s${String(i).padStart(3, '0')}`), { recursive: true });
    put(join(fixture.project, '.claude', 'skills', 's001', 'SKILL.md'), '---\ndescription: one\n---\n');
    put(join(fixture.project, '.claude', 'skills', 's505', 'SKILL.md'), '---\ndescription: beyond the cap\n---\n');
    const loaded = loadSkills({ configDir: join(fixture.dir, 'config'), cwd: fixture.project });
    expect([...loaded.skills.keys()]).toEqual(['s001']);
    expect(loaded.warnings[0]!.message).toMatch(/only the first 500 of its 510 entries/);
  });
});

describe('agents and skills', () => {
  beforeEach(() => {
    installVendoredSkills();
  });

  async function skillToolFor(agentFile: string | undefined, agentName: string): Promise<string | undefined> {
    if (agentFile) put(join(fixture.project, '.opencode', 'agents', `${agentName}.md`), agentFile);
    const { engine } = engineFor();
    fixture.server.enqueue(text('ok'));
    await engine.prompt(engine.createSession({ agent: agentName }).id, 'hi');
    return skillTool(fixture.server.requests.at(-1)!)?.description;
  }

  it('give an agent every skill by default', async () => {
    const listing = await skillToolFor(undefined, 'build');
    for (const name of VENDORED) expect(listing).toContain(`- ${name}:`);
  });

  it('narrow the listing to the skills an agent names, globs included', async () => {
    const listing = await skillToolFor('---\nmode: primary\nskills: [pdf-none, theme-factory, "web*"]\n---\nYou write.', 'writer');
    expect(listing?.match(/^- [^:]+:/gm)).toEqual(['- theme-factory:', '- web-artifacts-builder:', '- webapp-testing:']);
  });

  it('leave the tool out for `skills: none`', async () => {
    expect(await skillToolFor('---\nmode: primary\nskills: none\n---\nNo skills.', 'plain')).toBeUndefined();
  });

  it('map Claude Code\'s Skill in a tools allowlist to the skill tool', async () => {
    expect(await skillToolFor('---\nmode: primary\ntools: Read, Skill\n---\nx', 'reader')).toBeDefined();
    expect(await skillToolFor('---\nmode: primary\ntools: Read, Grep\n---\nx', 'grepper')).toBeUndefined();
  });

  it('show the skill tool in an agent\'s tool list only when it may load some skill', () => {
    put(join(fixture.project, '.opencode', 'agents', 'plain.md'), '---\nmode: primary\nskills: none\n---\nNo skills.');
    const ctx = loadProject({ cwd: fixture.project, env: fixture.env });
    const tools = (name: string) => agentToolNames(ctx.agents.get(name)!, ctx.config, true, ctx.skills.skills.values());
    expect(tools('build')).toContain('skill');
    expect(tools('plain')).not.toContain('skill');
    expect(agentToolNames(ctx.agents.get('build')!, ctx.config, true)).not.toContain('skill');
  });

  it('hide skills that a permission rule denies, and refuse a call to one', async () => {
    put(join(fixture.project, '.opencoderc.json'), JSON.stringify({ permission: { skill: { 'claude-*': 'deny' } } }));
    const { engine } = engineFor();
    fixture.server.enqueue(reply({ type: 'tool_use', name: 'skill', input: { name: 'claude-api' } }), text('done'));
    await engine.prompt(engine.createSession().id, 'go');
    const listing = skillTool(fixture.server.requests[0]!)?.description ?? '';
    expect(listing).not.toContain('- claude-api:');
    expect(listing).toContain('- mcp-builder:');
    expect(resultTexts(fixture.server.requests[1]!)[0]).toMatchObject({ isError: true, text: expect.stringContaining('claude-api') });
  });

  it('ask before loading a skill an `ask` rule names, and load the others unasked', async () => {
    put(join(fixture.project, '.opencoderc.json'), JSON.stringify({ permission: { skill: { 'claude-*': 'ask' } } }));
    const { engine } = engineFor(true);
    fixture.server.enqueue(reply({ type: 'tool_use', name: 'skill', input: { name: 'claude-api' } }, { type: 'tool_use', name: 'skill', input: { name: 'mcp-builder' } }), text('done'));
    const asked = waitForEvent(engine, (e) => e.type === 'permission.asked') as Promise<EventOf<'permission.asked'>>;
    const turn = engine.prompt(engine.createSession().id, 'go');
    const question = await asked;
    expect(question).toMatchObject({ tool: 'skill', permission: 'skill', patterns: ['claude-api'], subject: 'Load the skill "claude-api"' });
    engine.replyPermission(question.request_id, 'reject');
    expect((await turn).status).toBe('completed');
    // Still listed (ask is not deny); refused as the user said, while the other skill loaded without a question.
    expect(skillTool(fixture.server.requests[0]!)?.description).toContain('- claude-api:');
    const [refused, loaded] = resultTexts(fixture.server.requests[1]!);
    expect(refused).toEqual({ isError: true, text: 'The user denied permission for skill `claude-api`.' });
    expect(loaded).toMatchObject({ isError: false, text: expect.stringMatching(/^Skill "mcp-builder" — folder: /) });
    await engine.close();
  });
});
