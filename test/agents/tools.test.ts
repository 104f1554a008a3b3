import { describe, expect, it } from 'vitest';
import { selectTools, toolName } from '../../src/core/agents/index.js';

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
      ['ask_user', 'ask_user'],
      ['list', 'list'],
      ['Bash(git commit:*)', 'bash'],
      ['  READ  ', 'read'],
    ];
    for (const [raw, ours] of pairs) expect(toolName(raw), raw).toBe(ours);
    expect(toolName('WebSearch')).toBeUndefined();
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
    });
  });

  it('treats an empty string or "*" as no restriction, and an empty list as no tools', () => {
    expect(selectTools('').allow).toBeUndefined();
    expect(selectTools('*').allow).toBeUndefined();
    expect(selectTools([]).allow).toEqual([]);
  });

  it('splits a map into enabled and disabled tools', () => {
    expect(selectTools({ write: false, Bash: true, skill: false })).toEqual({ disable: ['write'], enable: ['bash'], unknown: ['skill'] });
  });
});
