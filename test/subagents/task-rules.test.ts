// `permission.task` per sub-agent type and `task.tools` globs, through the real engine and the
// fake Messages API: deny is an error result naming the type, ask goes the approval route
// labelled with the asking session, a user-started subtask is not asked, and a `task.tools`
// that leaves nothing is refused before any child exists.
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreEvent } from '../../src/core/events.js';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { reply, text, toolNames, toolResults, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

let seq = 0;
function spawn(description: string, prompt: string, subagent_type: string, extra: Record<string, unknown> = {}) {
  return { type: 'tool_use' as const, name: 'task', id: `toolu_rules_${++seq}`, input: { description, prompt, subagent_type, ...extra } };
}
const results = (req: RecordedRequest) => toolResults(req).map((r) => ({ text: String(r.content), error: r.is_error === true }));

describe('permission.task per sub-agent type', () => {
  it('denies one type with an error the model can read and runs the others', async () => {
    h = await startHarness({ config: { permission: { task: { '*': 'allow', general: 'deny' } } } });
    scriptConversations(h.server, {
      'split the work': [reply(spawn('gen', 'general work', 'general'), spawn('exp', 'explore work', 'explore')), text('done')],
      'explore work': [text('explored')],
      'general work': [text('must not run')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'split the work')).status).toBe('completed');
    const [gen, exp] = results(requestsOf(h.server, 'split the work')[1]!);
    expect(gen!.error).toBe(true);
    expect(gen!.text).toMatch(/Sub-agent type "general" is denied by the permission rules \(permission\.task\)/);
    expect(gen!.text).toContain('use one of: explore');
    // The model is offered only what it may start.
    const task = (requestsOf(h.server, 'split the work')[0]!.body.tools as Array<{ name: string; description: string; input_schema: unknown }>).find(
      (t) => t.name === 'task',
    )!;
    expect(JSON.stringify(task.input_schema)).toContain('"enum":["explore"');
    expect(task.description).not.toMatch(/^- general:/m);
    expect(task.description).toMatch(/^- explore:/m);
    expect(exp!.text).toContain('explored');
    expect(requestsOf(h.server, 'general work')).toHaveLength(0);
    expect(h.store.children(root.id).map((c) => c.agent)).toEqual(['explore']);
    expect(h.events.some((e) => e.type === 'permission.asked')).toBe(false);
  });

  it('"task": "ask" is refused in a run without --yes, naming why, and starts nothing', async () => {
    h = await startHarness({ config: { permission: { task: 'ask' } } });
    scriptConversations(h.server, {
      'delegate': [reply(spawn('look around', 'ask me first', 'explore')), text('gave up')],
      'ask me first': [text('must not run')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'delegate');
    const [res] = results(requestsOf(h.server, 'delegate')[1]!);
    expect(res!.error).toBe(true);
    expect(res!.text).toMatch(/task \(explore: look around\) needs approval.*--yes/);
    expect(h.store.children(root.id)).toHaveLength(0);
    const asked = h.events.find((e) => e.type === 'permission.asked');
    expect(asked).toMatchObject({ tool: 'task', permission: 'task', patterns: ['explore'], subject: 'explore: look around' });
  });

  it('"task": "ask" is approved with --yes', async () => {
    h = await startHarness({ config: { permission: { task: 'ask' } } });
    scriptConversations(h.server, {
      'delegate yes': [reply(spawn('look around', 'approved work', 'explore')), text('ok')],
      'approved work': [text('ran')],
    });
    const engine = h.newEngine({ autoApprove: true });
    const root = engine.createSession();
    await engine.prompt(root.id, 'delegate yes');
    expect(results(requestsOf(h.server, 'delegate yes')[1]!)[0]!.text).toContain('ran');
  });

  it('asks the user labelled with the asking child\'s path, and a deny from an ancestor holds at depth 2', async () => {
    h = await startHarness({
      config: {
        subagents: { max_depth: 2 },
        agent: { build: { permission: { task: { '*': 'allow', explore: 'deny' } } } },
      },
      files: {
        '.opencode/agents/lead.md': '---\ndescription: Leads\nmode: subagent\npermission:\n  task:\n    "*": ask\n    explore: allow\n---\nYou lead.\n',
      },
    });
    scriptConversations(h.server, {
      'top': [reply(spawn('lead it', 'lead prompt', 'lead')), text('top done')],
      'lead prompt': [reply(spawn('dig', 'explore prompt', 'explore'), spawn('write', 'general prompt', 'general')), text('lead done')],
      'general prompt': [text('general ran')],
      'explore prompt': [text('must not run')],
    });
    const engine = h.newEngine({ interactive: true });
    const root = engine.createSession();
    const running = engine.prompt(root.id, 'top');
    const asked = (await waitForEvent(engine, (e) => e.type === 'permission.asked')) as Extract<CoreEvent, { type: 'permission.asked' }>;
    // Asked by the lead (depth 1) about starting "general"; its own `explore: allow` cannot beat build's deny.
    expect(asked.path).toHaveLength(2);
    expect(asked.path[0]).toBe(root.id);
    expect(asked).toMatchObject({ agent: 'lead', tool: 'task', subject: 'general: write' });
    engine.replyPermission(asked.request_id, 'once');
    expect((await running).status).toBe('completed');
    const [explore, general] = results(requestsOf(h.server, 'lead prompt')[1]!);
    expect(explore!.text).toMatch(/"explore" is denied/);
    expect(general!.text).toContain('general ran');
    expect(requestsOf(h.server, 'explore prompt')).toHaveLength(0);
  });

  it('a subtask the user starts is not asked, but deny still applies', async () => {
    h = await startHarness({ config: { permission: { task: { '*': 'ask', general: 'deny' } } } });
    scriptConversations(h.server, {
      'find the routes': [text('Routes: /a')],
      '@explore find the routes': [text('Two routes.'), text('It was denied.')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '@explore find the routes');
    expect(h.store.children(root.id).map((c) => c.agent)).toEqual(['explore']);
    expect(h.events.some((e) => e.type === 'permission.asked')).toBe(false);

    expect((await h.engine.prompt(root.id, '@general do it')).text).toBe('It was denied.');
    const [denied] = results(requestsOf(h.server, '@explore find the routes').at(-1)!).slice(-1);
    expect(denied!.error).toBe(true);
    expect(denied!.text).toMatch(/"general" is denied/);
    expect(h.store.children(root.id).map((c) => c.agent)).toEqual(['explore']);
  });
});

describe('task.tools and agent allowlists with globs', () => {
  it('narrows with globs and refuses a list that leaves nothing, naming what is available', async () => {
    h = await startHarness();
    scriptConversations(h.server, {
      'narrow it': [
        reply(
          spawn('globbed', 'glob prompt', 'explore', { tools: ['gl*', 'Grep'] }),
          spawn('nothing', 'empty prompt', 'explore', { tools: ['write', 'nosuch'] }),
          spawn('rule', 'rule prompt', 'explore', { tools: ['Bash(git log:*)'] }),
        ),
        text('ok'),
      ],
      'glob prompt': [text('globbed ok')],
      'empty prompt': [text('must not run')],
      'rule prompt': [text('must not run')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'narrow it');
    expect(toolNames(requestsOf(h.server, 'glob prompt')[0]!).sort()).toEqual(['ask_user', 'glob', 'grep']);
    const [, empty, rule] = results(requestsOf(h.server, 'narrow it')[1]!);
    expect(empty!.error).toBe(true);
    expect(empty!.text).toMatch(/None of the tools "write", "nosuch" \(task\.tools\) are available to sub-agent "explore".*available: read, list, glob, grep, bash, bash_output, kill_shell\./);
    expect(rule!.text).toMatch(/task\.tools takes tool names or globs/);
    expect(requestsOf(h.server, 'empty prompt')).toHaveLength(0);
    expect(h.store.children(root.id)).toHaveLength(1);
  });

  it('Bash(git log:*) in an agent file gives bash for git log only; other commands are denied', async () => {
    h = await startHarness({
      files: {
        '.claude/agents/historian.md': '---\nname: historian\ndescription: Reads history\ntools: Read, G*, Bash(echo hist:*)\n---\nYou read history.\n',
      },
    });
    scriptConversations(h.server, {
      'history please': [reply(spawn('hist', 'historian prompt', 'historian')), text('ok')],
      'historian prompt': [
        reply(
          { type: 'tool_use', name: 'bash', input: { command: 'echo hist ok' }, id: 'toolu_h1' },
          { type: 'tool_use', name: 'bash', input: { command: 'echo other' }, id: 'toolu_h2' },
        ),
        text('historian done'),
      ],
    });
    // --yes would approve any ask: the rule must deny, not ask.
    const engine = h.newEngine({ autoApprove: true });
    const root = engine.createSession();
    await engine.prompt(root.id, 'history please');
    expect(toolNames(requestsOf(h.server, 'historian prompt')[0]!).sort()).toEqual(['ask_user', 'bash', 'bash_output', 'glob', 'grep', 'kill_shell', 'read']);
    const [allowed, other] = results(requestsOf(h.server, 'historian prompt')[1]!);
    expect(allowed!.text).toContain('hist ok');
    expect(other!.error).toBe(true);
    expect(other!.text).toMatch(/denied by the configured rules/);
  });
});
