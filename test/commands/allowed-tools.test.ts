// `allowed-tools` in a command file (`.claude/commands/*.md`, issue 39): as in Claude Code, the
// listed tools run unasked while that command's prompt runs — its `!`cmd`` lines and its turn,
// or the sub-agent of a subtask command — and never afterwards, never past deny rules or the
// control-file guard, each such run recorded naming `/<command>`; an untrusted project's
// command files grant nothing. Every other front-matter key is applied or named in a warning.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventOf } from '../../src/core/events.js';
import { Engine } from '../../src/core/engine.js';
import { loadCommands } from '../../src/core/commands/index.js';
import { loadProject } from '../../src/core/project-context.js';
import { createProvider } from '../../src/core/provider/index.js';
import { scriptConversations, toolUse } from '../support/conversations.js';
import { reply, text, toolResults, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { makeProjectFolder, openProjectFixture, put } from '../support/project-fixture.js';

let h: Harness | undefined;
afterEach(async () => {
  h?.engine.cancelAll();
  await h?.engine.close();
  await h?.close();
  h = undefined;
});

const bash = (command: string) => toolUse('bash', { command });
const write = (file_path: string, content = 'new\n') => toolUse('write', { file_path, content });
const results = (req: RecordedRequest) => toolResults(req).map((r) => ({ text: String(r.content), isError: r.is_error === true }));
const autos = (harness: Harness) => harness.events.filter((e): e is EventOf<'permission.auto'> => e.type === 'permission.auto');
const commandFile = (name: string, frontMatter: string, body: string) => ({ [`.claude/commands/${name}.md`]: `---\n${frontMatter}---\n${body}\n` });

describe('allowed-tools of a command file', () => {
  it('lets exactly the listed commands run unasked while its prompt runs, its !`cmd` lines included, and not after', async () => {
    h = await startHarness({
      files: commandFile('make', 'description: Makes things.\nallowed-tools: Bash(touch inlined:*), Bash(touch made:*)\n', 'Inline: !`touch inlined` Now make $ARGUMENTS.'),
    });
    const script = [
      reply(bash('touch made'), bash('touch other'), bash('touch made; touch sneaky')),
      text('done'),
      reply(bash('touch made again')),
      text('after'),
    ];
    h.server.setHandler(() => script.shift() ?? text('unscripted'));
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, '/make things')).status).toBe('completed');
    expect(existsSync(join(h.projectDir, 'inlined'))).toBe(true);
    const [made, other, chained] = results(h.server.requests[1]!);
    expect(made!.isError).toBe(false);
    expect(other!.isError).toBe(true);
    expect(chained!.isError).toBe(true);
    expect(existsSync(join(h.projectDir, 'made'))).toBe(true);
    for (const file of ['other', 'sneaky']) expect(existsSync(join(h.projectDir, file))).toBe(false);

    // The next prompt is not the command's: the same command asks again (refused here).
    await h.engine.prompt(root.id, 'again');
    expect(results(h.server.requests[3]!)[0]!.isError).toBe(true);
    expect(existsSync(join(h.projectDir, 'made again'))).toBe(false);
    expect(autos(h).map((a) => [a.skill, a.tool])).toEqual([['/make', 'bash'], ['/make', 'bash']]);
    expect(h.store.autoApprovals(root.id).map((a) => [a.skill, a.subject])).toEqual([['/make', 'touch inlined'], ['/make', 'touch made']]);
    // Not a fact of the session: a restart does not bring it back.
    expect(h.store.sessionSkills(root.id)).toEqual([]);
  });

  it('never beats a deny rule, the control-file guard or plan mode', async () => {
    h = await startHarness({
      config: { permission: { bash: { 'touch denied*': 'deny' } } },
      files: commandFile('loose', 'allowed-tools: Bash, Write\n', 'Loosely.'),
    });
    const script = [reply(bash('touch denied'), write('src/a.ts'), write('.claude/settings.json', '{}')), text('done')];
    h.server.setHandler(() => script.shift() ?? text('unscripted'));
    await h.engine.prompt(h.engine.createSession().id, '/loose');
    const [denied, wrote, control] = results(h.server.requests[1]!);
    expect(denied).toMatchObject({ isError: true, text: expect.stringMatching(/denied by the configured rules/) });
    expect(wrote!.isError).toBe(false);
    expect(control!.isError).toBe(true);
    expect(readFileSync(join(h.projectDir, 'src/a.ts'), 'utf8')).toBe('new\n');
    expect(existsSync(join(h.projectDir, '.claude/settings.json'))).toBe(false);

    // Plan mode keeps its asks and refusals.
    await h.engine.close();
    h.engine = h.newEngine({ permissionMode: 'plan' });
    const planned = [reply(bash('touch planned'), write('src/b.ts')), text('done')];
    h.server.setHandler(() => planned.shift() ?? text('unscripted'));
    await h.engine.prompt(h.engine.createSession().id, '/loose');
    const [cmd, edit] = results(h.server.requests.at(-1)!);
    expect(cmd!.isError).toBe(true);
    expect(edit).toMatchObject({ isError: true, text: expect.stringMatching(/^Plan mode is read-only/) });
    expect(existsSync(join(h.projectDir, 'planned'))).toBe(false);
    expect(existsSync(join(h.projectDir, 'src/b.ts'))).toBe(false);
  });

  it('applies when the command names another primary agent, which runs its turn', async () => {
    h = await startHarness({
      config: { agent: { helper: { mode: 'primary', description: 'Helps.', prompt: 'You help.' } } },
      files: commandFile('assist', 'agent: helper\nallowed-tools: Bash(touch assisted:*)\n', 'Assist.'),
    });
    const script = [reply(bash('touch assisted')), text('done')];
    h.server.setHandler(() => script.shift() ?? text('unscripted'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '/assist');
    expect(h.server.requests[0]!.body.system).toEqual(expect.arrayContaining([expect.objectContaining({ text: expect.stringContaining('You help.') })]));
    expect(existsSync(join(h.projectDir, 'assisted'))).toBe(true);
    expect(autos(h).map((a) => [a.skill, a.session_id])).toEqual([['/assist', root.id]]);
  });

  it('applies in the sub-agent of a subtask command, not in the session that started it', async () => {
    h = await startHarness({ files: commandFile('delegate', 'subtask: true\nallowed-tools: Bash(touch:*)\n', 'Delegated work.') });
    scriptConversations(h.server, {
      '/delegate': [reply(bash('touch by-parent')), text('parent done')],
      'Delegated work.': [reply(bash('touch by-child')), text('child done')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '/delegate');
    expect(existsSync(join(h.projectDir, 'by-child'))).toBe(true);
    expect(existsSync(join(h.projectDir, 'by-parent'))).toBe(false);
    const child = h.store.tree(root.id).children[0]!.session;
    expect(autos(h).map((a) => [a.skill, a.session_id])).toEqual([['/delegate', child.id]]);
  });
});

describe('command file fields', () => {
  it('reads allowed-tools, names entries it cannot apply and every key it does not know', () => {
    const folder = makeProjectFolder('oci-command-fields-');
    try {
      const file = put(
        join(folder.project, '.claude', 'commands', 'review.md'),
        '---\nallowed-tools: Bash(git diff:*), Read, Teleport, NotebookEdit\nargument-hint: <file>\ndescription: Review.\nmodel: haiku\ndisable-model-invocation: true\nwhen_to_use: often\n---\nReview $1.\n',
      );
      put(join(folder.project, '.claude', 'commands', 'open.md'), '---\ndisable-model-invocation: false\n---\nOpen.\n');
      const { commands, warnings } = loadCommands({ configDir: join(folder.dir, 'config'), cwd: folder.project });
      expect(commands.get('review')).toMatchObject({
        allowedTools: ['Bash(git diff:*)', 'Read', 'Teleport', 'NotebookEdit'],
        grants: [{ permission: 'bash', patterns: ['git diff', 'git diff *'] }, { permission: 'read', patterns: ['*'] }],
        argumentHint: '<file>',
        model: 'haiku',
      });
      expect(warnings.filter((w) => w.source === file).map((w) => w.message)).toEqual([
        expect.stringMatching(/^"allowed-tools": "NotebookEdit" is a Claude Code tool with no counterpart here/),
        expect.stringMatching(/^"allowed-tools": "Teleport" names no tool/),
        expect.stringMatching(/^ignoring unknown field "when_to_use" \(a command file may set description, agent, model, subtask, argument-hint, allowed-tools, disable-model-invocation\)\.$/),
      ]);
      expect(warnings.filter((w) => w.source !== file).map((w) => w.message)).toEqual([expect.stringMatching(/^"disable-model-invocation: false" is not applied/)]);
    } finally {
      void folder.close();
    }
  });

  it('grants nothing from an untrusted project\'s command file, and the trust notice says so', async () => {
    const fixture = await openProjectFixture('oci-command-trust-');
    try {
      put(join(fixture.project, '.claude', 'commands', 'pwn.md'), '---\nallowed-tools: Bash\n---\nDo as you like.\n');
      const untrusted = loadProject({ cwd: fixture.project, env: fixture.env });
      expect(untrusted.commands.get('pwn')!.grants).toBeUndefined();
      expect(untrusted.trust.notice).toMatch(/allowed-tools of \/pwn \(.*\.claude\/commands\/pwn\.md\)/);
      const provider = createProvider('anthropic', { apiKey: 'test-key', baseURL: fixture.server.url, maxRetries: 0 });
      const engine = new Engine({ cwd: fixture.project, config: untrusted.config, store: fixture.store, agents: untrusted.agents, commands: untrusted.commands, interactive: false, providerFor: () => provider });
      fixture.server.enqueue(reply(bash('touch pwned')), text('done'));
      await engine.prompt(engine.createSession().id, '/pwn');
      expect(existsSync(join(fixture.project, 'pwned'))).toBe(false);
      await engine.close();
      expect(loadProject({ cwd: fixture.project, env: fixture.env, trustOnce: true }).commands.get('pwn')!.grants).toEqual([{ permission: 'bash', patterns: ['*'] }]);
    } finally {
      await fixture.close();
    }
  });
});
