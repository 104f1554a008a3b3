import { describe, expect, it } from 'vitest';
import { allowlistMatches, parseAgentMarkdown, selectTools, toolName } from '../../src/core/agents/index.js';
import { selectionWarnings } from '../../src/core/agents/tools.js';

describe('toolName', () => {
  it('maps Claude Code names case-insensitively to ours', () => {
    const pairs: Array<[string, string]> = [
      ['Read', 'read'],
      ['Write', 'write'],
      ['Edit', 'edit'],
      ['MultiEdit', 'edit'],
      ['Bash', 'bash'],
      ['Glob', 'glob'],
      ['Grep', 'grep'],
      ['LS', 'list'],
      ['WebFetch', 'webfetch'],
      ['TodoWrite', 'todowrite'],
      ['TodoRead', 'todoread'],
      ['Task', 'task'],
      ['Agent', 'task'],
      ['AskUserQuestion', 'ask_user'],
      ['BashOutput', 'bash_output'],
      ['KillShell', 'kill_shell'],
      ['KillBash', 'kill_shell'],
      ['TaskCreate', 'task_list'],
      ['TaskUpdate', 'task_list'],
      ['TaskList', 'task_list'],
      ['TaskGet', 'task_list'],
      ['task_list', 'task_list'],
      ['ask_user', 'ask_user'],
      ['list', 'list'],
      ['Bash(git commit:*)', 'bash'],
      ['  READ  ', 'read'],
    ];
    for (const [raw, ours] of pairs) expect(toolName(raw), raw).toBe(ours);
    expect(toolName('WebSearch')).toBe('websearch');
    expect(toolName('mcp__github__create_issue')).toBeUndefined();
  });
});

describe('selectTools', () => {
  it('turns a comma string into a de-duplicated allowlist, keeping commas inside parentheses', () => {
    expect(selectTools('Read, Bash(git add, git commit), Edit, MultiEdit, Nope')).toEqual({
      allow: ['read', 'bash', 'edit'],
      disable: [],
      enable: [],
      unknown: ['Nope'],
      permission: { bash: { '*': 'deny', 'git add': 'allow', 'git commit': 'allow' } },
      ignoredScopes: [],
      empty: false,
    });
  });

  it('treats an empty string or "*" as no restriction, and an empty list as no tools', () => {
    expect(selectTools('').allow).toBeUndefined();
    expect(selectTools('*').allow).toBeUndefined();
    expect(selectTools([]).allow).toEqual([]);
  });

  it('splits a map into enabled and disabled tools', () => {
    expect(selectTools({ write: false, Bash: true, notebook: false })).toEqual({
      disable: ['write'],
      enable: ['bash'],
      unknown: ['notebook'],
      ignoredScopes: [],
      empty: false,
    });
  });
});

describe('allowlists with globs and scoped tools', () => {
  it('keeps globs that can match a tool, MCP names, and warns about globs that match nothing', () => {
    const s = selectTools('gl*, mcp__github__*, mcp__linear__create_issue, zz*');
    expect(s.allow).toEqual(['gl*', 'mcp__github__*', 'mcp__linear__create_issue']);
    expect(s.unknown).toEqual(['zz*']);
    expect(allowlistMatches(s.allow!, 'glob')).toBe(true);
    expect(allowlistMatches(s.allow!, 'grep')).toBe(false);
    expect(allowlistMatches(s.allow!, 'mcp__github__create_pr')).toBe(true);
    expect(allowlistMatches(s.allow!, 'mcp__gitlab__create_pr')).toBe(false);
    // A bare server name means all of its tools.
    expect(selectTools('mcp__sentry').allow).toEqual(['mcp__sentry__*']);
  });

  it('turns Claude Code bash scopes into rules: prefix with a word boundary, exact, trailing " *"', () => {
    expect(selectTools('Bash(git log:*), Bash(npm test), Bash(ls *)').permission).toEqual({
      bash: { '*': 'deny', 'git log': 'allow', 'git log *': 'allow', 'npm test': 'allow', ls: 'allow', 'ls *': 'allow' },
    });
  });

  it('gives the whole tool when any entry for the same permission is plain', () => {
    expect(selectTools('Bash, Bash(git log:*)').permission).toBeUndefined();
    expect(selectTools('Bash(*)').permission).toBeUndefined();
    // write and edit share the edit permission.
    expect(selectTools('Write, Edit(src/**)').permission).toBeUndefined();
  });

  it('maps Edit/Write paths, WebFetch domains and Task types; denies scopes it cannot read', () => {
    const s = selectTools('Edit(./src/**), Write(/docs/*.md), WebFetch(domain:example.com), WebFetch(domain:*.evil.test), Task(explore, general)');
    expect(s.allow).toEqual(['edit', 'write', 'webfetch', 'task']);
    expect(s.permission).toEqual({
      edit: { '*': 'deny', 'src/**': 'allow', 'docs/*.md': 'allow' },
      webfetch: { '*': 'deny', 'https://example.com/*': 'allow', 'http://example.com/*': 'allow' },
      task: { '*': 'deny', explore: 'allow', general: 'allow' },
    });
    expect(s.ignoredScopes).toEqual([{ entry: 'WebFetch(domain:*.evil.test)', effect: 'denied' }]);
    expect(selectionWarnings(s)).toEqual([expect.stringContaining('"WebFetch(domain:*.evil.test)"')]);
  });

  it('gives read whole for Read(path), with a warning', () => {
    const s = selectTools('Read(src/**)');
    expect(s.allow).toEqual(['read']);
    expect(s.permission).toBeUndefined();
    expect(selectionWarnings(s)).toEqual([expect.stringMatching(/"Read\(src\/\*\*\)".*whole tool/)]);
  });

  it('warns when a list ends up with no tool at all', () => {
    const s = selectTools('Nope, Nada');
    expect(s.allow).toEqual([]);
    expect(s.empty).toBe(true);
    expect(selectionWarnings(s)).toEqual([expect.stringContaining('"Nope", "Nada"'), expect.stringMatching(/no tool that exists.*ask_user/)]);
    expect(selectionWarnings(selectTools([]))).toEqual([]);
  });
});

describe('agent files with scoped and empty allowlists', () => {
  it('puts Bash(...) rules into the parsed permission, under the file\'s own rules, and warns about an empty list', () => {
    const parsed = parseAgentMarkdown('---\nname: gitter\ntools: Bash(git log:*), Read\npermission:\n  bash:\n    "git log -p*": ask\n---\nBody\n', {
      file: '/x/gitter.md',
      fallbackName: 'gitter',
      defaultMode: 'subagent',
    });
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(parsed.agent.tools).toEqual(['bash', 'read']);
    expect(parsed.agent.permission).toEqual({ bash: { '*': 'deny', 'git log': 'allow', 'git log *': 'allow', 'git log -p*': 'ask' } });
    expect(parsed.warnings).toEqual([]);

    const empty = parseAgentMarkdown('---\nname: nothing\ntools: Frobnicate\n---\nBody\n', { file: '/x/n.md', fallbackName: 'n', defaultMode: 'subagent' });
    if (!empty.ok) throw new Error(empty.reason);
    expect(empty.agent.tools).toEqual([]);
    expect(empty.unknownTools).toEqual(['Frobnicate']);
    expect(empty.warnings).toEqual([expect.stringMatching(/no tool that exists, so it has no tools besides ask_user/)]);
  });
});
