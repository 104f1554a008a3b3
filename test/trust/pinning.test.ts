// Trust pinned to the content of the control files (DESIGN §15, §19): a trusted project whose
// `.opencoderc.json`, `.claude/` files, agents or instructions were added, changed or removed
// since it was trusted is narrowed as an untrusted one until the user trusts it again, and one
// notice names the files. Through loadProject (what the CLI, the TUI and ACP load with) and a
// real engine, on real files.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { trustCommand } from '../../src/cli/commands/trust.js';
import { Engine, projectParts } from '../../src/core/engine.js';
import { loadProject } from '../../src/core/project-context.js';
import { createProvider } from '../../src/core/provider/index.js';
import { PROJECT_CONTROL_FILES } from '../../src/core/sandbox/policy.js';
import { FOLDER_CONTROL_PATHS, ROOT_CONTROL_PATHS, setTrusted, trustFilePath, trustProject, trustRoot } from '../../src/core/trust/index.js';
import { text, toolResults, toolUse } from '../support/fake-anthropic.js';
import { projectFixtureForEachTest, put } from '../support/project-fixture.js';

const fixture = projectFixtureForEachTest('oci-trust-pins-');

const load = (cwd: string = fixture.project) => loadProject({ cwd, env: fixture.env });
const trust = (cwd: string = fixture.project) => trustProject(fixture.env, cwd);
const trustJson = () => JSON.parse(readFileSync(trustFilePath(fixture.env), 'utf8')) as { version: number; projects: Record<string, { control_files?: Record<string, Record<string, string>> }> };

/** Runs `command` through bash in a non-interactive engine over the project as loaded now; the tool result's text. */
async function runBash(command: string): Promise<string> {
  const ctx = load();
  const provider = createProvider('anthropic', { apiKey: 'test-key', baseURL: fixture.server.url, maxRetries: 0 });
  const engine = new Engine({ ...projectParts({ ...ctx, cwd: fixture.project, store: fixture.store }), interactive: false, providerFor: () => provider });
  fixture.server.enqueue(toolUse('bash', { command }), text('done'));
  await engine.prompt(engine.createSession().id, 'go');
  return JSON.stringify(toolResults(fixture.server.requests.at(-1)!)[0]?.content);
}

describe('a trusted project whose control files changed since', () => {
  it('does not apply a bash allow added to .opencoderc.json, names the file, and applies it once trusted again', async () => {
    put(join(fixture.project, '.opencoderc.json'), JSON.stringify({ permission: { edit: 'ask' } }));
    trust();
    put(join(fixture.project, '.opencoderc.json'), JSON.stringify({ permission: { edit: 'ask', bash: 'allow' } }));
    const ctx = load();
    expect(ctx.trust).toMatchObject({ trusted: false, changedFiles: ['.opencoderc.json (changed)'] });
    expect(ctx.config.permission).toEqual({});
    expect(ctx.trust.notice).toBe(
      `Project files changed since you trusted ${fixture.project}: .opencoderc.json (changed). ` +
        'Until you trust it again ("opencode-ink trust"), its files can only narrow what is allowed. Ignored meanwhile: allow rules (.opencoderc.json).',
    );
    expect(await runBash('touch pwned')).toMatch(/needs approval/);
    expect(existsSync(join(fixture.project, 'pwned'))).toBe(false);

    expect(trust()).toBe(true);
    const again = load();
    expect(again.trust).toMatchObject({ trusted: true, changedFiles: [] });
    expect(again.trust.notice).toBeUndefined();
    expect(again.config.permission).toEqual({ edit: 'ask', bash: 'allow' });
    await runBash('touch pwned');
    expect(existsSync(join(fixture.project, 'pwned'))).toBe(true);
  });

  it('does not load a UserPromptSubmit hook added to .claude/settings.json', () => {
    put(join(fixture.project, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['Bash(rm:*)'] } }));
    trust();
    expect(load().hooks.UserPromptSubmit ?? []).toEqual([]);
    put(
      join(fixture.project, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { deny: ['Bash(rm:*)'] }, hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'touch hooked' }] }] } }),
    );
    const ctx = load();
    expect(ctx.hooks.UserPromptSubmit ?? []).toEqual([]);
    expect(ctx.trust.notice).toContain('.claude/settings.json (changed)');
    expect(ctx.trust.ignored).toContain('hooks.UserPromptSubmit (.claude/settings.json)');
    trust();
    expect(load().hooks.UserPromptSubmit).toHaveLength(1);
  });

  it('narrows a new file in .claude/agents/ as an untrusted one', () => {
    put(join(fixture.project, '.claude', 'agents', 'reviewer.md'), '---\nname: reviewer\ndescription: reviews\n---\nReview.');
    trust();
    put(join(fixture.project, '.opencode', 'agents', 'deployer.md'), '---\ndescription: deploys\nmode: subagent\npermission:\n  bash: allow\n---\nDeploy.');
    put(join(fixture.project, '.claude', 'agents', 'helper.md'), '---\nname: helper\ndescription: helps\n---\nHelp.');
    const ctx = load();
    expect(ctx.trust.trusted).toBe(false);
    expect(ctx.trust.changedFiles).toEqual(['.claude/agents/helper.md (added)', '.opencode/agents/deployer.md (added)']);
    expect(ctx.agents.get('deployer')?.permission).toBeUndefined();
    expect(ctx.trust.ignored).toEqual(['allow rules of agent deployer (.opencode/agents/deployer.md)']);
    trust();
    expect(load().agents.get('deployer')?.permission).toEqual({ bash: 'allow' });
  });

  it('counts a removed CLAUDE.md as a change: the unchanged .opencoderc.json no longer applies either', () => {
    put(join(fixture.project, 'CLAUDE.md'), '# Rules\nNever push.\n');
    put(join(fixture.project, '.opencoderc.json'), JSON.stringify({ permission: { bash: 'allow' } }));
    trust();
    expect(load().config.permission).toEqual({ bash: 'allow' });
    rmSync(join(fixture.project, 'CLAUDE.md'));
    const ctx = load();
    expect(ctx.trust).toMatchObject({ trusted: false, changedFiles: ['CLAUDE.md (removed)'] });
    expect(ctx.config.permission).toEqual({});
    trust();
    expect(load().config.permission).toEqual({ bash: 'allow' });
  });

  it('is trusted again when the content goes back to what was pinned (content, not times, decides)', () => {
    put(join(fixture.project, 'AGENTS.md'), 'one');
    put(join(fixture.project, '.opencoderc.json'), JSON.stringify({ permission: { bash: 'allow' } }));
    trust();
    put(join(fixture.project, 'AGENTS.md'), 'two');
    expect(load().trust.changedFiles).toEqual(['AGENTS.md (changed)']);
    put(join(fixture.project, 'AGENTS.md'), 'one');
    expect(load().trust).toMatchObject({ trusted: true, changedFiles: [] });
  });

  it('follows a symlinked control file to what the loaders read', () => {
    const outside = put(join(fixture.dir, 'shared.json'), JSON.stringify({ permission: { edit: 'ask' } }));
    symlinkSync(outside, join(fixture.project, '.opencoderc.json'));
    trust();
    expect(load().trust.trusted).toBe(true);
    put(outside, JSON.stringify({ permission: { bash: 'allow' } }));
    const ctx = load();
    expect(ctx.trust.changedFiles).toEqual(['.opencoderc.json (changed)']);
    expect(ctx.config.permission).toEqual({});
  });

  it('counts control files of a subfolder the pins never covered as added, until trusted from there', () => {
    const sub = join(fixture.project, 'packages', 'app');
    put(join(fixture.project, '.opencoderc.json'), JSON.stringify({ permission: { edit: 'allow' } }));
    trust();
    put(join(sub, '.opencoderc.json'), JSON.stringify({ permission: { bash: 'allow' } }));
    expect(load().trust.trusted).toBe(true);
    const inSub = load(sub);
    expect(inSub.trust.changedFiles).toEqual(['packages/app/.opencoderc.json (added)']);
    expect(inSub.config.permission).toEqual({});
    trust(sub);
    expect(load(sub).config.permission).toEqual({ edit: 'allow', bash: 'allow' });
    expect(load().trust.trusted).toBe(true);
  });
});

describe('an unchanged trusted project', () => {
  it('behaves exactly as before: everything applies, no notice, no warning, trust.json not rewritten', () => {
    put(join(fixture.project, '.opencoderc.json'), JSON.stringify({ permission: { bash: 'allow' } }));
    put(join(fixture.project, '.claude', 'settings.json'), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'true' }] }] } }));
    put(join(fixture.project, '.opencode', 'skills', 'lint', 'SKILL.md'), '---\nname: lint\ndescription: lints\n---\nRun the linter.');
    put(join(fixture.project, 'AGENTS.md'), '# Rules');
    trust();
    const pinned = readFileSync(trustFilePath(fixture.env), 'utf8');
    const pinnedAt = statSync(trustFilePath(fixture.env)).mtimeMs;
    const ctx = load();
    const once = loadProject({ cwd: fixture.project, env: fixture.env, trustOnce: true });
    expect(ctx.trust).toMatchObject({ trusted: true, changed: [], changedFiles: [], ignored: [] });
    expect(ctx.trust.notice).toBeUndefined();
    expect(ctx.warnings).toEqual([]);
    expect(ctx.config).toEqual(once.config);
    expect(JSON.stringify(ctx.hooks)).toBe(JSON.stringify(once.hooks));
    expect(ctx.hooks.UserPromptSubmit).toHaveLength(1);
    expect([...ctx.agents.values()]).toEqual([...once.agents.values()]);
    expect(readFileSync(trustFilePath(fixture.env), 'utf8')).toBe(pinned);
    expect(statSync(trustFilePath(fixture.env)).mtimeMs).toBe(pinnedAt);
    expect(trust()).toBe(false);
  });
});

describe('the control files', () => {
  it('are all kept read-only by the sandbox: nothing trust pins can be written by a sandboxed command', () => {
    const pinned = [...FOLDER_CONTROL_PATHS, ...ROOT_CONTROL_PATHS];
    const readOnly = (path: string) => PROJECT_CONTROL_FILES.some((kept) => path === kept || path.startsWith(`${kept}/`));
    expect(pinned.filter((path) => !readOnly(path))).toEqual([]);
    // And every file the sandbox keeps read-only for a reason trust would care about is pinned
    // (all of .claude/ is read-only inside, as hooks run scripts kept there; only these parts are loaded).
    expect(PROJECT_CONTROL_FILES.filter((kept) => kept !== '.claude' && !pinned.includes(kept))).toEqual([]);
  });
});

describe('trust.json', () => {
  it('records version 2 with a sha256 per control file', () => {
    put(join(fixture.project, '.opencoderc.json'), '{}');
    put(join(fixture.project, '.claude', 'commands', 'go.md'), 'Go.');
    trust();
    const data = trustJson();
    expect(data.version).toBe(2);
    const files = data.projects[fixture.project]!.control_files!['.']!;
    expect(Object.keys(files).sort()).toEqual(['.claude/commands/go.md', '.opencoderc.json']);
    expect(files['.opencoderc.json']).toBe('sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });

  it('still reads version 1: a trusted entry is pinned on its next start, then held to it', () => {
    put(join(fixture.project, '.opencoderc.json'), JSON.stringify({ permission: { bash: 'allow' } }));
    put(trustFilePath(fixture.env), JSON.stringify({ version: 1, projects: { [fixture.project]: { trusted_at: '2026-01-02T03:04:05.000Z' } } }));
    const first = load();
    expect(first.trust).toMatchObject({ trusted: true, changedFiles: [] });
    expect(first.config.permission).toEqual({ bash: 'allow' });
    const data = trustJson();
    expect(data.version).toBe(2);
    expect(data.projects[fixture.project]).toMatchObject({ trusted_at: '2026-01-02T03:04:05.000Z' });
    expect(Object.keys(data.projects[fixture.project]!.control_files!['.']!)).toEqual(['.opencoderc.json']);

    put(join(fixture.project, '.opencoderc.json'), JSON.stringify({ permission: { bash: 'allow', edit: 'allow' } }));
    expect(load().trust).toMatchObject({ trusted: false, changedFiles: ['.opencoderc.json (changed)'] });
  });

  it('keeps the other projects and their pins when one is trusted again', () => {
    const other = join(fixture.dir, 'other');
    mkdirSync(join(other, '.git'), { recursive: true });
    put(join(other, 'CLAUDE.md'), 'x');
    trust(other);
    trust();
    put(join(fixture.project, 'AGENTS.md'), 'new');
    trust();
    expect(Object.keys(trustJson().projects).sort()).toEqual([other, fixture.project].sort());
    expect(trustJson().projects[other]!.control_files!['.']).toHaveProperty('CLAUDE.md');
    expect(load(other).trust.trusted).toBe(true);
    // Trust recorded without pins (an older program's setTrusted) is pinned on first use too.
    setTrusted(fixture.env, trustRoot(fixture.project), false);
    setTrusted(fixture.env, trustRoot(fixture.project), true);
    expect(load().trust.trusted).toBe(true);
  });
});

describe('the fingerprint at start is cheap and never hangs', () => {
  it('records a FIFO, a device link and a symlink loop by kind without opening them', () => {
    mkdirSync(join(fixture.project, '.opencode'), { recursive: true });
    execFileSync('mkfifo', [join(fixture.project, '.opencode', 'pipe')]);
    symlinkSync('/dev/zero', join(fixture.project, '.opencode', 'zero'));
    symlinkSync('..', join(fixture.project, '.opencode', 'loop'));
    symlinkSync(join(fixture.project, 'nowhere'), join(fixture.project, '.opencode', 'dangling'));
    trust();
    const files = trustJson().projects[fixture.project]!.control_files!['.']!;
    expect(files).toMatchObject({ '.opencode/pipe': 'special:fifo', '.opencode/zero': 'special:character-device', '.opencode/dangling': 'symlink:dangling' });
    expect(load().trust.trusted).toBe(true);
  });

  it('stops at 2000 entries in .opencode/: the folder is named as unverifiable, and start stays quick', () => {
    const big = join(fixture.project, '.opencode', 'data');
    mkdirSync(big, { recursive: true });
    for (let i = 0; i < 2100; i++) writeFileSync(join(big, `f${i}`), `${i}`);
    // OpenCode's plugin dependencies: never read by this program, not counted.
    for (let i = 0; i < 50; i++) put(join(fixture.project, '.opencode', 'node_modules', `m${i}`, 'index.js'), 'x');
    expect(trustCommand(undefined, { revoke: false }, fixture.project, fixture.env)).toBe(
      `Trusted ${fixture.project}: its .opencoderc.json, .opencode/ and .claude/ files now apply in full. ` +
        'Note: .opencode/data/ (too many files to verify: over 2000, or 16 folders deep); it counts as changed at every start until trimmed (or use run --trust).',
    );
    const started = performance.now();
    const ctx = load();
    expect(performance.now() - started).toBeLessThan(3000);
    expect(ctx.trust.trusted).toBe(false);
    expect(ctx.trust.changedFiles).toEqual(['.opencode/data/ (too many files to verify: over 2000, or 16 folders deep)']);
    rmSync(big, { recursive: true });
    put(join(fixture.project, '.opencode', 'node_modules', 'm0', 'index.js'), 'changed');
    trust();
    put(join(fixture.project, '.opencode', 'node_modules', 'm1', 'index.js'), 'changed');
    expect(load().trust.trusted).toBe(true);
  });

  it('notices a rewrite of a file too big to hash by its change time, without reading it', () => {
    const file = join(fixture.project, '.claude', 'skills', 'data', 'blob.bin');
    put(file, 'x'.repeat(2 * 1024 * 1024));
    trust();
    expect(trustJson().projects[fixture.project]!.control_files!['.']!['.claude/skills/data/blob.bin']).toMatch(/^stat:2097152:/);
    expect(load().trust.trusted).toBe(true);
    writeFileSync(file, 'y'.repeat(2 * 1024 * 1024));
    expect(load().trust.changedFiles).toEqual(['.claude/skills/data/blob.bin (changed)']);
  });
});
