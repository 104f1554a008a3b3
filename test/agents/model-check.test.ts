// `model:` in agent and skill files is checked when the project loads (issue 39): a bare id
// that is neither an alias, `inherit`, a model the config lists nor a known Anthropic id is
// named in the agents' (and skills') warnings at once, instead of failing when the agent runs.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProject } from '../../src/core/project-context.js';
import { projectFolderForEachTest, put } from '../support/project-fixture.js';

const folder = projectFolderForEachTest('oci-model-check-');

const agentFile = (name: string, model: string) =>
  put(join(folder.project, '.claude', 'agents', `${name}.md`), `---\nname: ${name}\ndescription: The ${name} agent.\nmodel: ${model}\n---\nWork.\n`);

describe('model: in agent and skill files', () => {
  it('names a bad id in the load warnings, and takes aliases, inherit, known ids, snapshots and configured models', () => {
    put(join(folder.project, '.opencoderc.json'), JSON.stringify({
      provider: {
        anthropic: { models: { 'claude-internal-preview': {} } },
        local: { type: 'openai-compatible', baseURL: 'http://127.0.0.1:1/v1', models: { 'llama3.1': {} } },
      },
    }));
    agentFile('fabled', 'fable');
    agentFile('misplaced', 'llama3.1');
    agentFile('newer', 'claude-opus-9');
    for (const [name, model] of [['aliased', 'opus'], ['inherited', 'inherit'], ['full', 'claude-sonnet-4-5'], ['dated', 'claude-haiku-4-5-20251001'],
      ['prefixed', 'anthropic/claude-opus-4-1'], ['current', 'claude-opus-4-6'], ['configured', 'claude-internal-preview'], ['elsewhere', 'local/llama3.1'], ['other', 'openai/gpt-5']] as const) {
      agentFile(name, model);
    }
    put(join(folder.project, '.claude', 'skills', 'fast', 'SKILL.md'), '---\nname: fast\ndescription: Quick.\nmodel: haiku-fast\n---\nGo.\n');
    const ctx = loadProject({ cwd: folder.project, env: folder.env, trustOnce: true });
    const modelWarnings = ctx.agentWarnings.filter((w) => w.message.includes('"model: '));
    expect(modelWarnings).toEqual([
      {
        source: join(folder.project, '.claude', 'agents', 'fabled.md'),
        message: '"model: fable" names no model this program knows (expected inherit, an alias (sonnet, opus, haiku), an Anthropic id such as claude-sonnet-4-6, or provider/id of a configured provider), so this fails when it runs.',
      },
      {
        source: join(folder.project, '.claude', 'agents', 'misplaced.md'),
        message: '"model: llama3.1" is a model of provider "local": write "model: local/llama3.1" (a bare id means an Anthropic model), or this fails when it runs.',
      },
      {
        source: join(folder.project, '.claude', 'agents', 'newer.md'),
        message: '"model: claude-opus-9" is not a Claude model this program knows; it is sent as written, and fails when it runs unless Anthropic has that model.',
      },
    ]);
    expect(ctx.skills.warnings).toEqual([
      { source: join(folder.project, '.claude', 'skills', 'fast', 'SKILL.md'), message: expect.stringMatching(/^skill "fast": "model: haiku-fast" names no model this program knows/) },
    ]);
    expect(ctx.warnings.some((line) => line.includes('fabled.md: "model: fable"'))).toBe(true);
  });

  it('names a bad model of a config agent with the agent\'s name', () => {
    put(join(folder.project, '.opencoderc.json'), JSON.stringify({ agent: { helper: { mode: 'subagent', description: 'Helps.', model: 'sonet' } } }));
    const ctx = loadProject({ cwd: folder.project, env: folder.env, trustOnce: true });
    expect(ctx.agentWarnings.filter((w) => w.message.includes('"model: '))).toEqual([
      { source: 'config', message: expect.stringMatching(/^agent "helper": "model: sonet" names no model this program knows/) },
    ]);
  });
});

describe('model: in command files', () => {
  it('names a bad id in the command warnings', () => {
    const file = put(join(folder.project, '.claude', 'commands', 'quick.md'), '---\nmodel: haiku-4\n---\nQuick.\n');
    put(join(folder.project, '.claude', 'commands', 'fine.md'), '---\nmodel: haiku\n---\nFine.\n');
    const ctx = loadProject({ cwd: folder.project, env: folder.env, trustOnce: true });
    expect(ctx.warnings.filter((line) => line.includes('"model: '))).toEqual([
      expect.stringMatching(new RegExp(`^Warning: ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: "model: haiku-4" names no model this program knows`)),
    ]);
  });
});
