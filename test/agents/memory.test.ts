// Per-agent memory (issue 39 item 4) through the real engine and the fake Messages API: the
// agent writes its folder with the `memory` tool without asking (a run without --yes refuses
// every ask), MEMORY.md reaches its next prompt, capped with the cap named; and nothing
// outside the folder can be reached: `..`, dot files, symbolic links, hard links, other names.
import { existsSync, linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MEMORY_PROMPT_MAX_BYTES, MEMORY_PROMPT_MAX_LINES } from '../../src/core/agents/memory.js';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { reply, systemText, text, toolNames, toolResults, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

let seq = 0;
const use = (name: string, input: Record<string, unknown>) => ({ type: 'tool_use' as const, name, id: `toolu_mem_${++seq}`, input });
const spawn = (prompt: string, subagent_type: string) => use('task', { description: 'remember', prompt, subagent_type });
const results = (req: RecordedRequest) => toolResults(req).map((r) => ({ text: String(r.content), error: r.is_error === true }));

function keeper(scope: string, name = 'keeper'): Record<string, string> {
  return { [`.claude/agents/${name}.md`]: `---\nname: ${name}\ndescription: Keeps notes.\ntools: Read\nmemory: ${scope}\n---\nYou keep notes.\n` };
}

describe('agent memory', () => {
  it('lets the agent write its project folder without asking and loads MEMORY.md into its next prompt', async () => {
    h = await startHarness({ files: keeper('project') });
    scriptConversations(h.server, {
      'note it': [reply(spawn('write the note', 'keeper')), text('noted')],
      'write the note': [
        reply(use('memory', { action: 'write', path: 'MEMORY.md', content: '- the build needs node 20\n- see topics/ci.md' }), use('memory', { action: 'write', path: 'topics/ci.md', content: 'CI runs lint first.' })),
        reply(use('memory', { action: 'list' }), use('memory', { action: 'read', path: 'topics/ci.md' })),
        text('written'),
      ],
      'recall it': [reply(spawn('what do you know', 'keeper')), text('recalled')],
      'what do you know': [text('node 20')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'note it');
    const written = requestsOf(h.server, 'write the note');
    expect(results(written[1]!).map((r) => r.error)).toEqual([false, false]);
    expect(results(written[2]!).map((r) => r.text)).toEqual(['MEMORY.md\ntopics/ci.md', 'CI runs lint first.']);
    // Its tools: what `tools` lists, plus its memory.
    expect(toolNames(written[0]!).sort()).toEqual(['ask_user', 'memory', 'read']);
    expect(h.events.some((e) => e.type === 'permission.asked')).toBe(false);
    const dir = join(h.projectDir, '.claude', 'agent-memory', 'keeper');
    expect(readFileSync(join(dir, 'MEMORY.md'), 'utf8')).toContain('node 20');

    await h.engine.prompt(h.engine.createSession().id, 'recall it');
    const prompt = systemText(requestsOf(h.server, 'what do you know')[0]!);
    expect(prompt).toContain(`memory folder of your own at ${dir}`);
    expect(prompt).toContain('- the build needs node 20');
    // The parent has no memory of its own.
    expect(systemText(requestsOf(h.server, 'recall it')[0]!)).not.toContain('Your memory');
  });

  it('caps MEMORY.md in the prompt and names the cap', async () => {
    const long = Array.from({ length: MEMORY_PROMPT_MAX_LINES + 50 }, (_, i) => `line ${i}`).join('\n');
    h = await startHarness({ files: { ...keeper('project'), '.claude/agent-memory/keeper/MEMORY.md': long } });
    scriptConversations(h.server, { 'look': [reply(spawn('peek', 'keeper')), text('ok')], 'peek': [text('seen')] });
    await h.engine.prompt(h.engine.createSession().id, 'look');
    const prompt = systemText(requestsOf(h.server, 'peek')[0]!);
    expect(prompt).toContain(`line ${MEMORY_PROMPT_MAX_LINES - 1}\n`);
    expect(prompt).not.toContain(`line ${MEMORY_PROMPT_MAX_LINES}\n`);
    expect(prompt).toContain(`[MEMORY.md truncated: only its first ${MEMORY_PROMPT_MAX_LINES} lines or ${MEMORY_PROMPT_MAX_BYTES} bytes are loaded`);
  });

  it('refuses every path out of the folder, dot files, links and non-markdown files', async () => {
    h = await startHarness({ files: { ...keeper('project'), 'secret.md': 'top secret', '.claude/settings.json': '{}' } });
    const dir = join(h.projectDir, '.claude', 'agent-memory', 'keeper');
    mkdirSync(dir, { recursive: true });
    symlinkSync(join(h.projectDir, 'secret.md'), join(dir, 'link.md'));
    symlinkSync(h.projectDir, join(dir, 'up'));
    linkSync(join(h.projectDir, 'secret.md'), join(dir, 'hard.md'));
    scriptConversations(h.server, {
      'attack': [reply(spawn('break out', 'keeper')), text('done')],
      'break out': [
        reply(
          use('memory', { action: 'write', path: '../../settings.json', content: '{"hooks":{}}' }),
          use('memory', { action: 'write', path: '/etc/x.md', content: 'x' }),
          use('memory', { action: 'write', path: '.gitignore.md', content: 'x' }),
          use('memory', { action: 'write', path: 'run.sh', content: 'x' }),
          use('memory', { action: 'read', path: 'link.md' }),
          use('memory', { action: 'write', path: 'link.md', content: 'pwned' }),
          use('memory', { action: 'write', path: 'up/secret.md', content: 'pwned' }),
          use('memory', { action: 'write', path: 'hard.md', content: 'pwned' }),
          use('memory', { action: 'read', path: 'hard.md' }),
        ),
        text('gave up'),
      ],
    });
    await h.engine.prompt(h.engine.createSession().id, 'attack');
    const outcomes = results(requestsOf(h.server, 'break out')[1]!);
    expect(outcomes.map((o) => o.error)).toEqual(Array(9).fill(true));
    expect(outcomes[0]!.text).toMatch(/not a file of the memory folder/);
    expect(outcomes[3]!.text).toMatch(/markdown files ending in \.md/);
    expect(outcomes[4]!.text).toMatch(/symbolic link/);
    expect(outcomes[6]!.text).toMatch(/symbolic link/);
    expect(outcomes[7]!.text).toMatch(/hard links/);
    expect(readFileSync(join(h.projectDir, 'secret.md'), 'utf8')).toBe('top secret');
    expect(readFileSync(join(h.projectDir, '.claude', 'settings.json'), 'utf8')).toBe('{}');
  });

  it('gives no memory when the folder itself is a symbolic link out of the project', async () => {
    h = await startHarness({ files: keeper('project') });
    const outside = join(h.dir, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'MEMORY.md'), 'outside text');
    mkdirSync(join(h.projectDir, '.claude', 'agent-memory'), { recursive: true });
    symlinkSync(outside, join(h.projectDir, '.claude', 'agent-memory', 'keeper'));
    scriptConversations(h.server, { 'go': [reply(spawn('linked', 'keeper')), text('ok')], 'linked': [text('fine')] });
    await h.engine.prompt(h.engine.createSession().id, 'go');
    const req = requestsOf(h.server, 'linked')[0]!;
    expect(systemText(req)).toMatch(/memory folder cannot be used: .*symbolic link/);
    expect(systemText(req)).not.toContain('outside text');
    expect(toolNames(req)).not.toContain('memory');
  });

  it('keeps local memory out of git and user memory in the given folder', async () => {
    h = await startHarness({ files: { ...keeper('local'), ...keeper('user', 'mine') } });
    const userRoot = join(h.dir, 'config', 'agent-memory');
    const engine = h.newEngine({ agentMemoryDir: userRoot });
    scriptConversations(h.server, {
      'both': [reply(spawn('local note', 'keeper'), spawn('user note', 'mine')), text('ok')],
      'local note': [reply(use('memory', { action: 'write', path: 'MEMORY.md', content: 'local' })), text('ok')],
      'user note': [reply(use('memory', { action: 'write', path: 'MEMORY.md', content: 'mine' })), text('ok')],
    });
    await engine.prompt(engine.createSession().id, 'both');
    expect(readFileSync(join(h.projectDir, '.claude', 'agent-memory-local', 'keeper', 'MEMORY.md'), 'utf8')).toBe('local');
    expect(readFileSync(join(h.projectDir, '.claude', 'agent-memory-local', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    expect(readFileSync(join(userRoot, 'mine', 'MEMORY.md'), 'utf8')).toBe('mine');
    expect(existsSync(join(h.projectDir, '.claude', 'agent-memory'))).toBe(false);
  });
});
