import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CompactionSchema,
  ConfigSchema,
  DEFAULT_KEYBINDS,
  KeybindsSchema,
  SubagentSettingsSchema,
  configDir,
  dataDir,
  loadConfig,
  parseJsonc,
} from '../../src/core/config/index.js';
import { ConfigError } from '../../src/core/errors.js';
import { sandboxConfigSchema } from '../../src/core/sandbox/settings.js';

const REPO_ROOT = join(import.meta.dirname, '..', '..');

let root: string;
let env: NodeJS.ProcessEnv;

function write(path: string, content: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return path;
}

function expectConfigError(fn: () => unknown, message: string): void {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  expect((caught as ConfigError).exitCode).toBe(2);
  expect((caught as ConfigError).message).toBe(message);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'oci-config-'));
  mkdirSync(join(root, 'config'));
  env = { OPENCODE_INK_CONFIG_DIR: join(root, 'config'), HOME: join(root, 'home') };
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('config and data directories', () => {
  it('prefers the explicit variable, then XDG, then the home fallback', () => {
    expect(configDir({ OPENCODE_INK_CONFIG_DIR: '/c', XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/c');
    expect(configDir({ XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe(join('/x', 'opencode-ink'));
    expect(configDir({ XDG_CONFIG_HOME: '', HOME: '/h' })).toBe(join('/h', '.config', 'opencode-ink'));
    expect(dataDir({ OPENCODE_INK_DATA_DIR: '/d', XDG_DATA_HOME: '/x', HOME: '/h' })).toBe('/d');
    expect(dataDir({ XDG_DATA_HOME: '/x', HOME: '/h' })).toBe(join('/x', 'opencode-ink'));
    expect(dataDir({ HOME: '/h' })).toBe(join('/h', '.local', 'share', 'opencode-ink'));
  });
});

describe('loadConfig', () => {
  it("lets a project file add models to a provider that the user's file defines", () => {
    const project = join(root, 'project');
    mkdirSync(join(project, '.git'), { recursive: true });
    const user = write(join(root, 'config', 'config.json'), JSON.stringify({ provider: { local: { type: 'openai-compatible', baseURL: 'http://127.0.0.1:11434/v1' } } }));
    const mine = write(join(project, '.opencoderc.json'), JSON.stringify({ provider: { local: { models: { 'qwen3:8b': { limit: { context: 32768 } } } } } }));
    const { config, sources } = loadConfig({ cwd: project, env });
    expect(sources).toEqual([user, mine]);
    expect(config.provider.local).toMatchObject({ type: 'openai-compatible', baseURL: 'http://127.0.0.1:11434/v1', models: { 'qwen3:8b': { limit: { context: 32768 } } } });
  });

  it('names the file that set a provider no file gives a type, not every file read', () => {
    const project = join(root, 'project');
    mkdirSync(join(project, '.git'), { recursive: true });
    write(join(root, 'config', 'config.json'), JSON.stringify({ model: 'anthropic/claude-sonnet-4-6' }));
    const mine = write(join(project, '.opencoderc.json'), JSON.stringify({ provider: { local: { models: { m: {} } } } }));
    let caught: unknown;
    try {
      loadConfig({ cwd: project, env });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const message = (caught as ConfigError).message;
    expect(message.startsWith(`${mine}: `)).toBe(true);
    expect(message).toContain('provider.local.type');
  });

  it('returns the defaults when no file exists', () => {
    const project = join(root, 'project');
    mkdirSync(join(project, '.git'), { recursive: true });
    const { config, sources } = loadConfig({ cwd: project, env });
    expect(sources).toEqual([]);
    expect(config).toEqual({
      model: 'anthropic/claude-sonnet-4-6',
      default_agent: 'build',
      provider: {},
      agent: {},
      command: {},
      permission: {},
      subagents: {
        max_depth: 1,
        max_concurrency: 5,
        max_per_batch: 10,
        max_turns: 20,
        timeout_seconds: 600,
        approvals: 'bubble',
        isolation: 'none',
        worktree: { link: ['node_modules'], pool: 10 },
      },
      team: { max_teammates: 8 },
      keybinds: {
        leader: 'ctrl+x',
        session_child_cycle: '<leader>right',
        session_child_cycle_reverse: '<leader>left',
        session_parent: '<leader>up',
        session_child_first: '<leader>down',
        session_list: '<leader>l',
        session_child_cancel: '<leader>k',
        session_child_revert: '<leader>u',
        session_child_select: '<leader>s',
        team_tasks: 'ctrl+t',
        agents_panel: '<leader>a',
      },
      compaction: { auto: true, threshold: 0.8, prune: true },
      mcp: {},
      sandbox: { mode: 'off', network: false, allow_write: [], auto_allow: true },
      runner: { kind: 'host', for: 'subagents', network: false, max_per_host: 8 },
      checkpoints: { enabled: true, max_file_mb: 5 },
      notify: { enabled: true, after_seconds: 20 },
    });
  });

  it('merges the global file under the project file, keeping unmentioned keys and defaults', () => {
    const project = join(root, 'project');
    mkdirSync(join(project, '.git'), { recursive: true });
    const global = write(
      join(root, 'config', 'config.json'),
      JSON.stringify({
        model: 'anthropic/global-model',
        default_agent: 'plan',
        subagents: { max_concurrency: 3, approvals: 'deny' },
        keybinds: { leader: 'ctrl+a' },
        permission: { bash: { '*': 'ask', 'git status*': 'allow' } },
      }),
    );
    const local = write(
      join(project, '.opencoderc.json'),
      JSON.stringify({
        model: 'anthropic/project-model',
        subagents: { max_depth: 2 },
        permission: { bash: { 'npm test': 'allow' }, edit: 'deny' },
      }),
    );
    const { config, sources } = loadConfig({ cwd: project, env });
    expect(sources).toEqual([global, local]);
    expect(config.model).toBe('anthropic/project-model');
    expect(config.default_agent).toBe('plan');
    expect(config.subagents).toEqual({
      max_depth: 2,
      max_concurrency: 3,
      max_per_batch: 10,
      max_turns: 20,
      timeout_seconds: 600,
      approvals: 'deny',
      isolation: 'none',
      worktree: { link: ['node_modules'], pool: 10 },
    });
    expect(config.keybinds).toEqual({ ...DEFAULT_KEYBINDS, leader: 'ctrl+a' });
    // Nearer patterns come after farther ones, so they win under last-match-wins rules.
    expect(config.permission).toEqual({ bash: { '*': 'ask', 'git status*': 'allow', 'npm test': 'allow' }, edit: 'deny' });
    expect(Object.keys(config.permission.bash as object)).toEqual(['*', 'git status*', 'npm test']);
  });

  it('walks up from the working directory to the git root, nearer files winning', () => {
    const outside = join(root, 'outer');
    const repo = join(outside, 'repo');
    const cwd = join(repo, 'packages', 'app', 'src');
    mkdirSync(join(repo, '.git'), { recursive: true });
    mkdirSync(cwd, { recursive: true });
    write(join(outside, '.opencoderc.json'), JSON.stringify({ default_agent: 'outside', subagents: { max_turns: 99 } }));
    const atRoot = write(join(repo, '.opencoderc.json'), JSON.stringify({ model: 'anthropic/root', subagents: { max_depth: 3 } }));
    const atApp = write(join(repo, 'packages', 'app', '.opencoderc.json'), JSON.stringify({ model: 'anthropic/app' }));
    const { config, sources } = loadConfig({ cwd, env });
    expect(sources).toEqual([atRoot, atApp]);
    expect(config.model).toBe('anthropic/app');
    expect(config.subagents.max_depth).toBe(3);
    expect(config.default_agent).toBe('build');
    expect(config.subagents.max_turns).toBe(20);
  });

  it('reads only the working directory when there is no git root', () => {
    const parent = join(root, 'plain');
    const cwd = join(parent, 'child');
    mkdirSync(cwd, { recursive: true });
    write(join(parent, '.opencoderc.json'), JSON.stringify({ default_agent: 'parent' }));
    const own = write(join(cwd, '.opencoderc.json'), JSON.stringify({ model: 'anthropic/own' }));
    const { config, sources } = loadConfig({ cwd, env });
    expect(sources).toEqual([own]);
    expect(config.default_agent).toBe('build');
    expect(config.model).toBe('anthropic/own');
  });

  it('accepts comments and trailing commas and substitutes {env:VAR} in strings', () => {
    const project = join(root, 'project');
    mkdirSync(project, { recursive: true });
    write(
      join(project, '.opencoderc.json'),
      [
        '// the project config',
        '{',
        '  /* a block',
        '     comment */',
        '  "model": "anthropic/{env:OCI_TEST_MODEL}", // trailing comment',
        '  "provider": { "anthropic": { "apiKey": "{env:OCI_TEST_KEY}", "baseURL": "{env:OCI_TEST_UNSET}", }, },',
        '  "command": { "c": { "template": "see http://example.com/*x*/ and // this; {env:OCI_TEST_UNSET}end", }, },',
        '}',
      ].join('\n'),
    );
    const { config } = loadConfig({ cwd: project, env: { ...env, OCI_TEST_MODEL: 'claude-x', OCI_TEST_KEY: 'sk-123' } });
    expect(config.model).toBe('anthropic/claude-x');
    expect(config.provider.anthropic).toEqual({ apiKey: 'sk-123', baseURL: '' });
    expect(config.command.c?.template).toBe('see http://example.com/*x*/ and // this; end');
  });

  it('treats an empty or comments-only file as setting nothing', () => {
    const project = join(root, 'project');
    const file = write(join(project, '.opencoderc.json'), '// nothing yet\n');
    const { config, sources } = loadConfig({ cwd: project, env });
    expect(sources).toEqual([file]);
    expect(config.model).toBe('anthropic/claude-sonnet-4-6');
  });

  it('reports a value of the wrong type with the file, the key path and the expectation', () => {
    const project = join(root, 'project');
    const file = write(join(project, '.opencoderc.json'), JSON.stringify({ subagents: { max_depth: 9 } }));
    expectConfigError(() => loadConfig({ cwd: project, env }), `${file}: subagents.max_depth must be an integer from 1 to 5 (got 9).`);
  });

  it('reports other kinds of bad values in the same one-sentence form', () => {
    const project = join(root, 'project');
    const file = join(project, '.opencoderc.json');
    const cases: Array<[unknown, string]> = [
      [{ subagents: { approvals: 'ask' } }, 'subagents.approvals must be "bubble" or "deny" (got "ask").'],
      [{ model: 42 }, 'model must be a non-empty string (got 42).'],
      [{ permission: { bash: { 'git push*': 'never' } } }, 'permission.bash["git push*"] must be "allow", "ask" or "deny" (got "never").'],
      [{ command: { review: { description: 'no template' } } }, 'command.review.template is missing; it must be a string.'],
      [{ provider: { anthropic: { maxRetries: 11 } } }, 'provider.anthropic.maxRetries must be an integer from 0 to 10 (got 11).'],
      [{ provider: { anthropic: { baseURL: 'ftp://host' } } }, 'provider.anthropic.baseURL must be an http:// or https:// URL (got "ftp://host").'],
      [{ agent: { x: { temperature: 3 } } }, 'agent.x.temperature must be a number from 0 to 2 (got 3).'],
      [[1, 2], 'the top level must be an object (got a list).'],
    ];
    for (const [content, message] of cases) {
      write(file, JSON.stringify(content));
      expectConfigError(() => loadConfig({ cwd: project, env }), `${file}: ${message}`);
    }
  });

  it('reports an unknown key, nested ones with their path, with a suggestion', () => {
    const project = join(root, 'project');
    const file = write(join(project, '.opencoderc.json'), JSON.stringify({ subagnts: { max_depth: 2 } }));
    expectConfigError(() => loadConfig({ cwd: project, env }), `${file}: unknown key "subagnts" (did you mean "subagents"?).`);
    write(file, JSON.stringify({ keybinds: { session_parnet: '<leader>p' } }));
    expectConfigError(() => loadConfig({ cwd: project, env }), `${file}: unknown key "keybinds.session_parnet" (did you mean "session_parent"?).`);
    write(file, JSON.stringify({ telemetry: true }));
    expectConfigError(() => loadConfig({ cwd: project, env }), `${file}: unknown key "telemetry".`);
  });

  it('reports bad JSON with its line and column', () => {
    const project = join(root, 'project');
    const file = write(join(project, '.opencoderc.json'), '{\n  "model": "anthropic/x"\n  "default_agent": "plan"\n}\n');
    expectConfigError(
      () => loadConfig({ cwd: project, env }),
      `${file}: invalid JSON at line 3, column 3: expected "," or "}" after a property value, found '"'.`,
    );
  });

  it('names the file that is wrong, not the last one read', () => {
    const project = join(root, 'project');
    mkdirSync(join(project, '.git'), { recursive: true });
    const global = write(join(root, 'config', 'config.json'), JSON.stringify({ subagents: { timeout_seconds: 0 } }));
    write(join(project, '.opencoderc.json'), JSON.stringify({ model: 'anthropic/fine' }));
    expectConfigError(() => loadConfig({ cwd: project, env }), `${global}: subagents.timeout_seconds must be a number of at least 1 (got 0).`);
  });
});

describe('.opencoderc.example.json', () => {
  const examplePath = join(REPO_ROOT, '.opencoderc.example.json');

  it('loads through the same loader and holds the default values', () => {
    const project = join(root, 'project');
    const file = write(join(project, '.opencoderc.json'), readFileSync(examplePath, 'utf8'));
    const { config, sources } = loadConfig({ cwd: project, env: { ...env, ANTHROPIC_API_KEY: 'sk-example' } });
    expect(sources).toEqual([file]);
    const defaults = ConfigSchema.parse({});
    expect(config.model).toBe(defaults.model);
    expect(config.default_agent).toBe(defaults.default_agent);
    expect(config.subagents).toEqual(defaults.subagents);
    expect(config.keybinds).toEqual(defaults.keybinds);
    expect(config.compaction).toEqual(defaults.compaction);
    expect(config.provider.anthropic?.apiKey).toBe('sk-example');
    expect(Object.keys(config.agent).length).toBeGreaterThan(0);
    expect(Object.keys(config.command).length).toBeGreaterThan(0);
    expect(Object.keys(config.permission).length).toBeGreaterThan(0);
  });

  it('shows every top-level, provider, subagents and keybinds key', () => {
    const example = parseJsonc(readFileSync(examplePath, 'utf8')) as Record<string, Record<string, unknown>>;
    expect(Object.keys(example).sort()).toEqual(Object.keys(ConfigSchema.shape).sort());
    expect(Object.keys(example.subagents ?? {}).sort()).toEqual(Object.keys(SubagentSettingsSchema.shape).sort());
    expect(Object.keys(example.keybinds ?? {}).sort()).toEqual(Object.keys(KeybindsSchema.shape).sort());
    const anthropic = (example.provider?.anthropic ?? {}) as Record<string, unknown>;
    expect(Object.keys(anthropic).sort()).toEqual(['apiKey', 'baseURL', 'idleTimeoutMs', 'maxRetries', 'models', 'requestTimeoutMs']);
    expect(Object.keys(example.compaction ?? {}).sort()).toEqual(Object.keys(CompactionSchema.shape).sort());
    expect(Object.keys(example.sandbox ?? {}).sort()).toEqual(Object.keys(sandboxConfigSchema().shape).sort());
    const command = Object.values(example.command ?? {})[0] as Record<string, unknown>;
    expect(Object.keys(command).sort()).toEqual(['agent', 'description', 'model', 'subtask', 'template']);
  });
});
