// Forks (issue 37 item 8) through the real engine, store and Anthropic SDK against the fake
// server, which records every request body. A fork is a child that inherits its caller's
// conversation: its first request repeats the caller's last request — system prompt, tools and
// messages — byte for byte, with the cache breakpoint on the block where the caller's request
// wrote its cache, and then the caller's task call and the fork's own prompt.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/messages.js';
import { FORK_PLACEHOLDER_RESULT, inheritedConversation } from '../../src/core/subagents/fork.js';
import { reply, text, toolResults, type RecordedRequest, type ScriptedReply } from '../support/fake-anthropic.js';
import { createProvider } from '../../src/core/provider/index.js';
import { call, say, startFakeOpenAI } from '../support/fake-openai.js';
import { startHarness, type Harness } from '../support/harness.js';
import { waitFor } from '../support/wait.js';
import { held } from '../support/conversations.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

let calls = 0;
/** A scripted tool call with an id the test can look for. */
function toolUse(name: string, input: Record<string, unknown>): { type: 'tool_use'; name: string; input: Record<string, unknown>; id: string } {
  return { type: 'tool_use', name, input, id: `toolu_fork_${++calls}` };
}

type Block = { type: string; text?: string; [k: string]: unknown };
const blocks = (m: { content: unknown }): Block[] => (Array.isArray(m.content) ? (m.content as Block[]) : [{ type: 'text', text: String(m.content) }]);

/** A request made by a fork: its messages hold the note every fork's first message carries. */
const isForkRequest = (r: RecordedRequest) => r.body.messages.some((m) => m.role === 'user' && blocks(m).some((b) => b.type === 'text' && b.text?.startsWith('<fork>')));

/** The JSON of a value with every `cache_control` marker left out: the bytes the cache key is made of. */
function withoutMarkers(value: unknown): string {
  return JSON.stringify(value, (key, v: unknown) => (key === 'cache_control' ? undefined : v));
}

/** Paths of the blocks carrying cache_control, as in test/context/caching.test.ts. */
function breakpoints(r: RecordedRequest): string[] {
  const out: string[] = [];
  const has = (b: unknown) => typeof b === 'object' && b !== null && 'cache_control' in b;
  if (Array.isArray(r.body.system)) r.body.system.forEach((b, i) => has(b) && out.push(`system.${i}`));
  for (const t of r.body.tools ?? []) if (has(t)) out.push(`tools.${t.name}`);
  r.body.messages.forEach((m, i) => blocks(m).forEach((b, j) => has(b) && out.push(`messages.${i}.${j}`)));
  return out;
}

/**
 * Routes each request to the parent's or the fork's script by whether it is a fork's. The
 * parent's and the fork's conversations start with the same message, so the usual keying by
 * first message cannot tell them apart.
 */
function script(harness: Harness, parent: ScriptedReply[], fork: Array<ScriptedReply | ((r: RecordedRequest) => ScriptedReply)>): void {
  harness.server.setHandler((req) => {
    const next = (isForkRequest(req) ? fork : parent).shift();
    if (!next) return { type: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'no scripted reply' };
    return typeof next === 'function' ? next(req) : next;
  });
}

async function png(): Promise<Buffer> {
  return sharp({ create: { width: 16, height: 16, channels: 3, background: { r: 10, g: 200, b: 30 } } })
    .png()
    .toBuffer();
}

/** Checks that `fork`'s request starts with `parent`'s: system, tools and model equal, messages equal but for the markers. */
function expectSharedPrefix(parent: RecordedRequest, fork: RecordedRequest): void {
  expect(JSON.stringify(fork.body.system)).toBe(JSON.stringify(parent.body.system));
  expect(JSON.stringify(fork.body.tools)).toBe(JSON.stringify(parent.body.tools));
  expect(fork.body.model).toBe(parent.body.model);
  const n = parent.body.messages.length;
  expect(withoutMarkers(fork.body.messages.slice(0, n))).toBe(withoutMarkers(parent.body.messages));
  // The breakpoint the parent's request wrote its cache at (its newest block) is one the fork's request reads at.
  const written = breakpoints(parent).filter((p) => p.startsWith(`messages.${n - 1}.`));
  expect(written).toHaveLength(1);
  expect(breakpoints(fork)).toContain(written[0]);
  expect(breakpoints(fork).length).toBeLessThanOrEqual(4);
}

describe('task with fork: true', () => {
  it("starts a child whose first request repeats the caller's request byte for byte, then the task call and the fork's prompt", async () => {
    h = await startHarness();
    writeFileSync(join(h.projectDir, 'shot.png'), await png());
    const fork = toolUse('task', { description: 'check the tests', prompt: 'Run through the tests and list the failing ones.', subagent_type: 'general', fork: true });
    script(h, [reply(toolUse('read', { file_path: 'shot.png' })), reply({ type: 'text', text: 'Forking.' }, fork), text('All done.')], [text('fork report: 2 failing')]);
    const root = h.engine.createSession();
    const outcome = await h.engine.prompt(root.id, 'look at the picture, then check the tests');
    expect(outcome.status).toBe('completed');

    const parentRequests = h.server.requests.filter((r) => !isForkRequest(r));
    const forkRequests = h.server.requests.filter(isForkRequest);
    expect(forkRequests).toHaveLength(1);
    const caller = parentRequests[1]!;
    const first = forkRequests[0]!;
    // The picture the parent read travels in the inherited conversation, bytes and all.
    expect(JSON.stringify(caller.body.messages)).toContain('"type":"image"');
    expectSharedPrefix(caller, first);

    const n = caller.body.messages.length;
    // Then the parent's own reply holding the call, as the parent's next request has it.
    expect(withoutMarkers(first.body.messages[n])).toBe(withoutMarkers(parentRequests[2]!.body.messages[n]));
    // Then one user message: a result for the pending call, the note, and the prompt.
    expect(first.body.messages).toHaveLength(n + 2);
    const input = blocks(first.body.messages[n + 1]!);
    expect(input[0]).toMatchObject({ type: 'tool_result', tool_use_id: fork.id, content: FORK_PLACEHOLDER_RESULT });
    expect(input[1]!.text).toMatch(/^<fork>\nYou are a fork/);
    expect(input[2]).toMatchObject({ type: 'text', text: 'Run through the tests and list the failing ones.' });
    // It writes its own cache entry at its end, for its next request.
    expect(breakpoints(first)).toContain(`messages.${n + 1}.2`);

    // Its result returns like any child's, and it is stored as a child of the caller, as a fork.
    const [result] = toolResults(parentRequests[2]!);
    expect(String(result!.content)).toMatch(/^<task id="[^"]+" state="completed"><task_result>fork report: 2 failing<\/task_result>/);
    const [child] = h.store.children(root.id);
    expect(child).toMatchObject({ agent: 'build', status: 'completed', depth: 1, model: root.model, tool_call_id: fork.id });
    expect(child!.title).toBe('check the tests (@build fork)');
    const completed = h.events.find((e) => e.type === 'tool.completed' && e.call_id === fork.id);
    expect(completed).toMatchObject({ metadata: { session_id: child!.id, state: 'completed', agent: 'build', fork: true } });
    // Its stored history starts with what it inherited, so a resume or a restart reads it back.
    expect(h.store.loadMessages(child!.id).length).toBe(n + 3);
  });

  it('takes subagent_type "fork" the same way, and a fork at the depth limit keeps its task tool but cannot fork again', async () => {
    h = await startHarness();
    const forkCall = toolUse('task', { description: 'side job', prompt: 'Do the side job.', subagent_type: 'fork' });
    const again = toolUse('task', { description: 'deeper', prompt: 'Go deeper.', subagent_type: 'fork' });
    script(h, [reply(forkCall), text('Parent done.')], [reply(again), text('I did it myself.')]);
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'start a side job');
    const parentRequests = h.server.requests.filter((r) => !isForkRequest(r));
    const forkRequests = h.server.requests.filter(isForkRequest);
    expectSharedPrefix(parentRequests[0]!, forkRequests[0]!);
    // subagents.max_depth is 1: the fork is at depth 1, and its `task` is refused, not missing.
    expect(forkRequests[0]!.body.tools!.map((t) => t.name)).toContain('task');
    const [refused] = toolResults(forkRequests[1]!);
    expect(refused).toMatchObject({ tool_use_id: again.id, is_error: true });
    expect(String(refused!.content)).toContain('cannot start sub-agents or forks (subagents.max_depth is 1)');
    expect(h.store.children(root.id)).toHaveLength(1);
    expect(h.store.children(h.store.children(root.id)[0]!.id)).toHaveLength(0);
    expect(String(toolResults(parentRequests[1]!)[0]!.content)).toContain('I did it myself.');
  });

  it('refuses a model, tools or an identity of its own, before any child exists', async () => {
    h = await startHarness();
    const call = toolUse('task', { description: 'x', prompt: 'x', subagent_type: 'fork', model: 'haiku', tools: ['read'] });
    script(h, [reply(call), text('ok')], []);
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'fork with a model');
    const [result] = toolResults(h.server.requests[1]!);
    expect(result).toMatchObject({ is_error: true });
    expect(String(result!.content)).toContain('cannot take model, tools');
    expect(h.store.children(root.id)).toHaveLength(0);
  });

  it('runs as the caller\'s own agent: a fork of a plan session has plan\'s tools and instructions', async () => {
    h = await startHarness();
    const call = toolUse('task', { description: 'survey', prompt: 'Survey the folder.', subagent_type: 'general', fork: true });
    script(h, [reply(call), text('ok')], [text('surveyed')]);
    const root = h.engine.createSession({ agent: 'plan' });
    await h.engine.prompt(root.id, 'plan it');
    const forkRequest = h.server.requests.find(isForkRequest)!;
    expectSharedPrefix(h.server.requests[0]!, forkRequest);
    expect(forkRequest.body.tools!.map((t) => t.name)).not.toContain('write');
    expect(h.store.children(root.id)[0]).toMatchObject({ agent: 'plan', title: 'survey (@plan fork)' });
  });

  it("is continued as a fork: a resume repeats its caller's system prompt and tools", async () => {
    h = await startHarness();
    const forkCall = toolUse('task', { description: 'side', prompt: 'Do the side job.', subagent_type: 'fork' });
    const parent: ScriptedReply[] = [reply(forkCall), text('first done')];
    script(h, parent, [text('side done'), text('side continued')]);
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'fork once');
    const forkId = h.store.children(root.id)[0]!.id;
    parent.push(reply(toolUse('task', { description: 'more', prompt: 'Now the rest.', subagent_type: 'general', session_id: forkId })), text('all done'));
    await h.engine.prompt(root.id, 'continue it');
    const forkRequests = h.server.requests.filter(isForkRequest);
    expect(forkRequests).toHaveLength(2);
    const [first, resumed] = forkRequests;
    expect(JSON.stringify(resumed!.body.system)).toBe(JSON.stringify(first!.body.system));
    expect(JSON.stringify(resumed!.body.tools)).toBe(JSON.stringify(first!.body.tools));
    expect(withoutMarkers(resumed!.body.messages.slice(0, first!.body.messages.length))).toBe(withoutMarkers(first!.body.messages));
    expect(h.store.children(root.id)).toHaveLength(1);
  });

  it('works in its own worktree when asked, told so in its note, and its changes are merged back', async () => {
    h = await startHarness({ engine: { autoApprove: true }, files: { 'readme.txt': 'hello\n' } });
    const project = h.projectDir;
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: project, encoding: 'utf8' });
    rmSync(join(project, '.git'), { recursive: true, force: true });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'init');
    const call = toolUse('task', { description: 'note', prompt: 'Write note.txt.', subagent_type: 'fork', isolation: 'worktree' });
    script(h, [reply(call), text('ok')], [reply(toolUse('write', { file_path: 'note.txt', content: 'from the fork\n' })), text('wrote it')]);
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'fork into a worktree');
    const first = h.server.requests.find(isForkRequest)!;
    expectSharedPrefix(h.server.requests[0]!, first);
    const note = blocks(first.body.messages.at(-1)!).find((b) => b.text?.startsWith('<fork>'))!.text!;
    expect(note).toMatch(/You work in your own git worktree at (\S+), a copy of /);
    expect(note).not.toContain(`worktree at ${project},`);
    expect(readFileSync(join(project, 'note.txt'), 'utf8')).toBe('from the fork\n');
    expect(String(toolResults(h.server.requests.at(-1)!)[0]!.content)).toContain('merge="merged"');
  });

  it('is matched as type "fork" by permission.task rules', async () => {
    h = await startHarness({ config: { permission: { task: { fork: 'deny' } } } });
    const call = toolUse('task', { description: 'x', prompt: 'x', subagent_type: 'general', fork: true });
    script(h, [reply(call), text('ok')], []);
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'fork it');
    const [result] = toolResults(h.server.requests[1]!);
    expect(String(result!.content)).toContain('Sub-agent type "fork" is denied by the permission rules');
    expect(h.store.children(root.id)).toHaveLength(0);
  });
});

describe('a fork on an OpenAI-compatible server', () => {
  it("repeats the caller's request exactly (no markers there), then a tool message for the call and the prompt", async () => {
    const local = await startFakeOpenAI();
    try {
      h = await startHarness({ config: { provider: { local: { type: 'openai-compatible', baseURL: local.url, models: { 'some-model': { limit: { context: 32768 } } } } } } });
      const config = { provider: { local: { type: 'openai-compatible' as const, baseURL: local.url } } };
      h.engine = h.newEngine({ providerFor: (name) => createProvider(name, { config, env: {}, maxRetries: 0 }) });
      local.enqueue(
        say('Let me fork.'),
        call({ name: 'task', arguments: { description: 'side', prompt: 'Do the side job.', subagent_type: 'fork' }, id: 'call_fork_1' }),
        say('side done'),
        say('all done'),
      );
      const root = h.engine.createSession({ model: 'local/some-model' });
      await h.engine.prompt(root.id, 'hello');
      await h.engine.prompt(root.id, 'now fork');
      const [, caller, fork, after] = local.requests;
      expect(JSON.stringify(fork!.body.tools)).toBe(JSON.stringify(caller!.body.tools));
      expect(fork!.body.model).toBe(caller!.body.model);
      const n = caller!.body.messages.length;
      expect(JSON.stringify(fork!.body.messages.slice(0, n))).toBe(JSON.stringify(caller!.body.messages));
      expect(fork!.body.messages.slice(n).map((m) => m.role)).toEqual(['assistant', 'tool', 'user']);
      expect(fork!.body.messages[n + 1]).toMatchObject({ tool_call_id: 'call_fork_1', content: FORK_PLACEHOLDER_RESULT });
      expect(String(fork!.body.messages[n + 2]!.content)).toMatch(/^<fork>[\s\S]*Do the side job\.$/);
      expect(JSON.stringify(after!.body.messages)).toContain('side done');
    } finally {
      await local.close();
    }
  });
});

describe('/fork', () => {
  it('starts a background fork on the conversation so far; its result comes back to the session', async () => {
    h = await startHarness();
    script(h, [text('Hello! What shall we do?'), text('Noted the fork result.')], [text('forked answer')]);
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'hello');
    const forkId = await h.engine.fork(root.id, 'Find every TODO in the project.');
    await waitFor(() => h!.engine.lastOutcome(root.id)?.text === 'Noted the fork result.' || undefined, 'the fork result reaching the session');
    await h.engine.settled(root.id);

    const [hello, afterFork] = h.server.requests.filter((r) => !isForkRequest(r));
    const forkRequest = h.server.requests.find(isForkRequest)!;
    expectSharedPrefix(hello!, forkRequest);
    const input = blocks(forkRequest.body.messages.at(-1)!);
    expect(input.at(-1)).toMatchObject({ type: 'text', text: 'Find every TODO in the project.' });
    // The session's model learns of the fork from the recorded call, then gets its result.
    expect(JSON.stringify(afterFork!.body.messages)).toContain('"subagent_type":"fork"');
    expect(JSON.stringify(afterFork!.body.messages)).toContain('forked answer');
    expect(h.store.getSession(forkId)).toMatchObject({ parent_id: root.id, status: 'completed', agent: 'build' });
    const started = h.events.find((e) => e.type === 'tool.started' && e.session_id === root.id);
    expect(started).toMatchObject({ tool: 'task', input: { subagent_type: 'fork', run_in_background: true } });
  });

  it('starts from the summary after the conversation was compacted', async () => {
    h = await startHarness({ config: { provider: { anthropic: { models: { 'claude-sonnet-4-6': { limit: { context: 100_000 } } } } } } });
    const isSummary = (r: RecordedRequest) => JSON.stringify(r.body.system ?? '').includes('You summarise a coding session');
    let forked: RecordedRequest | undefined;
    h.server.setHandler((req) => {
      if (isSummary(req)) return text('The user asked three questions.');
      if (isForkRequest(req)) {
        forked = req;
        return text('fork done');
      }
      return text(`reply ${'and more '.repeat(1_000)}`);
    });
    const root = h.engine.createSession();
    for (const p of ['first question', 'second question', 'third question']) await h.engine.prompt(root.id, p);
    const compacted = await h.engine.compact(root.id);
    expect('skipped' in compacted).toBe(false);
    await h.engine.fork(root.id, 'Summarise the questions.');
    await waitFor(() => forked, 'the fork request');
    await h.engine.settled(root.id);
    const first = JSON.stringify(forked!.body.messages[0]);
    expect(first).toContain('The user asked three questions.');
    expect(JSON.stringify(forked!.body.messages)).not.toContain('first question');
  });

  it('refuses an empty prompt and a session that is running a turn', async () => {
    h = await startHarness();
    const slow = held(text('finally'));
    h.server.setHandler(() => slow.reply());
    const root = h.engine.createSession();
    await expect(h.engine.fork(root.id, '   ')).rejects.toThrow('Say what the fork should do: /fork <prompt>.');
    expect(h.store.loadMessages(root.id)).toHaveLength(0);
    const turn = h.engine.prompt(root.id, 'take your time');
    await h.server.waitForRequests(1);
    await expect(h.engine.fork(root.id, 'side job')).rejects.toThrow('Wait for the running turn to finish before /fork.');
    slow.open();
    await turn;
    expect(h.store.children(root.id)).toHaveLength(0);
  });
});

describe('inheritedConversation', () => {
  const user = (t: string): Message => ({ role: 'user', content: [{ type: 'text', text: t }] });
  const assistant = (t: string): Message => ({ role: 'assistant', content: [{ type: 'text', text: t }] });

  it('repeats the last request as it was sent (pruned), then what the history gained since', () => {
    const history = [user('read it'), assistant('long output'), user('next')];
    const sent = { messages: [user('read it'), assistant('[output pruned: 9000 chars]'), user('next')], historyLength: 3, last: history[2] };
    const reply = assistant('forking');
    history.push(reply);
    expect(inheritedConversation({ history, sent })).toEqual([...sent.messages, reply]);
  });

  it('starts from the history as the next request would send it when the history changed under the last request', () => {
    const history = [user('a'), assistant('b')];
    const sent = { messages: [user('old')], historyLength: 1, last: user('a') };
    // A rewind reloaded the history: its first message is no longer the object the request ended with.
    expect(inheritedConversation({ history, sent })).toEqual(history);
    // A compaction since that request: the summary replaces what it sent.
    const compacted = [...history, { role: 'user' as const, content: [{ type: 'text' as const, text: 'summary', compaction: { kept: 0, tokens_before: 10 } }] }];
    expect(inheritedConversation({ history: compacted, sent: { ...sent, last: history[0] } })).toEqual([compacted[2]]);
    expect(inheritedConversation({ history, sent: undefined })).toEqual(history);
  });
});
