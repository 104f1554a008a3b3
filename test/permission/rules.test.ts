import { describe, expect, it } from 'vitest';
import { PermissionGate, TreeApprovals, type PermissionQuestion } from '../../src/core/permission/gate.js';
import {
  DEFAULT_RULES,
  deniesEntirely,
  evaluateChain,
  evaluatePatterns,
  rulesFromConfig,
  wildcardMatch,
  type Ruleset,
} from '../../src/core/permission/rules.js';
import { PermissionDeniedError } from '../../src/core/tools/types.js';

describe('permission rules', () => {
  it('matches * across spaces and slashes, everything else literally', () => {
    expect(wildcardMatch('git status*', 'git status --short')).toBe(true);
    expect(wildcardMatch('git status*', 'git push')).toBe(false);
    expect(wildcardMatch('src/*', 'src/a/b.ts')).toBe(true);
    expect(wildcardMatch('a.b', 'axb')).toBe(false);
    expect(wildcardMatch('(x)+', '(x)+')).toBe(true);
  });

  it('defaults allow reading and ask for edits, commands, fetches and outside paths', () => {
    expect(evaluatePatterns(DEFAULT_RULES, 'read', ['src/a.ts'])).toBe('allow');
    expect(evaluatePatterns(DEFAULT_RULES, 'grep', ['*'])).toBe('allow');
    for (const p of ['edit', 'bash', 'webfetch', 'external_directory']) expect(evaluatePatterns(DEFAULT_RULES, p, ['x'])).toBe('ask');
  });

  it('flattens the config shape and lets the last matching rule win', () => {
    const rules: Ruleset = [
      ...DEFAULT_RULES,
      ...rulesFromConfig({ edit: 'allow', bash: { '*': 'ask', 'git status*': 'allow', 'git status --danger': 'deny' } }),
    ];
    expect(evaluatePatterns(rules, 'edit', ['a.ts'])).toBe('allow');
    expect(evaluatePatterns(rules, 'bash', ['git status'])).toBe('allow');
    expect(evaluatePatterns(rules, 'bash', ['git status --danger'])).toBe('deny');
    expect(evaluatePatterns(rules, 'bash', ['rm -rf /'])).toBe('ask');
  });

  it('takes the strictest decision across a chain, so a child never exceeds its parent', () => {
    const parent: Ruleset = [...DEFAULT_RULES, ...rulesFromConfig({ bash: { '*': 'deny' } })];
    const child: Ruleset = [...DEFAULT_RULES, ...rulesFromConfig({ bash: { '*': 'allow' } })];
    expect(evaluateChain([child], 'bash', ['ls'])).toBe('allow');
    expect(evaluateChain([child, parent], 'bash', ['ls'])).toBe('deny');
    expect(evaluateChain([child, [...DEFAULT_RULES]], 'bash', ['ls'])).toBe('ask');
  });

  it('recognises a permission denied outright but not one with exceptions', () => {
    expect(deniesEntirely([...DEFAULT_RULES, ...rulesFromConfig({ edit: 'deny' })], 'edit')).toBe(true);
    expect(deniesEntirely([...DEFAULT_RULES, ...rulesFromConfig({ bash: { '*': 'deny', 'ls*': 'allow' } })], 'bash')).toBe(false);
    expect(deniesEntirely(DEFAULT_RULES, 'edit')).toBe(false);
  });
});

describe('permission gate', () => {
  const request = { permission: 'bash', patterns: ['npm test'], subject: 'npm test', always: ['npm test*'] };

  function gateWith(rules: Ruleset, replies: Array<'once' | 'always' | 'reject'>) {
    const asked: PermissionQuestion[] = [];
    const approvals = new TreeApprovals();
    const gate = new PermissionGate([rules], approvals, async (q) => {
      asked.push(q);
      return { reply: replies.shift() ?? 'reject' };
    });
    return { gate, asked, approvals };
  }

  it('does not ask when rules allow, and refuses without asking when rules deny', async () => {
    const allowed = gateWith([...DEFAULT_RULES, ...rulesFromConfig({ bash: 'allow' })], []);
    await allowed.gate.check(request, 'bash', 'c1');
    expect(allowed.asked).toHaveLength(0);

    const denied = gateWith([...DEFAULT_RULES, ...rulesFromConfig({ bash: 'deny' })], ['once']);
    await expect(denied.gate.check(request, 'bash', 'c1')).rejects.toBeInstanceOf(PermissionDeniedError);
    expect(denied.asked).toHaveLength(0);
  });

  it('asks on ask, and "always" stops later asks that its pattern covers', async () => {
    const { gate, asked } = gateWith([...DEFAULT_RULES], ['always', 'reject']);
    await gate.check(request, 'bash', 'c1');
    await gate.check({ ...request, patterns: ['npm test -- --watch=false'] }, 'bash', 'c2');
    expect(asked).toHaveLength(1);
    await expect(gate.check({ ...request, patterns: ['rm -rf x'] }, 'bash', 'c3')).rejects.toThrow(/denied/);
    expect(asked).toHaveLength(2);
    expect(asked[0]).toMatchObject({ tool: 'bash', callId: 'c1', subject: 'npm test' });
  });

  it('"always" never overrides a deny rule', async () => {
    const approvals = new TreeApprovals();
    approvals.grant('bash', ['*']);
    const gate = new PermissionGate([[...DEFAULT_RULES, ...rulesFromConfig({ bash: { 'rm*': 'deny' } })]], approvals, async () => ({
      reply: 'once',
    }));
    await expect(gate.check({ ...request, patterns: ['rm -rf /'] }, 'bash', 'c1')).rejects.toThrow(/configured rules/);
    await gate.check(request, 'bash', 'c2');
  });
});
