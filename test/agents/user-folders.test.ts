// Where Claude Code and OpenCode users keep their files: agents and commands in `~/.claude`
// and `~/.config/opencode`, commands namespaced by subfolder (`frontend/comp.md` is
// `/frontend:comp`), and the user's own instructions file in every system prompt.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/core/project-context.js';
import { peerUserDirs } from '../../src/core/config/paths.js';
import { systemText, text } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';

const dirs: string[] = [];
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function write(file: string, content: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}

describe("the user's Claude Code and OpenCode folders", () => {
  it('loads user agents and commands, namespacing commands in subfolders', () => {
    const home = mkdtempSync(join(tmpdir(), 'oci-home-'));
    dirs.push(home);
    const project = join(home, 'work', 'project');
    mkdirSync(join(project, '.git'), { recursive: true });
    write(join(home, '.claude', 'agents', 'cc-helper.md'), '---\nname: cc-helper\ndescription: From ~/.claude\ntools: Read, WebSearch\n---\nHelp.');
    write(join(home, '.config', 'opencode', 'agent', 'oc-helper.md'), '---\ndescription: From ~/.config/opencode\nmode: subagent\n---\nHelp.');
    write(join(home, '.claude', 'commands', 'frontend', 'comp.md'), '---\ndescription: Make a component\n---\nMake a component named $ARGUMENTS.');
    write(join(home, '.config', 'opencode', 'commands', 'hello.md'), 'Say hello.');
    write(join(project, '.claude', 'commands', 'db', 'migrate', 'new.md'), 'Write a migration.');
    const env = { HOME: home, OPENCODE_INK_CONFIG_DIR: join(home, 'cfg'), OPENCODE_INK_DATA_DIR: join(home, 'data') };

    const ctx = loadProject({ cwd: project, env });
    expect(ctx.warnings).toEqual([]);
    expect(ctx.agents.get('cc-helper')).toMatchObject({ mode: 'subagent', tools: ['read', 'websearch'] });
    expect(ctx.agents.get('oc-helper')).toMatchObject({ mode: 'subagent', description: 'From ~/.config/opencode' });
    expect(ctx.commands.get('frontend:comp')).toMatchObject({ description: 'Make a component', template: 'Make a component named $ARGUMENTS.' });
    expect(ctx.commands.get('hello')).toMatchObject({ template: 'Say hello.' });
    expect(ctx.commands.get('db:migrate:new')).toMatchObject({ template: 'Write a migration.' });
    expect(ctx.commands.has('comp')).toBe(false);
  });

  it("puts the user's instructions file before the project's in the system prompt", async () => {
    h = await startHarness({ files: { 'AGENTS.md': 'Project rule: use tabs.' } });
    write(join(h.dir, '.claude', 'CLAUDE.md'), 'User rule: answer in English.');
    const engine = h.newEngine({ peerDirs: peerUserDirs({ HOME: h.dir }) });
    h.server.enqueue(text('ok'));
    await engine.prompt(engine.createSession().id, 'hi');
    const system = systemText(h.server.requests[0]!);
    expect(system).toContain(`Instructions from ${join(h.dir, '.claude', 'CLAUDE.md')}:\nUser rule: answer in English.`);
    expect(system.indexOf('User rule')).toBeLessThan(system.indexOf('Project rule'));

    // OpenCode's own file wins over Claude Code's when both exist.
    write(join(h.dir, '.config', 'opencode', 'AGENTS.md'), 'OpenCode rule.');
    const second = h.newEngine({ peerDirs: peerUserDirs({ HOME: h.dir }) });
    h.server.enqueue(text('ok'));
    await second.prompt(second.createSession().id, 'hi');
    const next = systemText(h.server.requests[1]!);
    expect(next).toContain('OpenCode rule.');
    expect(next).not.toContain('User rule');
  });
});
