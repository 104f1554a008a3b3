// The configuration read key by key (src/core/config/sections.ts): the build's table of
// defaults is what the full schema gives for no file, and a configuration parsed with only
// the keys its files set, the rest from that table, equals what the full schema gives, keys
// in the same order; mistakes are still reported by file and key.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { BuildOptions } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configDefaults } from '../../scripts/config-defaults.mjs';
import { REPO_ROOT } from '../support/repo-root.js';

const global = globalThis as { __OC_CONFIG_DEFAULTS__?: Record<string, unknown> };
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'oci-config-sections-'));
});
afterEach(() => {
  delete global.__OC_CONFIG_DEFAULTS__;
  vi.resetModules();
  rmSync(root, { recursive: true, force: true });
});

/** The build's table, as the bundle carries it (a JSON `define`). */
async function buildTable(): Promise<Record<string, unknown>> {
  const options: BuildOptions = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning', define: {} };
  return JSON.parse(JSON.stringify(await configDefaults(REPO_ROOT, options))) as Record<string, unknown>;
}

/** The configuration module graph loaded afresh, so that it reads the table as set now. */
async function freshModules() {
  vi.resetModules();
  const load = await import('../../src/core/config/load.js');
  const schema = await import('../../src/core/config/schema.js');
  return { loadConfig: load.loadConfig, ConfigSchema: schema.ConfigSchema };
}

function projectWith(config: unknown): { project: string; file: string } {
  const project = join(root, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  const file = join(project, '.opencoderc.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
  return { project, file };
}

const env = () => ({ OPENCODE_INK_CONFIG_DIR: join(root, 'config'), HOME: root });

const CONFIGS: Record<string, unknown> = {
  'no key': {},
  'a few scalars': { model: 'anthropic/claude-haiku-4-5', default_agent: 'plan', permission_mode: 'acceptEdits' },
  'partial sections': { subagents: { max_depth: 2, worktree: { pool: 3 } }, keybinds: { leader: 'ctrl+b' }, compaction: { auto: false } },
  'agents, commands, providers, hooks': {
    agent: { reviewer: { description: 'Reviews', mode: 'subagent', tools: ['Read'], prompt: 'Review.', permission: { edit: 'deny' } } },
    command: { test: { template: 'run the tests', subtask: true } },
    provider: { anthropic: { maxRetries: 1 }, local: { type: 'openai-compatible', baseURL: 'http://127.0.0.1:1/v1', models: { m: { limit: { context: 1000 } } } } },
    hooks: { PreToolUse: [] },
    sandbox: { mode: 'read-only' },
    runner: { kind: 'host' },
    mcp: { files: { type: 'local', command: ['true'] } },
    team: { max_teammates: 2 },
    checkpoints: { enabled: false },
    notify: { after_seconds: 5 },
  },
};

describe('the configuration read key by key', () => {
  it("the build's table of defaults is the full schema's value for no file, and survives JSON", async () => {
    const table = await buildTable();
    const { ConfigSchema } = await freshModules();
    expect(table).toStrictEqual(ConfigSchema.parse({}));
    expect(Object.keys(table)).toEqual(Object.keys(ConfigSchema.parse({})));
  });

  for (const withTable of [true, false]) {
    it(`gives what the full schema gives, keys in the same order (${withTable ? "the build's table" : 'from source'})`, async () => {
      if (withTable) global.__OC_CONFIG_DEFAULTS__ = await buildTable();
      for (const [name, config] of Object.entries(CONFIGS)) {
        const { project } = projectWith(config);
        const { loadConfig, ConfigSchema } = await freshModules();
        const loaded = loadConfig({ cwd: project, env: env() }).config;
        const expected = ConfigSchema.parse(config);
        expect(loaded, name).toStrictEqual(expected);
        expect(Object.keys(loaded), name).toEqual(Object.keys(expected));
      }
    });
  }

  it('hands out a fresh copy of each default: changing one run\'s configuration leaves the next one\'s alone', async () => {
    global.__OC_CONFIG_DEFAULTS__ = await buildTable();
    const { project } = projectWith({});
    const { loadConfig } = await freshModules();
    const first = loadConfig({ cwd: project, env: env() }).config;
    first.subagents.worktree.link.push('vendor');
    first.keybinds.leader = 'ctrl+q';
    const second = loadConfig({ cwd: project, env: env() }).config;
    expect(second.subagents.worktree.link).toEqual(['node_modules']);
    expect(second.keybinds.leader).toBe('ctrl+x');
  });

  it('names the file and key of a mistake as the full schema does, with the same suggestion', async () => {
    global.__OC_CONFIG_DEFAULTS__ = await buildTable();
    const cases: Array<[unknown, string]> = [
      [{ modle: 'x' }, 'unknown key "modle".'],
      [{ model: 'x', subagnts: {} }, 'unknown key "subagnts" (did you mean "subagents"?).'],
      [{ keybinds: { session_parnet: 'x' } }, 'unknown key "keybinds.session_parnet" (did you mean "session_parent"?).'],
      [{ subagents: { max_depth: 9 } }, 'subagents.max_depth must be'],
      [{ agent: { x: { mode: 'sometimes' } } }, 'agent.x.mode'],
      [[1, 2], 'the top level must be an object (got a list).'],
    ];
    for (const [config, message] of cases) {
      const { project, file } = projectWith(config);
      const { loadConfig } = await freshModules();
      expect(() => loadConfig({ cwd: project, env: env() }), JSON.stringify(config)).toThrow(`${file}: ${message}`);
    }
  });

  it('checks what only the merged files can satisfy, naming the file', async () => {
    global.__OC_CONFIG_DEFAULTS__ = await buildTable();
    const { project, file } = projectWith({ provider: { mine: { baseURL: 'http://127.0.0.1:1/v1' } } });
    const { loadConfig } = await freshModules();
    expect(() => loadConfig({ cwd: project, env: env() })).toThrow(`${file}: provider.mine.type`);
  });
});
