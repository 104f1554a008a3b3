// Custom commands and @mentions through the engine and the fake Messages API: a subtask
// runs its child first, with no parent model call before it.
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, RunError } from '../../src/core/errors.js';
import { firstUserText, requestsOf, scriptConversations } from '../support/conversations.js';
import { systemText, text, toolResults } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const FILES = {
  '.opencode/command/review.md': '---\ndescription: Review a file\nagent: explore\n---\nReview $1 for bugs. Notes: $2\n',
  '.opencode/command/fix.md': '---\ndescription: Fix something\nmodel: anthropic/claude-haiku-4-5\n---\nFix this: $ARGUMENTS\n',
  '.opencode/command/status.md': '---\ndescription: Show status\n---\nState: !`echo hello-from-shell`\n',
  '.opencode/command/look.md': '---\ndescription: Look at a file\n---\nLook at @src/a.ts and $ARGUMENTS\n',
  '.opencode/agents/reviewer.md': '---\ndescription: Reviews code\n---\nYou are the reviewer agent.\n',
  'src/a.ts': 'export const a = 1;\n',
  'src/b.ts': 'export const b = 2;\n',
};

const PLAN_PROMPT = 'opencode-ink in plan mode';
const EXPLORE_PROMPT = 'read-only code exploration sub-agent';

describe('subtask commands and @mentions', () => {
  it('runs a subtask command in a child first, records it as a task call, then lets the parent continue', async () => {
    h = await startHarness({ files: FILES });
    const rendered = 'Review src/a.ts for bugs. Notes: be strict';
    scriptConversations(h.server, {
      [rendered]: [text('No bugs found.')],
      '/review src/a.ts be strict': [text('The reviewer found no bugs.')],
    });
    const root = h.engine.createSession();
    const outcome = await h.engine.prompt(root.id, '/review src/a.ts be strict');
    expect(outcome).toMatchObject({ status: 'completed', text: 'The reviewer found no bugs.' });
    // The child's request is the first one: no parent model call precedes it.
    expect(h.server.requests.map(firstUserText)).toEqual([rendered, '/review src/a.ts be strict']);
    expect(systemText(h.server.requests[0]!)).toContain(EXPLORE_PROMPT);
    const [result] = toolResults(requestsOf(h.server, '/review src/a.ts be strict')[0]!);
    expect(String(result!.content)).toMatch(/<task id="ses_\w+" state="completed"><task_result>No bugs found\.<\/task_result><tool_log>\n\(no tool calls\)\n<\/tool_log><\/task>/);
    const [child] = h.store.children(root.id);
    expect(child).toMatchObject({ agent: 'explore', task_description: 'Review a file', parent_id: root.id });
    const call = h.store.loadMessages(root.id)[1]!.content[0]!;
    expect(call).toMatchObject({ type: 'tool_use', name: 'task', input: { command: 'review', subagent_type: 'explore', prompt: rendered } });
    expect(child!.tool_call_id).toBe((call as { id: string }).id);
    // The task call is announced like one the model made, so the UI draws its block.
    const started = h.events.find((e) => e.type === 'tool.started' && e.session_id === root.id);
    expect(started).toMatchObject({ tool: 'task', input: { command: 'review' } });
  });

  it('runs @subagent text as a task without a parent call first', async () => {
    h = await startHarness({ files: FILES });
    scriptConversations(h.server, {
      'find the routes': [text('Routes: /a, /b')],
      '@explore find the routes': [text('Two routes.')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '@explore find the routes');
    expect(h.server.requests.map(firstUserText)).toEqual(['find the routes', '@explore find the routes']);
    expect(h.store.children(root.id)[0]).toMatchObject({ agent: 'explore', task_description: 'find the routes' });
  });

  it('attaches files an @mention prompt names to the child prompt', async () => {
    h = await startHarness({ files: FILES });
    h.server.enqueue(text('b is 2'), text('ok'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '@explore what is in @src/b.ts?');
    const childPrompt = firstUserText(h.server.requests[0]!);
    expect(childPrompt).toMatch(/^what is in @src\/b\.ts\?\n\n<file path="src\/b\.ts">\n.*export const b = 2;\n<\/file>$/s);
  });

  it('runs a subtask with the command model', async () => {
    h = await startHarness({ files: { ...FILES, '.opencode/command/quick.md': '---\nagent: explore\nmodel: haiku\n---\nQuick look: $ARGUMENTS\n' } });
    h.server.enqueue(text('looked'), text('done'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '/quick at a');
    expect(h.server.requests[0]!.body.model).toMatch(/^claude-haiku/);
    expect(h.server.requests[1]!.body.model).toBe(h.store.getSession(root.id)!.model.replace('anthropic/', ''));
  });
});

describe('the subtask matrix on the fake server', () => {
  // [agent, subtask] → runs in a child? and which agent answers.
  const matrix: Array<{ agent?: string; subtask?: boolean; child: boolean; runs: string }> = [
    { agent: 'explore', child: true, runs: EXPLORE_PROMPT },
    { agent: 'explore', subtask: true, child: true, runs: EXPLORE_PROMPT },
    { agent: 'explore', subtask: false, child: false, runs: EXPLORE_PROMPT },
    { agent: 'plan', child: false, runs: PLAN_PROMPT },
    { agent: 'plan', subtask: true, child: true, runs: PLAN_PROMPT },
    { agent: 'plan', subtask: false, child: false, runs: PLAN_PROMPT },
    { agent: 'reviewer', child: false, runs: 'You are the reviewer agent.' },
    { agent: 'reviewer', subtask: true, child: true, runs: 'You are the reviewer agent.' },
    { subtask: true, child: true, runs: 'How you work' },
    { child: false, runs: 'How you work' },
  ];
  it.each(matrix)('agent $agent, subtask $subtask → child: $child', async ({ agent, subtask, child, runs }) => {
    const front = [agent ? `agent: ${agent}` : '', subtask === undefined ? '' : `subtask: ${subtask}`].filter(Boolean).join('\n');
    h = await startHarness({ files: { ...FILES, '.opencode/command/go.md': `---\ndescription: Go\n${front}\n---\nDo the thing: $ARGUMENTS\n` } });
    h.server.enqueue(text('first'), text('second'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '/go now');
    const first = h.server.requests[0]!;
    expect(firstUserText(first)).toBe('Do the thing: now');
    expect(systemText(first)).toContain(runs);
    const children = h.store.children(root.id);
    if (child) {
      expect(children).toHaveLength(1);
      expect(children[0]!.agent).toBe(agent ?? 'build');
      // The parent continues after the child, from the task result.
      expect(h.server.requests).toHaveLength(2);
      expect(firstUserText(h.server.requests[1]!)).toBe('/go now');
      expect(String(toolResults(h.server.requests[1]!)[0]!.content)).toContain('<task_result>first</task_result>');
    } else {
      expect(children).toHaveLength(0);
      expect(h.server.requests).toHaveLength(1);
      // The session keeps its own agent after a command ran one turn with another.
      expect(h.store.getSession(root.id)!.agent).toBe('build');
    }
  });
});

describe('plain commands', () => {
  it('sends a plain command as the user message, with its own model', async () => {
    h = await startHarness({ files: FILES });
    h.server.enqueue(text('fixed'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '/fix the flaky test');
    expect(h.server.requests).toHaveLength(1);
    expect(h.server.requests[0]!.body.model).toBe('claude-haiku-4-5');
    expect(firstUserText(h.server.requests[0]!)).toBe('Fix this: the flaky test');
  });

  it('uses a command from the config key', async () => {
    h = await startHarness({ files: FILES, config: { command: { hi: { template: 'Say hi to $1', description: 'greet' } } } });
    h.server.enqueue(text('hi'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '/hi Ada Lovelace');
    expect(firstUserText(h.server.requests[0]!)).toBe('Say hi to Ada Lovelace');
  });

  it('inlines @path from the template', async () => {
    h = await startHarness({ files: FILES });
    h.server.enqueue(text('seen'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '/look the tests');
    const sent = firstUserText(h.server.requests[0]!);
    expect(sent).toMatch(/^Look at @src\/a\.ts and the tests\n\n<file path="src\/a\.ts">\n\s*1\texport const a = 1;\n<\/file>$/);
  });

  it('refuses !`cmd` when bash may not run, before any model call', async () => {
    h = await startHarness({ files: FILES });
    const root = h.engine.createSession();
    const err = await h.engine.prompt(root.id, '/status').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect((err as Error).message).toMatch(/^\/status: cannot run !`echo hello-from-shell`: .*bash/);
    expect(h.server.requests).toHaveLength(0);
    expect(h.store.loadMessages(root.id)).toHaveLength(0);
  });

  it('refuses !`cmd` when a deny rule covers it, even with --yes', async () => {
    h = await startHarness({ files: FILES, config: { permission: { bash: { '*': 'allow', 'echo *': 'deny' } } }, engine: { autoApprove: true } });
    await expect(h.engine.prompt(h.engine.createSession().id, '/status')).rejects.toThrow(/cannot run !`echo hello-from-shell`/);
    expect(h.server.requests).toHaveLength(0);
  });

  it('inlines !`cmd` output once bash is approved', async () => {
    h = await startHarness({ files: FILES, engine: { autoApprove: true } });
    h.server.enqueue(text('ok'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '/status');
    expect(firstUserText(h.server.requests[0]!)).toBe('State: hello-from-shell');
  });

  it('asks the user before running !`cmd` when someone can answer', async () => {
    h = await startHarness({ files: FILES, engine: { interactive: true } });
    h.engine.on((e) => {
      if (e.type === 'permission.asked') h!.engine.replyPermission(e.request_id, 'once');
    });
    h.server.enqueue(text('ok'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '/status');
    expect(h.events.find((e) => e.type === 'permission.asked')).toMatchObject({ tool: 'bash', subject: expect.stringContaining('echo hello-from-shell') });
    expect(firstUserText(h.server.requests[0]!)).toBe('State: hello-from-shell');
  });

  it('names close matches for an unknown command', async () => {
    h = await startHarness({ files: FILES });
    const root = h.engine.createSession();
    const err = await h.engine.prompt(root.id, '/reveiw src/a.ts').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe('Unknown command /reveiw. Did you mean /review?');
    expect(h.server.requests).toHaveLength(0);
  });

  it('says which built-ins need the interactive UI', async () => {
    h = await startHarness({ files: FILES });
    await expect(h.engine.prompt(h.engine.createSession().id, '/sessions')).rejects.toThrow('/sessions works only in the interactive UI');
  });
});

describe('@file in a prompt', () => {
  it('attaches each named file once, after the text', async () => {
    h = await startHarness({ files: FILES });
    h.server.enqueue(text('ok'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'compare @src/a.ts with @src/b.ts, then @src/a.ts again; mail me@example.com about @nothing.ts');
    const sent = firstUserText(h.server.requests[0]!);
    expect(sent.match(/<file path="src\/a\.ts">/g)).toHaveLength(1);
    expect(sent).toContain('<file path="src/b.ts">\n     1\texport const b = 2;\n</file>');
    expect(sent).not.toContain('nothing.ts"');
    expect(sent.indexOf('<file path="src/a.ts">')).toBeLessThan(sent.indexOf('<file path="src/b.ts">'));
  });

  it('refuses a file outside the project', async () => {
    h = await startHarness({ files: FILES });
    const root = h.engine.createSession();
    await expect(h.engine.prompt(root.id, 'read @../../../../../../etc/hostname please')).rejects.toThrow(/outside the project/);
    expect(h.server.requests).toHaveLength(0);
  });
});
