import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionShow } from '../../src/cli/commands/sessions.js';
import type { CoreEvent } from '../../src/core/events.js';
import type { OpenedProject } from '../../src/core/project-context.js';
import { maxOverlap, requestsOf, scriptConversations } from '../support/conversations.js';
import { reply, text, toolNames, toolResults, systemText, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

let callSeq = 0;
function task(input: Record<string, unknown>) {
  return { type: 'tool_use' as const, name: 'task', input, id: `toolu_task_${++callSeq}` };
}
function spawn(description: string, prompt: string, subagent_type = 'general', extra: Record<string, unknown> = {}) {
  return task({ description, prompt, subagent_type, ...extra });
}
const slow = (s: string, delayMs = 150) => ({ ...text(s), delayMs });

/**
 * Replies that the fake server holds until `size` requests of the group have arrived (a batch),
 * so the overlap a test counts does not depend on how fast this machine starts a child. A
 * scheduler that runs fewer at once leaves a batch short: its replies go out at the deadline
 * and the overlap comes out smaller.
 */
function batched(total: number, size: number, deadlineMs = 10_000) {
  let arrived = 0;
  const opened = new Map<number, () => void>();
  const batches = new Map<number, Promise<void>>();
  const batch = (n: number) => {
    if (!batches.has(n)) batches.set(n, new Promise<void>((resolve) => opened.set(n, resolve)));
    return batches.get(n)!;
  };
  return (s: string) => async () => {
    const k = arrived++;
    const n = Math.floor(k / size);
    const wait = batch(n);
    if (arrived === Math.min(total, (n + 1) * size)) opened.get(n)!();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([wait, new Promise<void>((r) => (timer = setTimeout(r, deadlineMs)))]);
    clearTimeout(timer);
    return text(s);
  };
}
const resultsText = (req: RecordedRequest) => toolResults(req).map((r) => (typeof r.content === 'string' ? r.content : JSON.stringify(r.content)));

describe('task: spawning sub-agents', () => {
  it('runs the task calls of one message in parallel child sessions and returns their results', async () => {
    h = await startHarness();
    const together = batched(3, 3);
    scriptConversations(h.server, {
      'survey the repo': [
        reply(spawn('Look at A', 'child A', 'general'), spawn('Look at B', 'child B', 'general'), spawn('Look at C', 'child C', 'explore')),
        text('all done'),
      ],
      'child A': [together('A result')],
      'child B': [together('B result')],
      'child C': [together('C result')],
    });
    const root = h.engine.createSession();
    const outcome = await h.engine.prompt(root.id, 'survey the repo');
    expect(outcome).toMatchObject({ status: 'completed', text: 'all done' });

    const childRequests = ['child A', 'child B', 'child C'].map((p) => requestsOf(h!.server, p)[0]!);
    expect(maxOverlap(childRequests)).toBe(3);

    const results = resultsText(requestsOf(h.server, 'survey the repo')[1]!);
    expect(results).toHaveLength(3);
    const children = h.store.children(root.id);
    expect(children).toHaveLength(3);
    for (const [i, letter] of ['A', 'B', 'C'].entries()) {
      const child = children.find((c) => c.task_description === `Look at ${letter}`)!;
      expect(child).toMatchObject({ parent_id: root.id, status: 'completed', depth: 1 });
      expect(child.tool_call_id).toMatch(/^toolu_task_/);
      expect(results[i]).toBe(`<task id="${child.id}" state="completed"><task_result>${letter} result</task_result><tool_log>\n(no tool calls)\n</tool_log></task>`);
      expect(h.store.loadMessages(child.id).map((m) => m.role)).toEqual(['user', 'assistant']);
    }
    const explore = children.find((c) => c.agent === 'explore')!;
    const exploreReq = requestsOf(h.server, 'child C')[0]!;
    expect(toolNames(exploreReq).sort()).toEqual(['ask_user', 'bash', 'bash_output', 'glob', 'grep', 'kill_shell', 'list', 'read']);
    expect(systemText(exploreReq)).not.toContain(systemText(requestsOf(h.server, 'survey the repo')[0]!).slice(0, 200));
    // Child events go out live on the same stream with the child's path.
    const childEvents = h.events.filter((e) => e.session_id === explore.id);
    expect(childEvents.map((e) => e.type)).toEqual(expect.arrayContaining(['session.created', 'session.status', 'text.delta', 'turn.completed']));
    for (const e of childEvents) expect(e.path).toEqual([root.id, explore.id]);
    const created = h.events.find((e) => e.type === 'session.created' && e.session_id === explore.id);
    expect(created).toMatchObject({ parent_id: root.id, tool_call_id: explore.tool_call_id });
    // Progress on the parent's task call names the child.
    const progress = h.events.filter((e): e is Extract<CoreEvent, { type: 'tool.progress' }> => e.type === 'tool.progress' && e.session_id === root.id);
    expect(progress.some((e) => e.metadata.session_id === explore.id && e.metadata.status === 'running')).toBe(true);
  });

  it('keeps at most max_concurrency children running and queues the rest visibly', async () => {
    h = await startHarness({ config: { subagents: { max_concurrency: 3 } } });
    const prompts = Array.from({ length: 7 }, (_, i) => `job ${i}`);
    const inThrees = batched(7, 3);
    scriptConversations(h.server, {
      'fan out': [reply(...prompts.map((p) => spawn(p, p))), text('fan-in')],
      ...Object.fromEntries(prompts.map((p) => [p, [inThrees(`${p} ok`)]])),
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'fan out')).status).toBe('completed');
    const childRequests = prompts.map((p) => requestsOf(h!.server, p)[0]!);
    expect(childRequests.every(Boolean)).toBe(true);
    expect(maxOverlap(childRequests)).toBe(3);
    const queued = h.events.filter((e): e is Extract<CoreEvent, { type: 'session.status' }> => e.type === 'session.status' && e.status === 'queued');
    expect(new Set(queued.map((e) => e.session_id)).size).toBe(7);
    // Only a child the limit holds is queued with a reason naming it (issue 40); the rest are starting.
    const held = queued.filter((e) => e.reason !== undefined);
    expect(held.length).toBeGreaterThan(0);
    expect(held.length).toBeLessThanOrEqual(4);
    for (const e of held) expect(e.reason).toBe('waiting for a free slot (subagents.max_concurrency is 3)');
    // Out of the hold it is starting again: its last queued status before it runs has no reason.
    for (const id of new Set(held.map((e) => e.session_id))) {
      const own = h.events.filter((e): e is Extract<CoreEvent, { type: 'session.status' }> => e.type === 'session.status' && e.session_id === id);
      const firstRun = own.findIndex((e) => e.status === 'running');
      expect(own[firstRun - 1]).toMatchObject({ status: 'queued' });
      expect(own[firstRun - 1]?.reason).toBeUndefined();
    }
    expect(resultsText(requestsOf(h.server, 'fan out')[1]!).every((r) => r.includes('state="completed"'))).toBe(true);
  });

  it('refuses task calls beyond max_per_batch in one message', async () => {
    h = await startHarness();
    const prompts = Array.from({ length: 11 }, (_, i) => `batch ${i}`);
    scriptConversations(h.server, {
      'eleven jobs': [reply(...prompts.map((p) => spawn(p, p))), text('done')],
      ...Object.fromEntries(prompts.map((p) => [p, [text(`${p} ok`)]])),
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'eleven jobs');
    const results = toolResults(requestsOf(h.server, 'eleven jobs')[1]!);
    const refused = results.filter((r) => r.is_error);
    expect(refused).toHaveLength(1);
    expect(JSON.stringify(refused[0])).toMatch(/max_per_batch/);
    expect(h.store.children(root.id)).toHaveLength(10);
  });

  it('rejects unknown and primary-only sub-agent types with the list of available ones', async () => {
    h = await startHarness();
    scriptConversations(h.server, {
      'bad types': [reply(spawn('x', 'never', 'wizard'), spawn('y', 'never either', 'plan')), text('ok')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'bad types')).status).toBe('completed');
    const [unknown, primary] = resultsText(requestsOf(h.server, 'bad types')[1]!);
    expect(unknown).toMatch(/wizard/);
    expect(unknown).toMatch(/general/);
    expect(unknown).toMatch(/explore/);
    expect(primary).toMatch(/plan/);
    expect(primary).toMatch(/general/);
    expect(h.store.children(root.id)).toHaveLength(0);
  });
});

describe('task: gates', () => {
  it('gives task to a child only while depth < max_depth', async () => {
    h = await startHarness({ config: { subagents: { max_depth: 2 } } });
    scriptConversations(h.server, {
      'go deep': [reply(spawn('level one', 'child prompt')), text('root done')],
      'child prompt': [reply(spawn('level two', 'grandchild prompt', 'general')), text('child done')],
      'grandchild prompt': [reply(task({ description: 'level three', prompt: 'never', subagent_type: 'general' })), text('grandchild done')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'go deep')).status).toBe('completed');
    expect(toolNames(requestsOf(h.server, 'go deep')[0]!)).toContain('task');
    expect(toolNames(requestsOf(h.server, 'child prompt')[0]!)).toContain('task');
    const grandchildReq = requestsOf(h.server, 'grandchild prompt');
    expect(toolNames(grandchildReq[0]!)).not.toContain('task');
    expect(toolNames(grandchildReq[0]!)).toContain('ask_user');
    const [refusal] = resultsText(grandchildReq[1]!);
    expect(refusal).toMatch(/Unknown tool "task"/);
    expect(refusal).toMatch(/max_depth is 2/);
    const [child] = h.store.children(root.id);
    const [grandchild] = h.store.children(child!.id);
    expect(grandchild).toMatchObject({ depth: 2, status: 'completed' });
    expect(h.events.find((e) => e.session_id === grandchild!.id)!.path).toEqual([root.id, child!.id, grandchild!.id]);
  });

  it('leaves task out of children at the default max_depth of 1', async () => {
    h = await startHarness();
    scriptConversations(h.server, { 'one level': [reply(spawn('c', 'only child')), text('ok')], 'only child': [text('fine')] });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'one level');
    const names = toolNames(requestsOf(h.server, 'only child')[0]!);
    expect(names).not.toContain('task');
    expect(names).not.toContain('todowrite');
    expect(names).toEqual(expect.arrayContaining(['read', 'edit', 'bash', 'ask_user']));
  });

  it('enforces the agent allowlist and lets task.tools narrow but never widen', async () => {
    h = await startHarness({ files: { 'a.txt': 'alpha' } });
    scriptConversations(h.server, {
      'check gates': [
        reply(spawn('explorer', 'explore prompt', 'explore'), spawn('narrowed', 'narrow prompt', 'explore', { tools: ['read', 'write'] })),
        text('ok'),
      ],
      'explore prompt': [reply({ type: 'tool_use', name: 'write', input: { file_path: 'b.txt', content: 'x' }, id: 'toolu_w1' }), text('could not write')],
      'narrow prompt': [text('narrow ok')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'check gates');
    const [denied] = resultsText(requestsOf(h.server, 'explore prompt')[1]!);
    expect(denied).toMatch(/Unknown tool "write"/);
    expect(existsSync(join(h.projectDir, 'b.txt'))).toBe(false);
    expect(toolNames(requestsOf(h.server, 'narrow prompt')[0]!).sort()).toEqual(['ask_user', 'read']);
  });

  it('denies a grandchild what its ancestor denies, even with its own allow rule', async () => {
    h = await startHarness({
      config: {
        subagents: { max_depth: 2 },
        agent: { build: { permission: { bash: { 'rm *': 'deny' } } } },
      },
      files: {
        'victim.txt': 'keep me',
        '.opencode/agents/cleaner.md': '---\ndescription: Cleans things up\nmode: subagent\npermission:\n  bash: allow\n---\nYou clean up.\n',
      },
    });
    scriptConversations(h.server, {
      'tidy up': [reply(spawn('clean', 'clean level 1', 'cleaner')), text('root ok')],
      'clean level 1': [reply(spawn('clean deeper', 'clean level 2', 'cleaner')), text('level 1 ok')],
      'clean level 2': [
        reply(
          { type: 'tool_use', name: 'bash', input: { command: 'rm -f victim.txt' }, id: 'toolu_rm' },
          { type: 'tool_use', name: 'bash', input: { command: 'echo still-allowed' }, id: 'toolu_echo' },
        ),
        text('level 2 ok'),
      ],
    });
    const engine = h.newEngine({ autoApprove: true });
    const root = engine.createSession();
    await engine.prompt(root.id, 'tidy up');
    const [rm, echo] = resultsText(requestsOf(h.server, 'clean level 2')[1]!);
    expect(rm).toMatch(/denied by the configured rules/);
    expect(echo).toContain('still-allowed');
    expect(existsSync(join(h.projectDir, 'victim.txt'))).toBe(true);
  });

  it('picks the model: task.model > agent model > parent model', async () => {
    h = await startHarness({
      files: { '.opencode/agents/quick.md': '---\ndescription: Quick answers\nmode: subagent\nmodel: anthropic/claude-haiku-4-5\n---\nBe quick.\n' },
    });
    scriptConversations(h.server, {
      'models please': [
        reply(spawn('m1', 'uses call model', 'general', { model: 'opus' }), spawn('m2', 'uses agent model', 'quick'), spawn('m3', 'uses parent model')),
        text('ok'),
      ],
      'uses call model': [text('1')],
      'uses agent model': [text('2')],
      'uses parent model': [text('3')],
    });
    const root = h.engine.createSession({ model: 'anthropic/claude-sonnet-4-5' });
    await h.engine.prompt(root.id, 'models please');
    expect(requestsOf(h.server, 'uses call model')[0]!.body.model).toMatch(/^claude-opus/);
    expect(requestsOf(h.server, 'uses agent model')[0]!.body.model).toBe('claude-haiku-4-5');
    expect(requestsOf(h.server, 'uses parent model')[0]!.body.model).toBe('claude-sonnet-4-5');
  });
});

describe('task: questions routed through parents', () => {
  it('brings a grandchild question to the root broker and its answer back down', async () => {
    h = await startHarness({ config: { subagents: { max_depth: 2 } } });
    scriptConversations(h.server, {
      'need input': [reply(spawn('ask via child', 'middle')), text('root finished')],
      middle: [reply(spawn('ask deeper', 'bottom')), text('middle finished')],
      bottom: [reply({ type: 'tool_use', name: 'ask_user', input: { question: 'Which colour?', options: ['red', 'blue'] }, id: 'toolu_q' }), text('bottom finished')],
    });
    const engine = h.newEngine({ interactive: true });
    const root = engine.createSession();
    const running = engine.prompt(root.id, 'need input');
    const asked = await waitForEvent(engine, (e) => e.type === 'question.asked');
    expect(asked.path).toHaveLength(3);
    expect(asked).toMatchObject({ question: 'Which colour?', options: ['red', 'blue'] });
    const [pending] = engine.pendingQuestions();
    expect(pending!.path).toEqual(asked.path);
    if (asked.type !== 'question.asked') throw new Error('unreachable');
    expect(engine.answerQuestion(asked.question_id, 'blue')).toBe(true);
    expect((await running).status).toBe('completed');
    expect(resultsText(requestsOf(h.server, 'bottom')[1]!)[0]).toContain('blue');
    expect(h.events.some((e) => e.type === 'question.answered' && e.question_id === asked.question_id)).toBe(true);
  });

  it('keeps two concurrent questions apart when answered out of order', async () => {
    h = await startHarness();
    const ask = (q: string, id: string) => reply({ type: 'tool_use', name: 'ask_user', input: { question: q }, id });
    scriptConversations(h.server, {
      'two askers': [reply(spawn('first', 'asker one'), spawn('second', 'asker two')), text('both answered')],
      'asker one': [ask('Question one?', 'toolu_q1'), text('one done')],
      'asker two': [ask('Question two?', 'toolu_q2'), text('two done')],
    });
    const engine = h.newEngine({ interactive: true });
    const root = engine.createSession();
    const running = engine.prompt(root.id, 'two askers');
    const deadline = Date.now() + 5000;
    while (engine.pendingQuestions().length < 2) {
      if (Date.now() > deadline) throw new Error('questions did not arrive');
      await waitForEvent(engine, (e) => e.type === 'question.asked', 5000).catch(() => undefined);
    }
    const pending = engine.pendingQuestions();
    const one = pending.find((q) => q.question === 'Question one?')!;
    const two = pending.find((q) => q.question === 'Question two?')!;
    engine.answerQuestion(two.id, 'answer for two');
    engine.answerQuestion(one.id, 'answer for one');
    expect((await running).status).toBe('completed');
    expect(resultsText(requestsOf(h.server, 'asker one')[1]!)[0]).toContain('answer for one');
    expect(resultsText(requestsOf(h.server, 'asker two')[1]!)[0]).toContain('answer for two');
  });

  it('cancelling the run settles a pending child question as cancelled', async () => {
    h = await startHarness();
    scriptConversations(h.server, {
      'ask then cancel': [reply(spawn('asker', 'child asks'))],
      'child asks': [reply({ type: 'tool_use', name: 'ask_user', input: { question: 'Well?' }, id: 'toolu_qc' })],
    });
    const engine = h.newEngine({ interactive: true });
    const root = engine.createSession();
    const running = engine.prompt(root.id, 'ask then cancel');
    const asked = await waitForEvent(engine, (e) => e.type === 'question.asked');
    engine.cancel(root.id);
    expect((await running).status).toBe('cancelled');
    if (asked.type !== 'question.asked') throw new Error('unreachable');
    expect(h.events.find((e) => e.type === 'question.answered' && e.question_id === asked.question_id)).toMatchObject({ cancelled: true });
    expect(engine.pendingQuestions()).toHaveLength(0);
    expect(h.store.children(root.id)[0]!.status).toBe('cancelled');
  });

  it('tells a child the user is unavailable in a non-interactive run, and the child goes on', async () => {
    h = await startHarness();
    scriptConversations(h.server, {
      'headless': [reply(spawn('asker', 'headless child')), text('root ok')],
      'headless child': [reply({ type: 'tool_use', name: 'ask_user', input: { question: 'Anyone?' }, id: 'toolu_qh' }), text('assumed')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'headless')).status).toBe('completed');
    expect(resultsText(requestsOf(h.server, 'headless child')[1]!)[0]).toMatch(/not available/);
    expect(resultsText(requestsOf(h.server, 'headless')[1]!)[0]).toContain('assumed');
  });
});

describe('task: limits, cancel, background, resume, cost', () => {
  it('stops a child at max_turns and returns its last text with a note', async () => {
    h = await startHarness({ files: { 'f.txt': 'x' } });
    const readAgain = (id: string) => reply({ type: 'text', text: `step ${id}` }, { type: 'tool_use', name: 'read', input: { file_path: 'f.txt' }, id });
    scriptConversations(h.server, {
      'capped': [reply(spawn('loop', 'looping child', 'general', { max_turns: 2 })), text('root ok')],
      'looping child': [readAgain('toolu_r1'), readAgain('toolu_r2'), readAgain('toolu_r3')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'capped');
    expect(requestsOf(h.server, 'looping child')).toHaveLength(2);
    const [result] = resultsText(requestsOf(h.server, 'capped')[1]!);
    // Its own state, not `completed`: the parent, the events, the store and `sessions show` say it stopped at its limit and what raises it.
    expect(result).toMatch(/state="limited"/);
    expect(result).toContain('step toolu_r2');
    expect(result).toContain("Stopped: reached its limit of 2 model requests (raise task call's max_turns); the work may be unfinished.");
    const child = h.store.children(root.id)[0]!;
    expect(child.status).toBe('limited');
    const status = h.events.filter((e) => e.type === 'session.status' && e.session_id === child.id).at(-1);
    expect(status).toMatchObject({ status: 'limited', reason: "reached its limit of 2 model requests (raise task call's max_turns)" });
    const task = h.events.find((e) => e.type === 'tool.completed' && e.tool === 'task');
    expect(task).toMatchObject({ metadata: { state: 'limited' } });
  });

  it("names subagents.max_turns when the config's cap stopped the child, in sessions show too", async () => {
    h = await startHarness({ files: { 'f.txt': 'x' }, config: { subagents: { max_turns: 1 } } });
    scriptConversations(h.server, {
      'config capped': [reply(spawn('loop', 'config looping child')), text('root ok')],
      'config looping child': [reply({ type: 'tool_use', name: 'read', input: { file_path: 'f.txt' }, id: 'toolu_c1' }), text('never')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'config capped');
    const [result] = resultsText(requestsOf(h.server, 'config capped')[1]!);
    expect(result).toMatch(/state="limited"/);
    expect(result).toContain('reached its limit of 1 model request (raise subagents.max_turns)');
    const child = h.store.children(root.id)[0]!;
    const ctx = { store: h.store } as unknown as OpenedProject;
    expect(sessionShow(ctx, child.id, { json: false }).split('\n')[1]).toContain('· limited (reached its limit of 1 model request (raise subagents.max_turns))');
    expect(sessionShow(ctx, root.id, { json: false })).toMatch(new RegExp(`${child.id}  general  limited \\(reached its limit of 1 model request \\(raise subagents\\.max_turns\\)\\)`));
  });

  it('fails a child that exceeds timeout_seconds and the parent goes on', async () => {
    h = await startHarness({ config: { subagents: { timeout_seconds: 1 } } });
    scriptConversations(h.server, {
      'slow child': [reply(spawn('stall', 'stalling child')), text('parent carried on')],
      'stalling child': [{ type: 'stall', afterEvents: 3 }],
    });
    const root = h.engine.createSession();
    const outcome = await h.engine.prompt(root.id, 'slow child');
    expect(outcome).toMatchObject({ status: 'completed', text: 'parent carried on' });
    const [result] = resultsText(requestsOf(h.server, 'slow child')[1]!);
    expect(result).toMatch(/state="failed"/);
    expect(result).toMatch(/timed out after 1 s/);
    expect(h.store.children(root.id)[0]!.status).toBe('failed');
  });

  it('cancels one child alone; its parent gets state="cancelled" and continues', async () => {
    h = await startHarness();
    scriptConversations(h.server, {
      'two children': [reply(spawn('stuck', 'stuck child'), spawn('quick', 'quick child')), text('parent continued')],
      'stuck child': [{ type: 'stall', afterEvents: 3 }],
      'quick child': [text('quick done')],
    });
    const root = h.engine.createSession();
    const running = h.engine.prompt(root.id, 'two children');
    await waitUntil(() => requestsOf(h!.server, 'stuck child').length > 0);
    const stuck = h.store.children(root.id).find((c) => c.task_description === 'stuck')!;
    expect(h.engine.cancel(stuck.id)).toBe(true);
    expect(await running).toMatchObject({ status: 'completed', text: 'parent continued' });
    const results = resultsText(requestsOf(h.server, 'two children')[1]!);
    expect(results[0]).toMatch(/state="cancelled"/);
    expect(results[1]).toMatch(/state="completed"/);
  });

  it('cancelling the parent turn cancels foreground children and kills their processes', async () => {
    const marker = `${Math.floor(Math.random() * 1e6) + 4242}`;
    h = await startHarness({ config: { permission: { bash: 'allow' } } });
    scriptConversations(h.server, {
      'long job': [reply(spawn('sleeper', 'sleeping child'))],
      'sleeping child': [reply({ type: 'tool_use', name: 'bash', input: { command: `sleep ${marker}` }, id: 'toolu_sleep' })],
    });
    const root = h.engine.createSession();
    const running = h.engine.prompt(root.id, 'long job');
    await waitForEvent(h.engine, (e) => e.type === 'tool.started' && e.tool === 'bash');
    await waitUntil(() => pgrep(`sleep ${marker}`));
    h.engine.cancel(root.id);
    expect((await running).status).toBe('cancelled');
    await waitUntil(() => !pgrep(`sleep ${marker}`));
    expect(h.store.children(root.id)[0]!.status).toBe('cancelled');
  });

  it('delivers a background result later and starts a parent turn when idle', async () => {
    h = await startHarness();
    scriptConversations(h.server, {
      'background please': [reply(spawn('bg', 'background child', 'general', { run_in_background: true })), text('started it'), text('got the background result')],
      'background child': [slow('background findings', 200)],
    });
    const root = h.engine.createSession();
    const first = await h.engine.prompt(root.id, 'background please');
    expect(first.text).toBe('started it');
    const [immediate] = resultsText(requestsOf(h.server, 'background please')[1]!);
    expect(immediate).toMatch(/state="running"/);
    await h.engine.settled(root.id);
    expect(h.engine.lastOutcome(root.id)?.text).toBe('got the background result');
    const third = requestsOf(h.server, 'background please')[2]!;
    expect(JSON.stringify(third.body.messages.at(-1))).toContain('background findings');
  });

  it('resumes a child of the caller with its full history, and refuses other ids', async () => {
    h = await startHarness();
    const childIdFrom = (req: RecordedRequest) => /<task id="([^"]+)"/.exec(resultsText(req)[0] ?? '')?.[1] ?? 'missing';
    scriptConversations(h.server, {
      'resume it': [
        reply(spawn('first pass', 'resumable child')),
        (req) => reply(spawn('second pass', 'more work please', 'general', { session_id: childIdFrom(req) })),
        reply(spawn('bogus', 'x', 'general', { session_id: 'ses_not_a_child' })),
        text('root done'),
      ],
      'resumable child': [text('first answer'), text('second answer')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'resume it');
    expect(h.store.children(root.id)).toHaveLength(1);
    const second = requestsOf(h.server, 'resumable child')[1]!;
    expect(second.body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(second.body.messages)).toContain('first answer');
    expect(JSON.stringify(second.body.messages)).toContain('more work please');
    expect(resultsText(requestsOf(h.server, 'resume it')[2]!)[0]).toContain('second answer');
    expect(resultsText(requestsOf(h.server, 'resume it')[3]!)[0]).toMatch(/Cannot resume "ses_not_a_child"/);
  });

  it('keeps each session\'s own cost and rolls children into the parent\'s totals', async () => {
    h = await startHarness();
    scriptConversations(h.server, {
      'costly': [reply(spawn('c1', 'costly child')), { ...text('root done'), usage: { input_tokens: 1000, output_tokens: 10 } }],
      'costly child': [{ ...text('child done'), usage: { input_tokens: 100_000, output_tokens: 1000 } }],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'costly');
    const [child] = h.store.children(root.id);
    const own = h.store.getSession(root.id)!;
    const childRow = h.store.getSession(child!.id)!;
    expect(childRow.cost).toBeGreaterThan(own.cost);
    const totals = h.store.totals(root.id);
    expect(totals.total_cost).toBeCloseTo(own.cost + childRow.cost, 10);
    const listed = h.store.listRoots().find((s) => s.id === root.id)!;
    expect(listed.total_tokens).toBeGreaterThanOrEqual(childRow.input_tokens + own.input_tokens);
  });
});

function pgrep(pattern: string): boolean {
  try {
    execFileSync('pgrep', ['-f', pattern], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
