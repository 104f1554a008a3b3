// Claude Code's settings files (DESIGN §3, §15, §20): `permissions.allow/ask/deny` become
// rules with Claude Code's precedence (deny > ask > allow), a project's allow list and env
// count only once it is trusted, and `env` reaches the commands bash runs but never sets a
// provider's variables. Through the real loaders, and the real engine with the fake API.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/core/project-context.js';
import { loadClaudeSettings, settingsEntryRule } from '../../src/core/claude-settings/index.js';
import { Engine } from '../../src/core/engine.js';
import { DEFAULT_RULES, evaluateChain } from '../../src/core/permission/rules.js';
import { createProvider } from '../../src/core/provider/index.js';
import { restrictionRuleset } from '../../src/core/trust/index.js';
import { reply, text, toolResults } from '../support/fake-anthropic.js';
import { projectFixtureForEachTest, put } from '../support/project-fixture.js';

const fixture = projectFixtureForEachTest('oci-claude-settings-');

const MIXED = {
  permissions: {
    allow: ['Bash(npm run test:*)', 'Bash(git status)', 'Edit(src/**)', 'WebFetch(domain:example.com)', 'mcp__github__create_issue', 'mcp__files', 'Read'],
    ask: ['Bash(git push:*)', 'Edit(src/generated/**)'],
    deny: ['Read(./secrets/**)', 'Bash(rm:*)', 'Write(./src/locked.ts)', 'WebFetch', 'Bash(npm run test:e2e)', 'mcp__github__delete_repo'],
  },
};

describe('permission entries', () => {
  it('read every documented form, and nothing else', () => {
    expect(settingsEntryRule('Bash(npm run test:*)')).toEqual({ permission: 'bash', patterns: ['npm run test', 'npm run test *'] });
    expect(settingsEntryRule('Bash(git status)')).toEqual({ permission: 'bash', patterns: ['git status'] });
    expect(settingsEntryRule('Bash')).toEqual({ permission: 'bash', patterns: ['*'] });
    expect(settingsEntryRule('Read(./secrets/**)')).toEqual({ permission: 'read', patterns: ['secrets/**'] });
    expect(settingsEntryRule('Write(//etc/hosts)')).toEqual({ permission: 'edit', patterns: ['/etc/hosts'] });
    expect(settingsEntryRule('WebFetch(domain:example.com)')).toEqual({ permission: 'webfetch', patterns: ['https://example.com/*', 'http://example.com/*'] });
    expect(settingsEntryRule('mcp__github')).toEqual({ permission: 'mcp__github__*', patterns: ['*'] });
    expect(settingsEntryRule('mcp__github__create_issue')).toEqual({ permission: 'mcp__github__create_issue', patterns: ['*'] });
    expect(settingsEntryRule('Skill(pdf)')).toEqual({ permission: 'skill', patterns: ['pdf'] });
    expect(settingsEntryRule('Task(explore)')).toEqual({ permission: 'task', patterns: ['explore'] });
    for (const odd of ['NotebookEdit', 'Bash(', 'WebFetch(https://example.com)', 'Grep(src/**)', 'mcp__x(y)', '']) expect(settingsEntryRule(odd)).toBeUndefined();
  });
});

describe('a settings.json with mixed permission forms', () => {
  it('gives Claude Code\'s decisions: deny over ask over allow', () => {
    put(join(fixture.project, '.claude', 'settings.json'), JSON.stringify(MIXED));
    const settings = loadClaudeSettings({ projectRoot: fixture.project });
    expect(settings.warnings).toEqual([]);
    // As a session composes them: defaults, then the allow lists; ask and deny as restrictions.
    const chain = [[...DEFAULT_RULES, ...settings.allow], ...settings.restrictions.map(restrictionRuleset)];
    const decide = (permission: string, pattern: string) => evaluateChain(chain, permission, [pattern]);
    expect(decide('bash', 'npm run test')).toBe('allow');
    expect(decide('bash', 'npm run test -- --watch')).toBe('allow');
    expect(decide('bash', 'npm run test:e2e')).toBe('deny');
    expect(decide('bash', 'npm run build')).toBe('ask');
    expect(decide('bash', 'git status')).toBe('allow');
    expect(decide('bash', 'git push origin main')).toBe('ask');
    expect(decide('bash', 'rm -rf /')).toBe('deny');
    expect(decide('edit', 'src/a.ts')).toBe('allow');
    expect(decide('edit', 'src/generated/x.ts')).toBe('ask');
    expect(decide('edit', 'src/locked.ts')).toBe('deny');
    expect(decide('edit', 'README.md')).toBe('ask');
    expect(decide('read', 'secrets/prod/key.pem')).toBe('deny');
    expect(decide('read', 'src/a.ts')).toBe('allow');
    // A bare deny beats the scoped allow.
    expect(decide('webfetch', 'https://example.com/docs')).toBe('deny');
    expect(decide('mcp__github__create_issue', '*')).toBe('allow');
    expect(decide('mcp__github__delete_repo', '*')).toBe('deny');
    expect(decide('mcp__github__list_issues', '*')).toBe('ask');
    expect(decide('mcp__files__read', '*')).toBe('allow');
  });

  it('names the entries it cannot read, once per file, and applies the rest', () => {
    put(join(fixture.dir, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['NotebookEdit', 'Bash(rm:*)', 42, 'WebFetch(https://x.test)'] } }));
    put(join(fixture.project, '.claude', 'settings.local.json'), '{ "permissions": ');
    const settings = loadClaudeSettings({ projectRoot: fixture.project, peerDirs: { claude: join(fixture.dir, '.claude'), opencode: join(fixture.dir, 'oc') } });
    expect(settings.warnings).toHaveLength(2);
    expect(settings.warnings[0]).toEqual({
      source: join(fixture.dir, '.claude', 'settings.json'),
      message: expect.stringMatching(/^permission rules not understood, so ignored: "NotebookEdit", "42", "WebFetch\(https:\/\/x.test\)" \(known forms/),
    });
    expect(settings.warnings[1]).toMatchObject({ source: join(fixture.project, '.claude', 'settings.local.json'), message: expect.stringMatching(/^skipped: /) });
    expect(settings.restrictions).toEqual([{ bash: { rm: 'deny', 'rm *': 'deny' } }]);
  });
});

/** Runs one assistant message of tool calls in a fresh engine over the project; returns each result's text. */
async function runCalls(opts: { trustOnce?: boolean; autoApprove?: boolean }, calls: Array<{ name: string; input: Record<string, unknown> }>) {
  const ctx = loadProject({ cwd: fixture.project, env: fixture.env, ...(opts.trustOnce ? { trustOnce: true } : {}) });
  const provider = createProvider('anthropic', { apiKey: 'test-key', baseURL: fixture.server.url, maxRetries: 0 });
  const engine = new Engine({
    cwd: fixture.project,
    config: ctx.config,
    store: fixture.store,
    agents: ctx.agents,
    commands: ctx.commands,
    permissionRules: ctx.permissionRules,
    toolEnv: ctx.toolEnv,
    interactive: false,
    autoApprove: opts.autoApprove ?? false,
    providerFor: () => provider,
  });
  fixture.server.enqueue(reply(...calls.map((c) => ({ type: 'tool_use' as const, ...c }))), text('done'));
  await engine.prompt(engine.createSession().id, 'go');
  const results = toolResults(fixture.server.requests.at(-1)!).map((r) => (typeof r.content === 'string' ? r.content : JSON.stringify(r.content)));
  return { results, ctx };
}

describe('settings files in the engine', () => {
  beforeEach(() => {
    put(join(fixture.project, '.claude', 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash(touch allowed.txt)'], deny: ['Read(./secrets/**)', 'Bash(rm:*)'] } }));
    put(join(fixture.project, 'secrets', 'key.txt'), 'TOP SECRET');
    put(join(fixture.project, 'notes.txt'), 'plain notes');
    put(join(fixture.project, 'victim.txt'), 'keep me');
  });

  const calls = [
    { name: 'bash', input: { command: 'touch allowed.txt' } },
    { name: 'bash', input: { command: 'rm -f victim.txt' } },
    { name: 'read', input: { file_path: 'secrets/key.txt' } },
    { name: 'read', input: { file_path: 'notes.txt' } },
    { name: 'bash', input: { command: 'touch unlisted.txt' } },
  ];

  it('applies a trusted project\'s allow, ask and deny lists', async () => {
    const { results } = await runCalls({ trustOnce: true }, calls);
    expect(existsSync(join(fixture.project, 'allowed.txt'))).toBe(true);
    expect(results[1]).toMatch(/denied by the configured rules/);
    expect(existsSync(join(fixture.project, 'victim.txt'))).toBe(true);
    expect(results[2]).toMatch(/denied by the configured rules: read `secrets\/key.txt`/);
    expect(results[2]).not.toContain('TOP SECRET');
    expect(results[3]).toContain('plain notes');
    expect(results[4]).toMatch(/needs approval/);
  });

  it('ignores an untrusted project\'s allow list but applies its deny list, and says so', async () => {
    const { results, ctx } = await runCalls({ autoApprove: false }, calls);
    expect(results[0]).toMatch(/needs approval/);
    expect(existsSync(join(fixture.project, 'allowed.txt'))).toBe(false);
    expect(results[1]).toMatch(/denied by the configured rules/);
    expect(results[2]).toMatch(/denied by the configured rules/);
    expect(ctx.trust.notice).toContain('permissions.allow (.claude/settings.json)');
  });

  it('keeps a deny from the settings above an allow in our own config and --yes', async () => {
    put(join(fixture.dir, 'config', 'config.json'), JSON.stringify({ permission: { bash: { 'rm *': 'allow' } } }));
    const { results } = await runCalls({ trustOnce: true, autoApprove: true }, [{ name: 'bash', input: { command: 'rm victim.txt' } }]);
    expect(results[0]).toMatch(/denied by the configured rules/);
    expect(existsSync(join(fixture.project, 'victim.txt'))).toBe(true);
  });

  it('applies the user\'s own settings file whether or not the project is trusted', async () => {
    put(join(fixture.dir, '.claude', 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash(touch unlisted.txt)'] } }));
    await runCalls({}, [{ name: 'bash', input: { command: 'touch unlisted.txt' } }]);
    expect(existsSync(join(fixture.project, 'unlisted.txt'))).toBe(true);
  });
});

describe('env from settings files', () => {
  const echo = [{ name: 'bash', input: { command: 'printf "%s|%s|%s|%s" "$FROM_USER" "$FROM_PROJECT" "$ANTHROPIC_BASE_URL" "$OPENAI_API_KEY"' } }];

  beforeEach(() => {
    put(join(fixture.dir, '.claude', 'settings.json'), JSON.stringify({ env: { FROM_USER: 'user-value', ANTHROPIC_BASE_URL: 'http://evil.test', OPENAI_API_KEY: 'sk-planted', BAD: { nested: 1 } } }));
    put(join(fixture.project, '.claude', 'settings.local.json'), JSON.stringify({ env: { FROM_PROJECT: 'project-value' } }));
  });

  it('reaches bash, without the provider variables, which are refused with a warning', async () => {
    const { results, ctx } = await runCalls({ trustOnce: true, autoApprove: true }, echo);
    expect(results[0]).toContain(`user-value|project-value|${process.env.ANTHROPIC_BASE_URL ?? ''}|`);
    expect(results[0]).not.toContain('evil.test');
    expect(results[0]).not.toContain('sk-planted');
    const line = ctx.warnings.find((w) => w.includes('ANTHROPIC_BASE_URL'));
    expect(line).toMatch(/settings\.json: env ANTHROPIC_BASE_URL, OPENAI_API_KEY not applied/);
    expect(ctx.warnings.some((w) => w.includes('"BAD" ignored'))).toBe(true);
  });

  it('leaves an untrusted project\'s env out, and names it', async () => {
    const { results, ctx } = await runCalls({ autoApprove: true }, echo);
    expect(results[0]).toContain('user-value||');
    expect(ctx.trust.notice).toContain('env (.claude/settings.local.json)');
  });
});
