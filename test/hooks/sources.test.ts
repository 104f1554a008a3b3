// Where hooks come from (DESIGN §3, §15, §20): our config, ~/.claude/settings.json, and a
// project's .claude/settings.json and settings.local.json only once the project is trusted.
// Loaded as the front ends load a project (loadProject), then run through the real engine.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/core/project-context.js';
import { HOOK_EVENTS, loadHookSources } from '../../src/core/hooks/index.js';
import { reply, text } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { HookScripts, hookConfig } from './scripts.js';

let h: Harness | undefined;
let scriptsDir: string | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  if (scriptsDir) rmSync(scriptsDir, { recursive: true, force: true });
  scriptsDir = undefined;
});

function scripts(): HookScripts {
  scriptsDir = mkdtempSync(join(tmpdir(), 'oci-hook-sources-'));
  return new HookScripts(scriptsDir);
}

/** A project whose own files configure a hook each, that leave a marker file when they run. */
async function projectWithHooks(s: HookScripts): Promise<{ harness: Harness; markers: string[] }> {
  const mark = (name: string) => s.command(name, `fs.writeFileSync(${JSON.stringify(join(s.dir, `${name}.ran`))}, 'ran');`);
  const harness = await startHarness({
    config: { hooks: hookConfig('PreToolUse', mark('rc-pre')) },
    files: {
      '.claude/settings.json': JSON.stringify({ hooks: hookConfig('UserPromptSubmit', mark('settings-submit')) }),
      '.claude/settings.local.json': JSON.stringify({ hooks: hookConfig('Stop', mark('local-stop')) }),
      'a.txt': 'alpha\n',
    },
  });
  mkdirSync(join(harness.dir, '.claude'), { recursive: true });
  writeFileSync(join(harness.dir, '.claude', 'settings.json'), JSON.stringify({ hooks: hookConfig('SessionStart', mark('user-start')) }));
  return { harness, markers: ['rc-pre', 'settings-submit', 'local-stop'].map((name) => join(s.dir, `${name}.ran`)) };
}

async function runPrompt(harness: Harness, trustOnce: boolean): Promise<ReturnType<typeof loadProject>> {
  const project = loadProject({ cwd: harness.projectDir, env: harness.env, trustOnce });
  const engine = harness.newEngine({ config: project.config, hooks: project.hooks });
  harness.server.setHandler((req) => (req.body.messages.length === 1 ? reply({ type: 'tool_use', name: 'read', input: { file_path: 'a.txt' } }) : text('done')));
  expect((await engine.prompt(engine.createSession().id, 'go')).status).toBe('completed');
  await engine.close();
  return project;
}

describe('hooks of an untrusted project', () => {
  it('never run: its .opencoderc.json and .claude/settings*.json hooks are ignored and named; the user\'s own still run', async () => {
    const s = scripts();
    const { harness, markers } = await projectWithHooks(s);
    h = harness;
    const project = await runPrompt(harness, false);
    for (const marker of markers) expect(existsSync(marker), marker).toBe(false);
    expect(existsSync(join(s.dir, 'user-start.ran'))).toBe(true);
    expect(project.trust.notice).toContain('hooks.PreToolUse (.opencoderc.json)');
    expect(project.trust.notice).toContain('hooks.UserPromptSubmit (.claude/settings.json)');
    expect(project.trust.notice).toContain('hooks.Stop (.claude/settings.local.json)');
  });

  it('run once the project is trusted', async () => {
    const s = scripts();
    const { harness, markers } = await projectWithHooks(s);
    h = harness;
    const project = await runPrompt(harness, true);
    for (const marker of markers) expect(existsSync(marker), marker).toBe(true);
    expect(project.trust.notice).toBeUndefined();
  });
});

describe('settings that this program cannot use', () => {
  it('give one warning per bad entry, naming the file and the key, and keep the good ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'oci-hook-warn-'));
    try {
      const settings = join(dir, 'project', '.claude', 'settings.json');
      mkdirSync(join(settings, '..'), { recursive: true });
      writeFileSync(
        settings,
        JSON.stringify({
          hooks: {
            PreToolUse: [
              { matcher: '(', hooks: [{ type: 'command', command: 'true' }] },
              { matcher: 'Bash', hooks: [{ type: 'prompt', prompt: 'Is this safe?' }, { type: 'command', command: 'true', timeout: -1 }, { type: 'command', command: 'good', statusMessage: 'Checking…', colour: 'red' }, { type: 'command', command: 'later', async: 'yes' }] },
            ],
            SessionEnd: [{ hooks: [{ type: 'command', command: 'true' }] }],
            Stop: 'not a list',
          },
        }),
      );
      mkdirSync(join(dir, 'home', '.claude'), { recursive: true });
      writeFileSync(join(dir, 'home', '.claude', 'settings.json'), '{ "hooks": ');
      const loaded = loadHookSources({ configHooks: undefined, configSources: [], projectRoot: join(dir, 'project'), claudeUserDir: join(dir, 'home', '.claude'), narrowing: undefined });
      expect(loaded.warnings).toHaveLength(9);
      expect(loaded.warnings[0]).toMatch(new RegExp(`^Warning: ${join(dir, 'home', '.claude', 'settings.json')}: .*; its hooks are ignored\\.$`));
      expect(loaded.warnings.slice(1)).toEqual([
        expect.stringMatching(new RegExp(`^Warning: ${settings}: hooks\\.PreToolUse\\[0\\]\\.matcher is not a valid regular expression \\(.*\\); it is ignored\\.$`)),
        `Warning: ${settings}: hooks.PreToolUse[1].hooks[0].type is "prompt"; only "command" hooks run here; it is ignored.`,
        `Warning: ${settings}: hooks.PreToolUse[1].hooks[1].timeout must be a positive number of seconds; it is ignored.`,
        `Warning: ${settings}: hooks.PreToolUse[1].hooks[2].statusMessage is not shown here (the hook runs without a spinner message); it is ignored.`,
        `Warning: ${settings}: hooks.PreToolUse[1].hooks[2].colour is not a field of a command hook (it takes type, command, timeout, async, once and statusMessage); it is ignored.`,
        `Warning: ${settings}: hooks.PreToolUse[1].hooks[3].async must be true or false; it is ignored.`,
        `Warning: ${settings}: hooks.SessionEnd is not an event this program fires (it fires ${HOOK_EVENTS.join(', ')}); it is ignored.`,
        `Warning: ${settings}: hooks.Stop must be a list of {"matcher", "hooks"} entries; it is ignored.`,
      ]);
      const groups = loaded.hooks.PreToolUse ?? [];
      expect(groups.map((g) => g.hooks.map((c) => c.command))).toEqual([['good']]);
      expect(groups[0]!.matches(['Bash'])).toBe(true);
      expect(groups[0]!.matches(['Edit'])).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("an agent file's own hooks", () => {
  const agentFile = ['---', 'name: guarded', 'description: Has hooks.', 'hooks:', '  Stop:', '    - hooks:', '        - type: command', '          command: sh stopped.sh', '---', 'You are guarded.', ''].join('\n');

  it('are kept from a trusted project, and dropped when a settings file says disableAllHooks', async () => {
    h = await startHarness({ files: { '.claude/agents/guarded.md': agentFile } });
    const kept = loadProject({ cwd: h.projectDir, env: h.env, trustOnce: true });
    expect(kept.agents.get('guarded')?.hooks?.Stop).toHaveLength(1);

    mkdirSync(join(h.dir, '.claude'), { recursive: true });
    writeFileSync(join(h.dir, '.claude', 'settings.json'), JSON.stringify({ disableAllHooks: true }));
    const off = loadProject({ cwd: h.projectDir, env: h.env, trustOnce: true });
    expect(off.agents.get('guarded')).toBeDefined();
    expect(off.agents.get('guarded')?.hooks).toBeUndefined();
  });
});
