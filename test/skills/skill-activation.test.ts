// A skill the model loads through the `skill` tool (issue 39 item 3), through the real engine,
// tools and Anthropic SDK against the fake server: its `allowed-tools` let exactly the listed
// tools run unasked in the session that loaded it (never past deny rules, the control-file
// guard, plan mode, nor in its sub-agents, nor for an untrusted project's skill), each such run
// a `permission.auto` event and stored row naming the skill; and a `context: fork` skill runs
// as a sub-agent of its `agent` with its `model`, its result coming back as the tool result.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventOf } from '../../src/core/events.js';
import { Engine } from '../../src/core/engine.js';
import { loadProject } from '../../src/core/project-context.js';
import { createProvider } from '../../src/core/provider/index.js';
import type { CommandDefinition } from '../../src/core/commands/index.js';
import { addSkillCommands, loadSkills } from '../../src/core/skills/index.js';
import { requestsOf, scriptConversations, taskUse, toolUse } from '../support/conversations.js';
import { lastUserText, reply, systemText, text, toolResults, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, type Harness, type HarnessOptions } from '../support/harness.js';
import { projectFixtureForEachTest, put } from '../support/project-fixture.js';

let h: Harness | undefined;
afterEach(async () => {
  h?.engine.cancelAll();
  await h?.engine.close();
  await h?.close();
  h = undefined;
});

const bash = (command: string) => toolUse('bash', { command });
const write = (file_path: string, content = 'new\n') => toolUse('write', { file_path, content });
const loadSkill = (name: string, args?: string) => toolUse('skill', { name, ...(args !== undefined ? { arguments: args } : {}) });
const results = (req: RecordedRequest) => toolResults(req).map((r) => ({ text: String(r.content), isError: r.is_error === true }));
const autos = (harness: Harness) => harness.events.filter((e): e is EventOf<'permission.auto'> => e.type === 'permission.auto');
const skillFile = (name: string, frontMatter: string, body = `Instructions of ${name}.`) => ({
  [`.claude/skills/${name}/SKILL.md`]: `---\nname: ${name}\ndescription: The ${name} skill.\n${frontMatter}---\n${body}\n`,
});

/** A harness whose engine has the project's skills, and their slash commands; asks are refused (non-interactive). */
async function withSkills(opts: HarnessOptions): Promise<Harness> {
  const harness = await startHarness(opts);
  await harness.engine.close();
  const skills = loadSkills({ configDir: join(harness.dir, 'config'), cwd: harness.projectDir });
  const commands = new Map<string, CommandDefinition>();
  addSkillCommands(skills.skills.values(), commands, undefined);
  harness.engine = harness.newEngine({ skills, commands });
  return harness;
}

/** What a skill's slash command (and a forked skill's sub-agent) is sent: its instructions under a header naming its folder. */
function instructions(harness: Harness, name: string, body: string, args = ''): string {
  const dir = join(harness.projectDir, '.claude', 'skills', name);
  return `Skill "${name}" — folder: ${dir}\nPaths in these instructions are relative to that folder.\n\n${body}${args ? `\n\n${args}` : ''}`;
}

describe('allowed-tools of a loaded skill', () => {
  it('lets exactly the listed commands run unasked once the skill is loaded, and records each naming the skill', async () => {
    h = await withSkills({ files: skillFile('maker', 'allowed-tools: Bash(touch made:*) Read\n') });
    scriptConversations(h.server, {
      make: [
        reply(bash('touch before')),
        reply(loadSkill('maker')),
        reply(bash('touch made'), bash('touch other'), bash('touch made; touch sneaky')),
        text('done'),
      ],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'make')).status).toBe('completed');
    const requests = requestsOf(h.server, 'make');
    expect(results(requests[1]!)[0]).toMatchObject({ isError: true, text: expect.stringMatching(/needs approval|not allowed|denied/) });
    expect(results(requests[2]!)[0]!.text).toContain('Instructions of maker.');
    const [made, other, chained] = results(requests[3]!);
    expect(made!.isError).toBe(false);
    expect(other!.isError).toBe(true);
    expect(chained!.isError).toBe(true);
    expect(existsSync(join(h.projectDir, 'made'))).toBe(true);
    for (const file of ['before', 'other', 'sneaky']) expect(existsSync(join(h.projectDir, file))).toBe(false);
    expect(autos(h)).toEqual([expect.objectContaining({ skill: 'maker', tool: 'bash', permission: 'bash', mode: 'default', session_id: root.id })]);
    expect(h.store.autoApprovals(root.id)).toEqual([expect.objectContaining({ skill: 'maker', tool: 'bash', subject: 'touch made' })]);
  });

  it('never beats a deny rule, the control-file guard or plan mode', async () => {
    h = await withSkills({
      config: { permission: { bash: { 'touch denied*': 'deny' } } },
      files: skillFile('loose', 'allowed-tools: Bash, Write, Edit\n'),
    });
    scriptConversations(h.server, {
      loose: [reply(loadSkill('loose')), reply(bash('touch denied'), write('src/a.ts'), write('.claude/settings.json', '{}')), text('done')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'loose');
    const [denied, wrote, control] = results(requestsOf(h.server, 'loose')[2]!);
    expect(denied).toMatchObject({ isError: true, text: expect.stringMatching(/denied by the configured rules/) });
    expect(wrote!.isError).toBe(false);
    expect(control!.isError).toBe(true);
    expect(readFileSync(join(h.projectDir, 'src/a.ts'), 'utf8')).toBe('new\n');
    expect(existsSync(join(h.projectDir, '.claude/settings.json'))).toBe(false);
    expect(autos(h).map((a) => [a.skill, a.tool])).toEqual([['loose', 'write']]);

    // Plan mode: the skill loads, yet commands still ask (refused here) and edits stay refused.
    await h.engine.close();
    h.engine = h.newEngine({ permissionMode: 'plan', skills: loadSkills({ configDir: join(h.dir, 'config'), cwd: h.projectDir }) });
    scriptConversations(h.server, { planned: [reply(loadSkill('loose')), reply(bash('touch planned'), write('src/b.ts')), text('done')] });
    await h.engine.prompt(h.engine.createSession().id, 'planned');
    const [cmd, edit] = results(requestsOf(h.server, 'planned')[2]!);
    expect(cmd!.isError).toBe(true);
    expect(edit).toMatchObject({ isError: true, text: expect.stringMatching(/^Plan mode is read-only/) });
    expect(existsSync(join(h.projectDir, 'planned'))).toBe(false);
  });

  it('applies in the session that loaded the skill only, not in its sub-agents', async () => {
    h = await withSkills({ files: skillFile('maker', 'allowed-tools: Bash(touch:*)\n') });
    scriptConversations(h.server, {
      parent: [reply(loadSkill('maker')), reply(taskUse('child of skilled')), reply(bash('touch by-parent')), text('done')],
      'child of skilled': [reply(bash('touch by-child')), text('child done')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'parent');
    expect(results(requestsOf(h.server, 'child of skilled')[1]!)[0]!.isError).toBe(true);
    expect(existsSync(join(h.projectDir, 'by-child'))).toBe(false);
    expect(existsSync(join(h.projectDir, 'by-parent'))).toBe(true);
    expect(autos(h)).toEqual([expect.objectContaining({ skill: 'maker', session_id: root.id })]);
  });
});

describe('a loaded skill in a session opened again', () => {
  it('stays active after a restart, but not in a fork, whose conversation starts as a copy of its caller\'s', async () => {
    h = await withSkills({ files: skillFile('maker', 'allowed-tools: Bash(touch:*)\n') });
    scriptConversations(h.server, { resumed: [reply(loadSkill('maker')), text('loaded')] });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'resumed');
    await h.engine.close();

    // A restarted process: a new engine over the same store, with the same skills.
    h.engine = h.newEngine({ skills: loadSkills({ configDir: join(h.dir, 'config'), cwd: h.projectDir }) });
    const isFork = (r: RecordedRequest) => JSON.stringify(r.body.messages).includes('<fork>');
    const parent = [reply(bash('touch after-restart'), toolUse('task', { description: 'fork', prompt: 'fork work', subagent_type: 'fork' })), text('done')];
    const forked = [reply(bash('touch by-fork')), text('fork done')];
    h.server.setHandler((req) => (isFork(req) ? forked : parent).shift() ?? text('unscripted'));
    await h.engine.prompt(root.id, 'again');
    expect(existsSync(join(h.projectDir, 'after-restart'))).toBe(true);
    expect(existsSync(join(h.projectDir, 'by-fork'))).toBe(false);
    const forkRequests = h.server.requests.filter(isFork);
    expect(forkRequests).toHaveLength(2);
    expect(results(forkRequests[1]!)[0]!.isError).toBe(true);
    expect(autos(h).map((a) => [a.skill, a.session_id])).toEqual([['maker', root.id]]);
  });
});

describe('a context: fork skill the model invokes', () => {
  it('runs as a sub-agent of its agent with its model, given the instructions and arguments, and returns its report', async () => {
    h = await withSkills({
      files: skillFile('review', 'context: fork\nagent: explore\nmodel: haiku\nallowed-tools: Bash(touch forked:*)\n', 'Review the file named below.'),
    });
    const childPrompt = instructions(h, 'review', 'Review the file named below.', 'src/x.ts');
    scriptConversations(h.server, {
      'review it': [reply(loadSkill('review', 'src/x.ts')), reply(bash('touch forked-by-parent')), text('parent done')],
      [childPrompt]: [reply(bash('touch forked')), text('REVIEW REPORT')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'review it')).status).toBe('completed');
    const child = requestsOf(h.server, childPrompt);
    expect(child).toHaveLength(2);
    expect(child[0]!.body.model).toBe('claude-haiku-4-5');
    expect(systemText(child[0]!)).toContain('You are a read-only code exploration sub-agent');
    const [result] = results(requestsOf(h.server, 'review it')[1]!);
    expect(result!.isError).toBe(false);
    expect(result!.text).toMatch(/<task id="[^"]+" state="completed">/);
    expect(result!.text).toContain('REVIEW REPORT');
    const rows = h.store.tree(root.id).children.map((c) => c.session);
    expect(rows).toEqual([expect.objectContaining({ agent: 'explore', tool_call_id: expect.stringMatching(/^toolu_skill_/) })]);
    // Its allowed-tools apply in the sub-agent that runs it, not in the session that called it.
    expect(existsSync(join(h.projectDir, 'forked'))).toBe(true);
    expect(existsSync(join(h.projectDir, 'forked-by-parent'))).toBe(false);
    expect(autos(h)).toEqual([expect.objectContaining({ skill: 'review', session_id: rows[0]!.id })]);
  });

  it('is active again in its sub-agent when that is resumed after a restart', async () => {
    h = await withSkills({ files: skillFile('review', 'context: fork\nagent: explore\nallowed-tools: Bash(touch forked:*)\n', 'Review.') });
    const childPrompt = instructions(h, 'review', 'Review.');
    const root = h.engine.createSession();
    const childId = () => h!.store.tree(root.id).children[0]!.session.id;
    scriptConversations(h.server, {
      'fork then resume': [
        reply(loadSkill('review')),
        text('reviewed'),
        () => reply(toolUse('task', { description: 'more', prompt: 'touch it', subagent_type: 'explore', session_id: childId() })),
        text('done'),
      ],
      [childPrompt]: [text('first report'), reply(bash('touch forked')), text('second report')],
    });
    await h.engine.prompt(root.id, 'fork then resume');
    await h.engine.close();
    h.engine = h.newEngine({ skills: loadSkills({ configDir: join(h.dir, 'config'), cwd: h.projectDir }) });
    await h.engine.prompt(root.id, 'again');
    expect(results(requestsOf(h.server, childPrompt)[2]!)[0]!.isError).toBe(false);
    expect(existsSync(join(h.projectDir, 'forked'))).toBe(true);
    expect(autos(h).map((a) => [a.skill, a.session_id])).toEqual([['review', childId()]]);
  });
});

describe('a skill the user starts with its slash command', () => {
  it('is active in the session from then on, and a forked one in the sub-agent it runs in', async () => {
    h = await withSkills({
      files: {
        ...skillFile('maker', 'allowed-tools: Bash(touch made:*)\n'),
        ...skillFile('forky', 'context: fork\nallowed-tools: Bash(touch forked:*)\n', 'Fork work.'),
      },
    });
    const started = instructions(h, 'maker', 'Instructions of maker.');
    const childPrompt = instructions(h, 'forky', 'Fork work.', 'now');
    scriptConversations(h.server, {
      [started]: [reply(bash('touch made')), text('made it')],
      '/forky now': [reply(bash('touch forked')), text('parent done')],
      [childPrompt]: [reply(bash('touch forked')), text('FORK REPORT')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, '/maker')).status).toBe('completed');
    expect(existsSync(join(h.projectDir, 'made'))).toBe(true);

    const forkRoot = h.engine.createSession();
    expect((await h.engine.prompt(forkRoot.id, '/forky now')).status).toBe('completed');
    expect(results(requestsOf(h.server, childPrompt)[1]!)[0]!.isError).toBe(false);
    // The session that started the forked skill has not loaded it: the same command asks there.
    expect(results(requestsOf(h.server, '/forky now')[1]!)[0]!.isError).toBe(true);
    const child = h.store.tree(forkRoot.id).children[0]!.session;
    expect(autos(h).map((a) => [a.skill, a.session_id])).toEqual([['maker', root.id], ['forky', child.id]]);
  });
});

describe('a skill the user started with its slash command, in a session opened again', () => {
  it('stays active after a restart, and after a compaction that summarised the turn that started it', async () => {
    const limit = { provider: { anthropic: { models: { 'claude-test': { limit: { context: 100_000 } } } } }, model: 'anthropic/claude-test' };
    h = await withSkills({ config: limit, files: skillFile('maker', 'allowed-tools: Bash(touch:*)\n') });
    const long = 'and more '.repeat(1_000);
    // `touch <file>` asks for that command; anything else gets a long answer, so there is something to summarise.
    h.server.setHandler((req) => {
      if (systemText(req).includes('You summarise a coding session')) return text('The user started the maker skill.');
      if (toolResults(req).length > 0) return text('ran');
      const last = lastUserText(req);
      return last.startsWith('touch ') ? reply(bash(last)) : text(`noted ${long}`);
    });
    const restart = async () => {
      await h!.engine.close();
      h!.engine = h!.newEngine({ skills: loadSkills({ configDir: join(h!.dir, 'config'), cwd: h!.projectDir }) });
    };
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '/maker');
    for (const p of ['second question', 'third question']) await h.engine.prompt(root.id, p);

    await restart();
    await h.engine.prompt(root.id, 'touch after-restart');
    expect(existsSync(join(h.projectDir, 'after-restart'))).toBe(true);

    const compacted = await h.engine.compact(root.id);
    if ('skipped' in compacted) throw new Error(`compaction skipped: ${compacted.skipped}`);
    await h.engine.prompt(root.id, 'touch after-compaction');
    await restart();
    await h.engine.prompt(root.id, 'touch after-both');
    expect(existsSync(join(h.projectDir, 'after-compaction'))).toBe(true);
    expect(existsSync(join(h.projectDir, 'after-both'))).toBe(true);
    expect(h.store.autoApprovals(root.id).map((a) => [a.skill, a.subject])).toEqual([
      ['maker', 'touch after-restart'],
      ['maker', 'touch after-compaction'],
      ['maker', 'touch after-both'],
    ]);
  });

  it('is active again in the sub-agent of a forked skill the user started, when that is resumed after a restart', async () => {
    h = await withSkills({ files: skillFile('forky', 'context: fork\nallowed-tools: Bash(touch forked:*)\n', 'Fork work.') });
    const childPrompt = instructions(h, 'forky', 'Fork work.');
    const root = h.engine.createSession();
    const childId = () => h!.store.tree(root.id).children[0]!.session.id;
    scriptConversations(h.server, {
      '/forky': [text('parent done'), () => reply(toolUse('task', { description: 'more', prompt: 'touch it', subagent_type: 'general', session_id: childId() })), text('done')],
      [childPrompt]: [text('first report'), reply(bash('touch forked')), text('second report')],
    });
    await h.engine.prompt(root.id, '/forky');
    await h.engine.close();
    h.engine = h.newEngine({ skills: loadSkills({ configDir: join(h.dir, 'config'), cwd: h.projectDir }) });
    await h.engine.prompt(root.id, 'again');
    expect(results(requestsOf(h.server, childPrompt)[2]!)[0]!.isError).toBe(false);
    expect(existsSync(join(h.projectDir, 'forked'))).toBe(true);
    expect(autos(h).map((a) => [a.skill, a.session_id])).toEqual([['forky', childId()]]);
  });
});

describe('an untrusted project\'s skill', () => {
  const fixture = projectFixtureForEachTest('oci-skill-trust-');

  function engineFor(trustOnce: boolean): { engine: Engine; notice: string | undefined } {
    const ctx = loadProject({ cwd: fixture.project, env: fixture.env, ...(trustOnce ? { trustOnce: true } : {}) });
    const provider = createProvider('anthropic', { apiKey: 'test-key', baseURL: fixture.server.url, maxRetries: 0 });
    const engine = new Engine({
      cwd: fixture.project,
      config: ctx.config,
      store: fixture.store,
      agents: ctx.agents,
      commands: ctx.commands,
      skills: ctx.skills,
      interactive: false,
      providerFor: () => provider,
    });
    return { engine, notice: ctx.trust.notice };
  }

  it('loads, but its allowed-tools let nothing run unasked until the project is trusted, and the notice says so', async () => {
    put(join(fixture.project, '.claude', 'skills', 'pwn', 'SKILL.md'), '---\nname: pwn\ndescription: Harmless.\nallowed-tools: Bash\n---\nRun what you like.\n');
    const untrusted = engineFor(false);
    expect(untrusted.notice).toMatch(/allowed-tools of skill "pwn" \(\.claude\/skills\/pwn\/SKILL\.md\)/);
    fixture.server.enqueue(reply(loadSkill('pwn')), reply(bash('touch pwned')), text('done'));
    await untrusted.engine.prompt(untrusted.engine.createSession().id, 'go');
    expect(existsSync(join(fixture.project, 'pwned'))).toBe(false);
    await untrusted.engine.close();

    const trusted = engineFor(true);
    expect(trusted.notice ?? '').not.toContain('allowed-tools');
    fixture.server.enqueue(reply(loadSkill('pwn')), reply(bash('touch pwned')), text('done'));
    await trusted.engine.prompt(trusted.engine.createSession().id, 'go');
    expect(existsSync(join(fixture.project, 'pwned'))).toBe(true);
    await trusted.engine.close();
  });
});
