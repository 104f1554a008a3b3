import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAgents, type AgentDefinition, type LoadAgentsOptions } from '../../src/core/agents/index.js';
import { TOOL_NAMES } from '../../src/core/agents/tools.js';

const BUILTIN_DIR = join(import.meta.dirname, '..', '..', 'agents');

let root: string;
let project: string;
let configDir: string;

function write(path: string, content: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return path;
}

function load(overrides: Partial<LoadAgentsOptions> = {}) {
  return loadAgents({ builtinDir: BUILTIN_DIR, configDir, cwd: project, configAgents: {}, ...overrides });
}

function agent(agents: Map<string, AgentDefinition>, name: string): AgentDefinition {
  const found = agents.get(name);
  if (!found) throw new Error(`agent "${name}" not loaded; have ${[...agents.keys()].join(', ')}`);
  return found;
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'oci-agents-'));
  project = join(root, 'project');
  configDir = join(root, 'config');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(configDir, { recursive: true });
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('built-in agents', () => {
  it('loads build, plan, general and explore with the right modes and no warnings', () => {
    const { agents, warnings } = load();
    expect(warnings).toEqual([]);
    expect([...agents.keys()].sort()).toEqual(['build', 'explore', 'general', 'plan']);
    expect(agent(agents, 'build').mode).toBe('primary');
    expect(agent(agents, 'plan').mode).toBe('primary');
    expect(agent(agents, 'general').mode).toBe('subagent');
    expect(agent(agents, 'explore').mode).toBe('subagent');
    for (const a of agents.values()) {
      expect(a.source).toBe(join(BUILTIN_DIR, `${a.name}.md`));
      expect(a.description.length).toBeGreaterThan(40);
      const lines = a.prompt.split('\n').length;
      expect(lines).toBeGreaterThanOrEqual(15);
      expect(lines).toBeLessThanOrEqual(40);
      expect(a.prompt.startsWith('---')).toBe(false);
      expect(a.disable).toBe(false);
      expect(a.hidden).toBe(false);
    }
  });

  it('gives build and general every tool, explore only read-only ones, and plan no file edits', () => {
    const { agents } = load();
    expect(agent(agents, 'build').tools).toBeUndefined();
    expect(agent(agents, 'general').tools).toBeUndefined();
    expect(agent(agents, 'explore').tools).toEqual(['read', 'glob', 'grep', 'list', 'bash']);
    const plan = agent(agents, 'plan');
    expect(plan.tools).toBeDefined();
    expect(plan.tools).not.toContain('write');
    expect(plan.tools).not.toContain('edit');
    expect(plan.tools).toContain('read');
    expect(plan.permission).toEqual({ edit: 'deny', bash: 'ask' });
    expect(agent(agents, 'build').prompt).toMatch(/\btask\b/);
  });
});

describe('Claude Code agent files', () => {
  it('load unchanged: tool aliases, model alias, subagent by default, one warning for unknown tools', () => {
    const file = write(
      join(project, '.claude', 'agents', 'code-reviewer.md'),
      [
        '---',
        'name: code-reviewer',
        'description: Expert code review specialist. Use proactively after writing code.',
        'tools: Read, grep, GLOB, LS, MultiEdit, Bash(git diff:*), WebFetch, TodoWrite, Task, AskUserQuestion, WebSearch, NotebookEdit',
        'model: sonnet',
        'color: red',
        '---',
        '',
        'You are a senior code reviewer.',
        'Review the diff.',
        '',
      ].join('\n'),
    );
    const { agents, warnings } = load();
    const reviewer = agent(agents, 'code-reviewer');
    expect(reviewer).toEqual({
      name: 'code-reviewer',
      mode: 'subagent',
      description: 'Expert code review specialist. Use proactively after writing code.',
      prompt: 'You are a senior code reviewer.\nReview the diff.',
      model: 'sonnet',
      tools: ['read', 'grep', 'glob', 'list', 'edit', 'bash', 'webfetch', 'todowrite', 'task', 'ask_user', 'websearch'],
      // `Bash(git diff:*)` gives bash for `git diff` only.
      permission: { bash: { '*': 'deny', 'git diff': 'allow', 'git diff *': 'allow' } },
      color: 'red',
      hidden: false,
      disable: false,
      source: file,
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.source).toBe(file);
    expect(warnings[0]?.message).toContain('"NotebookEdit"');
    expect(warnings[0]?.message).not.toContain('WebSearch');
    expect(warnings[0]?.unknownTools).toEqual(['NotebookEdit']);
  });

  it('take Claude Code\'s team tools as task and send_message, and say which of its tools have no counterpart here', () => {
    const file = write(
      join(project, '.claude', 'agents', 'team-lead.md'),
      ['---', 'name: team-lead', 'description: Leads.', 'tools: Read, TeamCreate, TeamDelete, NotebookEdit, ToolSearch, Teleport', '---', 'Lead.', ''].join('\n'),
    );
    const { agents, warnings } = load();
    expect(agent(agents, 'team-lead').tools).toEqual(['read', 'task', 'send_message']);
    expect(warnings).toEqual([
      {
        source: file,
        message:
          'ignoring "NotebookEdit" has no counterpart here (notebooks are edited as text by edit and write); "ToolSearch" has no counterpart here (every tool is offered to the model at once, so there is nothing to search for); ' +
          `unknown tool "Teleport" (known tools: ${TOOL_NAMES.join(', ')}).`,
        unknownTools: ['NotebookEdit', 'ToolSearch', 'Teleport'],
      },
    ]);
  });

  it('accept a YAML list of tools, Agent as task, and a description with an unquoted colon', () => {
    write(
      join(project, '.claude', 'agents', 'researcher.md'),
      ['---', 'description: Use this agent when: the user asks about the API', 'tools:', '  - Read', '  - Agent', '  - TodoRead', 'model: inherit', '---', 'Research.'].join('\n'),
    );
    const { agents, warnings } = load();
    const researcher = agent(agents, 'researcher');
    expect(warnings).toEqual([]);
    expect(researcher.description).toBe('Use this agent when: the user asks about the API');
    expect(researcher.tools).toEqual(['read', 'task', 'todoread']);
    expect(researcher.model).toBe('inherit');
  });

  it('keep a mode the file states', () => {
    write(join(project, '.claude', 'agents', 'lead.md'), '---\nmode: primary\ndescription: lead\n---\nLead.');
    expect(agent(load().agents, 'lead').mode).toBe('primary');
  });
});

describe('OpenCode agent files', () => {
  it('load unchanged: tools map, permission, temperature, steps', () => {
    const file = write(
      join(project, '.opencode', 'agents', 'docs-writer.md'),
      [
        '---',
        'description: Writes and maintains project documentation',
        'mode: subagent',
        'model: anthropic/claude-haiku-4-5',
        'temperature: 0.2',
        'top_p: 0.9',
        'steps: 7',
        'tools:',
        '  write: false',
        '  edit: false',
        '  bash: true',
        'permission:',
        '  edit: deny',
        '  bash:',
        '    "*": ask',
        '    "git status": allow',
        'hidden: true',
        '---',
        'You are a technical writer.',
      ].join('\n'),
    );
    const { agents, warnings } = load();
    expect(warnings).toEqual([]);
    expect(agent(agents, 'docs-writer')).toEqual({
      name: 'docs-writer',
      mode: 'subagent',
      description: 'Writes and maintains project documentation',
      prompt: 'You are a technical writer.',
      model: 'anthropic/claude-haiku-4-5',
      temperature: 0.2,
      top_p: 0.9,
      maxTurns: 7,
      disabledTools: ['write', 'edit'],
      permission: { edit: 'deny', bash: { '*': 'ask', 'git status': 'allow' } },
      hidden: true,
      disable: false,
      source: file,
    });
  });

  it('default to mode all, read .opencode/agent too, and restrict nothing for a map of only true entries', () => {
    write(join(project, '.opencode', 'agent', 'helper.md'), '---\ndescription: helps\ntools:\n  read: true\n  bash: true\n---\nHelp.');
    const helper = agent(load().agents, 'helper');
    expect(helper.mode).toBe('all');
    expect(helper.tools).toBeUndefined();
    expect(helper.disabledTools).toBeUndefined();
  });

  it('stay in the map with disable: true', () => {
    write(join(project, '.opencode', 'agents', 'old.md'), '---\ndescription: retired\ndisable: true\n---\nOld.');
    expect(agent(load().agents, 'old').disable).toBe(true);
  });
});

describe('names and precedence', () => {
  it('takes the name from the front-matter, else from the file name', () => {
    write(join(project, '.opencode', 'agents', 'file-name.md'), '---\ndescription: no name\n---\nA.');
    write(join(project, '.opencode', 'agents', 'other-file.md'), '---\nname: given-name\ndescription: named\n---\nB.');
    write(join(project, '.opencode', 'agents', 'bare.md'), 'Just a prompt, no front-matter.');
    const { agents } = load();
    expect(agent(agents, 'file-name').prompt).toBe('A.');
    expect(agent(agents, 'given-name').prompt).toBe('B.');
    expect(agents.has('other-file')).toBe(false);
    expect(agent(agents, 'bare').prompt).toBe('Just a prompt, no front-matter.');
  });

  it('lets later sources override earlier ones by name', () => {
    const builtinDir = join(root, 'builtin');
    const def = (label: string) => `---\ndescription: from ${label}\n---\n${label} prompt`;
    const builtin = write(join(builtinDir, 'helper.md'), def('builtin'));
    const user = write(join(configDir, 'agents', 'helper.md'), def('user'));
    const opencode = write(join(project, '.opencode', 'agents', 'helper.md'), def('opencode'));
    const claude = write(join(project, '.claude', 'agents', 'helper.md'), def('claude'));
    const sourceOf = () => agent(load({ builtinDir }).agents, 'helper').source;
    expect(sourceOf()).toBe(claude);
    rmSync(claude);
    expect(sourceOf()).toBe(opencode);
    rmSync(opencode);
    expect(sourceOf()).toBe(user);
    rmSync(user);
    expect(sourceOf()).toBe(builtin);
    expect(agent(load({ builtinDir }).agents, 'helper').description).toBe('from builtin');
  });

  it('lets a project file replace a built-in, and a nearer folder beat the git root', () => {
    const cwd = join(project, 'packages', 'app');
    write(join(project, '.opencode', 'agents', 'build.md'), '---\ndescription: project build\nmode: primary\n---\nRoot build.');
    const near = write(join(cwd, '.opencode', 'agents', 'build.md'), '---\ndescription: app build\nmode: primary\n---\nApp build.');
    const build = agent(load({ cwd }).agents, 'build');
    expect(build.source).toBe(near);
    expect(build.prompt).toBe('App build.');
    expect(build.tools).toBeUndefined();
  });

  it('warns that an agent called "fork" cannot be started as a sub-agent: the name starts a fork', () => {
    const file = write(join(project, '.opencode', 'agent', 'fork.md'), ['---', 'description: Splits work.', 'mode: subagent', '---', '', 'You split work.'].join('\n'));
    const { warnings } = load();
    expect(warnings).toContainEqual({ source: file, message: 'agent "fork": subagent_type "fork" starts a fork of the calling session, so this agent cannot be started as a sub-agent; rename it.' });
    expect(load().warnings.filter((w) => w.message.includes('"fork"'))).toHaveLength(1);
  });
});

describe('config entries', () => {
  it('override single fields of an existing agent and create new ones', () => {
    const { agents, warnings } = load({
      configAgents: {
        explore: { model: 'haiku', permission: { bash: 'deny' }, max_turns: 4 },
        build: { tools: { bash: false } },
        plan: { tools: { write: true } },
        general: { tools: ['read', 'Grep', 'Frobnicate'] },
        newbie: { description: 'A new one', prompt: 'Be new.', mode: 'subagent' },
        empty: {},
      },
    });
    const explore = agent(agents, 'explore');
    expect(explore.model).toBe('haiku');
    expect(explore.permission).toEqual({ edit: 'deny', bash: 'deny' });
    expect(explore.maxTurns).toBe(4);
    expect(explore.tools).toEqual(['read', 'glob', 'grep', 'list', 'bash']);
    expect(explore.prompt).toBe(readFileSync(join(BUILTIN_DIR, 'explore.md'), 'utf8').split(/^---$/m)[2]?.trim());
    expect(explore.source).toBe(join(BUILTIN_DIR, 'explore.md'));
    expect(agent(agents, 'build').disabledTools).toEqual(['bash']);
    expect(agent(agents, 'build').tools).toBeUndefined();
    expect(agent(agents, 'plan').tools).toContain('write');
    expect(agent(agents, 'general').tools).toEqual(['read', 'grep']);
    expect(agent(agents, 'newbie')).toMatchObject({ name: 'newbie', mode: 'subagent', description: 'A new one', prompt: 'Be new.', source: 'config' });
    expect(agent(agents, 'empty')).toMatchObject({ mode: 'all', prompt: '', source: 'config' });
    expect(warnings).toEqual([{ source: 'config', message: expect.stringContaining('"Frobnicate"') }]);
    expect(warnings[0]?.message).toMatch(/^agent "general": /);
  });
});

describe('broken files', () => {
  it('are skipped with a warning naming the file and the reason, and never throw', () => {
    const badYaml = write(join(project, '.opencode', 'agents', 'bad-yaml.md'), '---\ndescription: broken\ntools: [read, grep\n---\nBody.');
    const badField = write(join(project, '.claude', 'agents', 'bad-field.md'), '---\ndescription: too hot\ntemperature: 5\n---\nBody.');
    const unclosed = write(join(project, '.opencode', 'agents', 'unclosed.md'), '---\ndescription: never closed\nBody.');
    const notMapping = write(join(project, '.opencode', 'agents', 'list.md'), '---\n- a\n- b\n---\nBody.');
    write(join(project, '.opencode', 'agents', 'fine.md'), '---\ndescription: fine\n---\nFine.');
    const { agents, warnings } = load();
    expect(agents.has('fine')).toBe(true);
    expect(agents.has('build')).toBe(true);
    for (const name of ['bad-yaml', 'bad-field', 'unclosed', 'list']) expect(agents.has(name)).toBe(false);
    const bySource = new Map(warnings.map((w) => [w.source, w.message]));
    expect(warnings).toHaveLength(4);
    expect(bySource.get(badYaml)).toMatch(/^skipped: invalid YAML front-matter: .+\.$/);
    expect(bySource.get(badField)).toBe('skipped: temperature must be a number from 0 to 2 (got 5).');
    expect(bySource.get(unclosed)).toBe('skipped: the front-matter has no closing "---" line.');
    expect(bySource.get(notMapping)).toMatch(/^skipped: invalid YAML front-matter: the front-matter must be/);
  });

  it('treat missing folders as empty', () => {
    const { agents, warnings } = load({ builtinDir: join(root, 'nope'), configDir: join(root, 'nope2') });
    expect(agents.size).toBe(0);
    expect(warnings).toEqual([]);
  });
});
