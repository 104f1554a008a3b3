// Bash permission rules through the real engine, tools and Anthropic SDK against the fake
// server: bypass spellings under `run`-like settings (nobody to approve), a depth-2 child
// under an ancestor's deny, "always allow" remembering exactly the pattern it showed, and
// credentials kept out of the command's environment.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { reply, text, toolResults, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../support/harness.js';
import type { EventOf } from '../../src/core/events.js';

let h: Harness | undefined;
afterEach(async () => {
  h?.engine.cancelAll();
  await h?.close();
  h = undefined;
});

let seq = 0;
const bash = (command: string) => ({ type: 'tool_use' as const, name: 'bash', input: { command }, id: `toolu_pb_${++seq}` });
const spawn = (prompt: string, subagent_type: string) => ({
  type: 'tool_use' as const,
  name: 'task',
  input: { description: 'nested', prompt, subagent_type },
  id: `toolu_pb_${++seq}`,
});
const results = (req: RecordedRequest) => toolResults(req).map((r) => ({ text: String(r.content), isError: r.is_error === true }));

describe('bash rules in a non-interactive run', () => {
  it('runs what "git status*" allows and refuses the spellings that smuggle other commands', async () => {
    h = await startHarness({ config: { permission: { bash: { '*': 'ask', 'git status*': 'allow', 'echo ok*': 'allow' } } } });
    const smuggled = [
      'git status; touch a1',
      'git status && touch a2',
      'git status $(touch a3)',
      'git status `touch a4`',
      'git status > a5',
      'git status & touch a6',
      'echo ok; eval "touch a7"',
      'echo ok && bash -c "touch a8"',
      'FOO=$(touch a9) git status',
    ];
    scriptConversations(h.server, { 'try them': [reply(bash('echo ok-ran'), ...smuggled.map(bash)), text('done')] });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'try them')).status).toBe('completed');
    const [allowed, ...refused] = results(requestsOf(h.server, 'try them')[1]!);
    expect(allowed).toEqual({ text: 'ok-ran', isError: false });
    expect(refused).toHaveLength(smuggled.length);
    for (const r of refused) {
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/nobody can approve/);
    }
    for (let i = 1; i <= 9; i++) expect(existsSync(join(h.projectDir, `a${i}`))).toBe(false);
  });

  it('denies a depth-2 child what an ancestor denies, however it spells rm, though its own rules allow all', async () => {
    h = await startHarness({
      config: {
        subagents: { max_depth: 2 },
        permission: { bash: { '*': 'allow', 'rm *': 'deny' } },
        agent: { loose: { mode: 'subagent', description: 'Runs anything.', prompt: 'Run what you are told.', permission: { bash: 'allow' } } },
      },
    });
    writeFileSync(join(h.projectDir, 'victim.txt'), 'keep me');
    const attempts = ['env rm victim.txt', 'sh -c "rm victim.txt"', '\\rm victim.txt', "r''m victim.txt", 'echo victim.txt | xargs rm'];
    scriptConversations(h.server, {
      'root spawns': [reply(spawn('mid spawns', 'loose')), text('root done')],
      'mid spawns': [reply(spawn('leaf tries', 'loose')), text('mid done')],
      'leaf tries': [reply(bash('touch made.txt'), ...attempts.map(bash)), text('leaf done')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'root spawns')).status).toBe('completed');
    const [made, ...denied] = results(requestsOf(h.server, 'leaf tries')[1]!);
    expect(made!.isError).toBe(false);
    expect(existsSync(join(h.projectDir, 'made.txt'))).toBe(true);
    expect(denied).toHaveLength(attempts.length);
    for (const r of denied) expect(r).toMatchObject({ isError: true, text: expect.stringMatching(/denied by the configured rules: bash `rm( victim.txt)?` is not allowed/) });
    expect(existsSync(join(h.projectDir, 'victim.txt'))).toBe(true);
  });
});

describe('"always allow"', () => {
  it('announces the exact pattern, stores it, and matches it per simple command', async () => {
    h = await startHarness({ engine: { interactive: true } });
    scriptConversations(h.server, {
      always: [reply(bash('echo first-run')), reply(bash('echo again --twice')), reply(bash('echo third; touch sneaky.txt')), text('done')],
    });
    const root = h.engine.createSession();
    const running = h.engine.prompt(root.id, 'always');
    const first = (await waitForEvent(h.engine, (e) => e.type === 'permission.asked')) as EventOf<'permission.asked'>;
    expect(first.always).toEqual(['echo first-run*']);
    h.engine.replyPermission(first.request_id, 'always');
    const second = (await waitForEvent(h.engine, (e) => e.type === 'permission.asked')) as EventOf<'permission.asked'>;
    // `echo again --twice` is not covered by `echo first-run*`; the third call is the next ask.
    expect(second.subject).toBe('echo again --twice');
    expect(second.always).toEqual(['echo again*']);
    h.engine.replyPermission(second.request_id, 'always');
    const third = (await waitForEvent(h.engine, (e) => e.type === 'permission.asked')) as EventOf<'permission.asked'>;
    expect(third.subject).toBe('echo third; touch sneaky.txt');
    expect(third.always).toEqual(['echo third*', 'touch*']);
    h.engine.replyPermission(third.request_id, 'reject');
    expect((await running).status).toBe('completed');
    expect(existsSync(join(h.projectDir, 'sneaky.txt'))).toBe(false);
  });

  it('does not ask again for a command its grant covers, but does once another command rides along', async () => {
    h = await startHarness({ engine: { interactive: true } });
    scriptConversations(h.server, {
      grant: [reply(bash('git status --short')), reply(bash('git status')), reply(bash('git status; touch x.txt')), text('done')],
    });
    const root = h.engine.createSession();
    const running = h.engine.prompt(root.id, 'grant');
    const first = (await waitForEvent(h.engine, (e) => e.type === 'permission.asked')) as EventOf<'permission.asked'>;
    expect(first.always).toEqual(['git status*']);
    h.engine.replyPermission(first.request_id, 'always');
    const next = (await waitForEvent(h.engine, (e) => e.type === 'permission.asked')) as EventOf<'permission.asked'>;
    expect(next.subject).toBe('git status; touch x.txt');
    h.engine.replyPermission(next.request_id, 'reject');
    expect((await running).status).toBe('completed');
    expect(h.events.filter((e) => e.type === 'permission.asked')).toHaveLength(2);
    expect(existsSync(join(h.projectDir, 'x.txt'))).toBe(false);
  });
});

describe('"always allow" while other requests wait', () => {
  it('settles only the pending requests its patterns cover command by command', async () => {
    h = await startHarness({ engine: { interactive: true } });
    scriptConversations(h.server, {
      'two children': [reply(spawn('child covered', 'general'), spawn('child smuggling', 'general'), spawn('child plain', 'general')), text('root done')],
      'child covered': [reply(bash('git status --short')), text('covered done')],
      'child smuggling': [reply(bash('git status; touch smuggled.txt')), text('smuggling done')],
      'child plain': [reply(bash('git status')), text('plain done')],
    });
    let asked = 0;
    const threeAsked = waitForEvent(h.engine, (e) => e.type === 'permission.asked' && ++asked === 3, 10_000);
    const root = h.engine.createSession();
    const running = h.engine.prompt(root.id, 'two children');
    await threeAsked;
    const pending = h.engine.pendingPermissions();
    expect(pending).toHaveLength(3);
    const covered = pending.find((p) => p.question.subject === 'git status --short')!;
    h.engine.replyPermission(covered.id, 'always');
    // `git status` is settled by the grant; the line smuggling `touch` still waits.
    expect(h.engine.pendingPermissions().map((p) => p.question.subject)).toEqual(['git status; touch smuggled.txt']);
    h.engine.replyPermission(h.engine.pendingPermissions()[0]!.id, 'reject');
    expect((await running).status).toBe('completed');
    expect(existsSync(join(h.projectDir, 'smuggled.txt'))).toBe(false);
  });
});

describe('the command environment', () => {
  it('holds no API key: neither the well-known variables nor any variable equal to a configured key', async () => {
    const saved = { ...process.env };
    process.env.ANTHROPIC_API_KEY = 'sk-ant-from-env-1111';
    process.env.ANTHROPIC_AUTH_TOKEN = 'auth-token-2222';
    process.env.OPENAI_API_KEY = 'sk-openai-3333';
    process.env.MY_RENAMED_KEY = 'sk-configured-4444';
    process.env.HARMLESS_MARKER = 'visible-5555';
    try {
      h = await startHarness({ config: { permission: { bash: 'allow' }, provider: { anthropic: { apiKey: 'sk-configured-4444' } } } });
      scriptConversations(h.server, { 'show env': [reply(bash('env')), text('done')] });
      const root = h.engine.createSession();
      await h.engine.prompt(root.id, 'show env');
      const [shown] = results(requestsOf(h.server, 'show env')[1]!);
      expect(shown!.text).toContain('HARMLESS_MARKER=visible-5555');
      for (const secret of ['sk-ant-from-env-1111', 'auth-token-2222', 'sk-openai-3333', 'sk-configured-4444', 'ANTHROPIC_API_KEY']) {
        expect(shown!.text).not.toContain(secret);
      }
    } finally {
      process.env = saved;
    }
  });
});
