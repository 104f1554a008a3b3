// Claude Code's sub-agent fields through the real engine and the fake Messages API:
// `disallowedTools` takes tools away after `tools` (issue 39's reviewer kept Bash), scoped
// entries deny, `Agent(type)` limits which sub-agents it may start, `background: true` always
// runs in the background, `maxTurns` stops it, and `hooks` run in that agent's sessions only
// (its `Stop` as `SubagentStop`).
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSkills } from '../../src/core/skills/index.js';
import { held, requestsOf, scriptConversations } from '../support/conversations.js';
import { join } from 'node:path';
import { reply, systemText, text, toolNames, toolResults, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

let seq = 0;
function spawn(description: string, prompt: string, subagent_type: string, extra: Record<string, unknown> = {}) {
  return { type: 'tool_use' as const, name: 'task', id: `toolu_fields_${++seq}`, input: { description, prompt, subagent_type, ...extra } };
}
function bash(command: string) {
  return { type: 'tool_use' as const, name: 'bash', id: `toolu_fields_${++seq}`, input: { command, description: 'run it' } };
}
const results = (req: RecordedRequest) => toolResults(req).map((r) => ({ text: String(r.content), error: r.is_error === true }));

const REVIEWER = `---
name: reviewer
description: Reviews code.
tools: Read, Grep, Glob, Bash
disallowedTools: Bash
---
You review code.
`;

describe('Claude Code agent fields in a running engine', () => {

  it("hooks: an agent file's hooks run in its sessions only, and its Stop fires as SubagentStop", async () => {
    const guarded = [
      '---',
      'name: guarded',
      'description: Runs with hooks of its own.',
      'hooks:',
      '  PreToolUse:',
      '    - matcher: Bash',
      '      hooks:',
      '        - type: command',
      '          command: sh block.sh',
      '  Stop:',
      '    - hooks:',
      '        - type: command',
      '          command: sh stopped.sh',
      '---',
      'You are guarded.',
      '',
    ].join('\n');
    h = await startHarness({
      config: { permission: { bash: 'allow' } },
      files: {
        '.claude/agents/guarded.md': guarded,
        'block.sh': 'echo "no bash for the guarded agent" >&2\nexit 2\n',
        'stopped.sh': 'cat > stop-input.json\n',
      },
    });
    scriptConversations(h.server, {
      'guard it': [reply(bash('echo from the root'), spawn('guarded work', 'work under guard', 'guarded')), text('all done')],
      'work under guard': [reply(bash('echo from the child')), text('blocked, as expected')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'guard it')).status).toBe('completed');
    // The root's bash ran: the agent's hook is not the root's.
    const [rootBash] = results(requestsOf(h.server, 'guard it')[1]!);
    expect(rootBash).toEqual({ text: expect.stringContaining('from the root'), error: false });
    // The child's bash was blocked by its own PreToolUse hook, with the hook's reason.
    const [childBash] = results(requestsOf(h.server, 'work under guard')[1]!);
    expect(childBash!.error).toBe(true);
    expect(childBash!.text).toContain('no bash for the guarded agent');
    // Its Stop hook ran when it finished, told it was a SubagentStop; the root's own Stop ran none.
    const stopFile = join(h.projectDir, 'stop-input.json');
    expect(existsSync(stopFile)).toBe(true);
    const stopInput = JSON.parse(readFileSync(stopFile, 'utf8')) as { hook_event_name: string; session_id: string };
    expect(stopInput.hook_event_name).toBe('SubagentStop');
    expect(stopInput.session_id).not.toBe(root.id);
  });
  it('disallowedTools: Bash leaves a reviewer without bash, though tools names it', async () => {
    h = await startHarness({ files: { '.claude/agents/reviewer.md': REVIEWER } });
    scriptConversations(h.server, {
      'review please': [reply(spawn('review', 'review the code', 'reviewer')), text('reviewed')],
      'review the code': [text('looks fine')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'review please')).status).toBe('completed');
    const child = requestsOf(h.server, 'review the code')[0]!;
    expect(toolNames(child).sort()).toEqual(['ask_user', 'glob', 'grep', 'read']);
  });

  it('a scoped disallowedTools entry denies those commands and keeps the rest of bash', async () => {
    h = await startHarness({
      config: { permission: { bash: 'allow' } },
      files: { '.claude/agents/cleaner.md': '---\nname: cleaner\ndescription: Cleans.\ndisallowedTools: "Bash(rm:*)"\n---\nYou clean.\n' },
    });
    scriptConversations(h.server, {
      'clean up': [reply(spawn('clean', 'clean the tree', 'cleaner')), text('done')],
      'clean the tree': [reply(bash('rm -f nothing.txt'), bash('echo kept')), text('cleaned')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'clean up');
    const [rm, echo] = results(requestsOf(h.server, 'clean the tree')[1]!);
    expect(rm!.error).toBe(true);
    expect(rm!.text).toMatch(/denied/i);
    expect(echo!.error).toBe(false);
    expect(echo!.text).toContain('kept');
  });

  it('tools: Agent(explore) lets it start explore and no other sub-agent', async () => {
    h = await startHarness({
      config: { subagents: { max_depth: 2 } },
      files: { '.claude/agents/lead.md': '---\nname: lead\ndescription: Leads.\ntools: Read, Agent(explore)\n---\nYou lead.\n' },
    });
    scriptConversations(h.server, {
      'lead it': [reply(spawn('lead', 'lead the work', 'lead')), text('led')],
      'lead the work': [reply(spawn('gen', 'general work', 'general'), spawn('exp', 'explore work', 'explore')), text('lead done')],
      'explore work': [text('explored')],
      'general work': [text('must not run')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'lead it');
    const [gen, exp] = results(requestsOf(h.server, 'lead the work')[1]!);
    expect(gen!.error).toBe(true);
    expect(gen!.text).toContain('"general"');
    expect(exp!.text).toContain('explored');
    expect(requestsOf(h.server, 'general work')).toHaveLength(0);
  });

  it('background: true runs it in the background although the call did not ask', async () => {
    h = await startHarness({ files: { '.claude/agents/watcher.md': '---\nname: watcher\ndescription: Watches.\nbackground: true\n---\nYou watch.\n' } });
    // The child answers only once the parent's turn is over: a foreground child would hold that turn forever.
    const child = held(text('build is green'));
    scriptConversations(h.server, {
      'watch it': [reply(spawn('watch', 'watch the build', 'watcher')), text('started'), text('got the watch result')],
      'watch the build': [child.reply],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'watch it')).text).toBe('started');
    child.open();
    expect(results(requestsOf(h.server, 'watch it')[1]!)[0]!.text).toMatch(/state="running"/);
    await h.engine.settled(root.id);
    expect(h.engine.lastOutcome(root.id)?.text).toBe('got the watch result');
    expect(JSON.stringify(requestsOf(h.server, 'watch it')[2]!.body.messages.at(-1))).toContain('build is green');
  });

  it('maxTurns stops it after that many model requests', async () => {
    h = await startHarness({ files: { '.claude/agents/brief.md': '---\nname: brief\ndescription: Brief.\nmaxTurns: 1\n---\nBe brief.\n' } });
    scriptConversations(h.server, {
      'be brief': [reply(spawn('brief', 'short work', 'brief')), text('ok')],
      'short work': [reply(bash('echo one')), text('never asked for')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'be brief');
    expect(requestsOf(h.server, 'short work')).toHaveLength(1);
    expect(results(requestsOf(h.server, 'be brief')[1]!)[0]!.text).toMatch(/maxTurns|limit of 1/);
  });
});

describe('skills: in a sub-agent file', () => {
  it('puts the whole text of each named skill into its prompt, and only those', async () => {
    h = await startHarness({
      files: {
        '.claude/agents/styled.md': '---\nname: styled\ndescription: Writes in style.\nskills: code-style\n---\nYou write code.\n',
        '.claude/skills/code-style/SKILL.md': '---\nname: code-style\ndescription: The house style.\n---\nAlways name things in full words.\n',
        '.claude/skills/other/SKILL.md': '---\nname: other\ndescription: Another skill.\n---\nOTHER BODY\n',
      },
    });
    const skills = loadSkills({ configDir: join(h.dir, 'config'), cwd: h.projectDir });
    const engine = h.newEngine({ skills });
    scriptConversations(h.server, {
      'style it': [reply(spawn('style', 'write in style', 'styled')), text('styled')],
      'write in style': [text('done')],
    });
    await engine.prompt(engine.createSession().id, 'style it');
    const prompt = systemText(requestsOf(h.server, 'write in style')[0]!);
    expect(prompt).toContain('# Skill "code-style" (preloaded)');
    expect(prompt).toContain('Always name things in full words.');
    expect(prompt).not.toContain('OTHER BODY');
    expect(systemText(requestsOf(h.server, 'style it')[0]!)).not.toContain('Always name things in full words.');
  });
});
