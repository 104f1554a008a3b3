// Steering running sub-agents (DESIGN §23) through the engine's public API and the `task` tool,
// with the real engine against the fake Messages API: messages reach a running child at its
// next turn boundary, one child is cancelled or sent to the background while the others and
// the parent go on, and a finished child is continued with its new result sent to the parent.
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreEvent, EventOf } from '../../src/core/events.js';
import { firstUserText, held, requestsOf, scriptConversations } from '../support/conversations.js';
import { lastUserText, reply, text, toolResults, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../support/harness.js';
import { waitFor } from '../support/wait.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

let callSeq = 0;
function spawn(description: string, prompt: string, extra: Record<string, unknown> = {}) {
  return { type: 'tool_use' as const, name: 'task', input: { description, prompt, subagent_type: 'general', ...extra }, id: `toolu_steer_${++callSeq}` };
}
const listCall = () => ({ type: 'tool_use' as const, name: 'list', input: { path: '.' }, id: `toolu_list_${++callSeq}` });
const resultsText = (req: RecordedRequest) => toolResults(req).map((r) => (typeof r.content === 'string' ? r.content : JSON.stringify(r.content)));
const taskIdIn = (output: string) => /<task id="([^"]+)"/.exec(output)?.[1];

/** The user messages of a request, each as its JSON text (tool results and text parts together). */
const userMessages = (req: RecordedRequest) => req.body.messages.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content));

function delivered(events: readonly CoreEvent[], sessionId: string): Array<EventOf<'message.delivered'>> {
  return events.filter((e): e is EventOf<'message.delivered'> => e.type === 'message.delivered' && e.session_id === sessionId);
}

function childByDescription(description: string, parentId: string): string {
  const child = h!.store.children(parentId).find((c) => c.task_description === description);
  if (!child) throw new Error(`no child "${description}"`);
  return child.id;
}

describe('steering sub-agents', () => {
  it('task with the session_id of a running child delivers the prompt at its next turn boundary and returns at once', async () => {
    h = await startHarness();
    const firstStep = held(reply(listCall()));
    let childId = '';
    scriptConversations(h.server, {
      'steer a worker': [
        reply(spawn('worker', 'worker child', { run_in_background: true })),
        async (req) => {
          childId = taskIdIn(resultsText(req)[0] ?? '') ?? 'missing';
          // The worker is inside its first step (held below) before the nudge is sent.
          await waitFor(() => h!.server.requests.some((r) => firstUserText(r) === 'worker child'), 'the worker\'s first request', { timeoutMs: 15_000 });
          return reply(spawn('nudge', 'steer: also look at B', { session_id: childId }));
        },
        (req) => {
          // The nudge is queued now; only then does the child's first step come back.
          firstStep.open();
          expect(resultsText(req)[0]).toMatch(/state="running"/);
          expect(resultsText(req)[0]).toMatch(/Message delivered/);
          return text('waiting for the worker');
        },
        text('got the worker result'),
      ],
      'worker child': [firstStep.reply, text('worker looked at A and B')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'steer a worker')).text).toBe('waiting for the worker');
    await h.engine.settled(root.id);

    const [first, second] = requestsOf(h.server, 'worker child');
    expect(userMessages(first!).join()).not.toContain('steer: also look at B');
    // After the list call's result, never inside it: the nudge follows the tool result.
    const last = second!.body.messages.at(-1)!;
    expect(JSON.stringify(last.content)).toMatch(/tool_result[\s\S]*steer: also look at B/);
    expect(delivered(h.events, childId)).toMatchObject([{ text: 'steer: also look at B', sender: 'parent', continued: false }]);
    expect(JSON.stringify(h.store.loadMessages(childId))).toContain('steer: also look at B');
    // Only the parent's own children: no second child was started for the nudge.
    expect(h.store.children(root.id)).toHaveLength(1);
    expect(h.engine.lastOutcome(root.id)?.text).toBe('got the worker result');
    expect(JSON.stringify(requestsOf(h.server, 'steer a worker')[3]!.body.messages.at(-1))).toContain('worker looked at A and B');
  });

  it('refuses task with the session_id of a running session that is not a child of the caller', async () => {
    h = await startHarness();
    const stranger = h.engine.createSession();
    scriptConversations(h.server, {
      'poke a stranger': [reply(spawn('poke', 'hello', { session_id: stranger.id })), text('refused')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'poke a stranger');
    expect(resultsText(requestsOf(h.server, 'poke a stranger')[1]!)[0]).toMatch(/must be the id of a task started from this session/);
  });

  it('sendToSession queues a user message for a running child, delivered after its running tool, stored and announced', async () => {
    h = await startHarness();
    const firstStep = held(reply(listCall()));
    scriptConversations(h.server, {
      'one worker': [reply(spawn('worker', 'steerable child')), text('root done')],
      'steerable child': [firstStep.reply, text('child done')],
    });
    const root = h.engine.createSession();
    const running = h.engine.prompt(root.id, 'one worker');
    await waitFor(() => requestsOf(h!.server, 'steerable child').length === 1, 'the child to call the model');
    const childId = childByDescription('worker', root.id);
    const receipt = h.engine.sendToSession(childId, 'please also count the files');
    expect(receipt.outcome).toBe('queued');
    expect(delivered(h.events, childId)).toHaveLength(0);
    firstStep.open();
    expect((await running).text).toBe('root done');
    const second = requestsOf(h.server, 'steerable child')[1]!;
    expect(JSON.stringify(second.body.messages.at(-1)!.content)).toMatch(/tool_result[\s\S]*please also count the files/);
    expect(delivered(h.events, childId)).toMatchObject([{ text: 'please also count the files', sender: 'user', continued: false }]);
    expect(await receipt.delivery).toEqual({ delivered: true });
    // The parent was never told: its history holds only its own turn.
    expect(JSON.stringify(requestsOf(h.server, 'one worker').map((r) => r.body.messages))).not.toContain('please also count the files');
  });

  it('cancelling one of three children leaves the others and the parent running; the parent gets state="cancelled"', async () => {
    h = await startHarness();
    const a = held(text('A finished'));
    const c = held(text('C finished'));
    scriptConversations(h.server, {
      'three children': [reply(spawn('A', 'child A'), spawn('B', 'child B'), spawn('C', 'child C')), text('parent carried on')],
      'child A': [a.reply],
      'child B': [{ type: 'stall', afterEvents: 3 }],
      'child C': [c.reply],
    });
    const root = h.engine.createSession();
    const running = h.engine.prompt(root.id, 'three children');
    await waitFor(() => ['child A', 'child B', 'child C'].every((p) => requestsOf(h!.server, p).length === 1), 'all three children to call the model');
    const [idA, idB, idC] = ['A', 'B', 'C'].map((d) => childByDescription(d, root.id));
    expect(h.engine.cancel(idB!)).toBe(true);
    await waitFor(() => h!.store.getSession(idB!)?.status === 'cancelled', 'child B to be cancelled');
    expect([h.engine.isRunning(idA!), h.engine.isRunning(idC!), h.engine.isRunning(root.id)]).toEqual([true, true, true]);
    a.open();
    c.open();
    expect(await running).toMatchObject({ status: 'completed', text: 'parent carried on' });
    const results = resultsText(requestsOf(h.server, 'three children')[1]!);
    expect(results[0]).toMatch(/state="completed"[\s\S]*A finished/);
    expect(results[1]).toMatch(/state="cancelled"/);
    expect(results[2]).toMatch(/state="completed"[\s\S]*C finished/);
  });

  it('detach returns the task call at once as state="running"; the parent goes on and the result arrives later', async () => {
    h = await startHarness();
    const work = held(text('long work finished'));
    scriptConversations(h.server, {
      'long task': [reply(spawn('long', 'long child')), text('parent went on'), text('got the long result')],
      'long child': [work.reply],
    });
    const root = h.engine.createSession();
    const running = h.engine.prompt(root.id, 'long task');
    await waitFor(() => requestsOf(h!.server, 'long child').length === 1, 'the child to call the model');
    const childId = childByDescription('long', root.id);
    expect(h.engine.isDetachable(childId)).toBe(true);
    const detachedEvent = waitForEvent(h.engine, (e) => e.type === 'session.detached' && e.session_id === childId);
    expect(h.engine.detach(childId)).toBe(true);
    expect(await detachedEvent).toMatchObject({ parent_id: root.id });
    // The parent's turn ends while the child still works.
    expect((await running).text).toBe('parent went on');
    expect(h.engine.isRunning(childId)).toBe(true);
    expect(h.engine.detach(childId)).toBe(false);
    const [immediate] = resultsText(requestsOf(h.server, 'long task')[1]!);
    expect(immediate).toMatch(/state="running"/);
    expect(immediate).toMatch(/moved this task to the background/);
    work.open();
    await h.engine.settled(root.id);
    expect(h.engine.lastOutcome(root.id)?.text).toBe('got the long result');
    expect(lastUserText(requestsOf(h.server, 'long task')[2]!)).toMatch(/Background task "long"[\s\S]*long work finished/);
  });

  it('a detached child is no longer cancelled with its parent turn', async () => {
    h = await startHarness();
    const work = held(text('survived'));
    scriptConversations(h.server, {
      'detach then stop': [reply(spawn('keeper', 'kept child')), { type: 'stall', afterEvents: 3 }, text('noted')],
      'kept child': [work.reply],
    });
    const root = h.engine.createSession();
    const running = h.engine.prompt(root.id, 'detach then stop');
    await waitFor(() => requestsOf(h!.server, 'kept child').length === 1, 'the child to call the model');
    const childId = childByDescription('keeper', root.id);
    h.engine.detach(childId);
    await waitFor(() => requestsOf(h!.server, 'detach then stop').length === 2, 'the parent to go on');
    h.engine.cancel(root.id);
    expect((await running).status).toBe('cancelled');
    expect(h.engine.isRunning(childId)).toBe(true);
    work.open();
    await h.engine.settled(root.id);
    expect(h.store.getSession(childId)?.status).toBe('completed');
  });

  it('sendToSession continues a finished child and delivers its new result to the parent', async () => {
    h = await startHarness();
    scriptConversations(h.server, {
      'ask once': [reply(spawn('helper', 'helper child')), text('root done'), text('root read the follow-up')],
      'helper child': [text('first answer'), text('second answer')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'ask once')).text).toBe('root done');
    const childId = childByDescription('helper', root.id);
    expect(h.store.getSession(childId)?.status).toBe('completed');

    expect(h.engine.sendToSession(childId, 'and one more thing').outcome).toBe('continued');
    await h.engine.settled(root.id);
    const second = requestsOf(h.server, 'helper child')[1]!;
    expect(second.body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(second.body.messages.at(-1))).toContain('and one more thing');
    expect(delivered(h.events, childId)).toMatchObject([{ text: 'and one more thing', sender: 'user', continued: true }]);
    expect(h.engine.lastOutcome(root.id)?.text).toBe('root read the follow-up');
    expect(lastUserText(requestsOf(h.server, 'ask once')[2]!)).toMatch(/follow-up to task "helper"[\s\S]*second answer/);
  });

  it('refuses a message to a root that is not running, and an empty one', async () => {
    h = await startHarness();
    const root = h.engine.createSession();
    expect(() => h!.engine.sendToSession(root.id, 'hello')).toThrow(/not running a turn; send it a prompt instead/);
    expect(() => h!.engine.sendToSession(root.id, '  ')).toThrow(/empty/);
    expect(() => h!.engine.sendToSession('ses_nope', 'hi')).toThrow(/No session with id "ses_nope"/);
  });
});

describe('messages to a sub-agent that is cancelled before reading them', () => {
  it('sendToSession says the message was not delivered, with a message.dropped event, and the model never gets it', async () => {
    h = await startHarness();
    scriptConversations(h.server, {
      'one stuck worker': [reply(spawn('stuck', 'stuck child')), text('root went on')],
      'stuck child': [{ type: 'stall', afterEvents: 3 }],
    });
    const root = h.engine.createSession();
    const running = h.engine.prompt(root.id, 'one stuck worker');
    await waitFor(() => requestsOf(h!.server, 'stuck child').length === 1, 'the child to call the model');
    const childId = childByDescription('stuck', root.id);
    const receipt = h.engine.sendToSession(childId, 'this never arrives');
    expect(receipt.outcome).toBe('queued');
    expect(h.engine.cancel(childId)).toBe(true);
    expect(await receipt.delivery).toEqual({ delivered: false, reason: 'cancelled', message: expect.stringMatching(/Not delivered: the session was cancelled/) });
    expect(h.events.filter((e) => e.type === 'message.dropped' && e.session_id === childId)).toMatchObject([{ text: 'this never arrives', sender: 'user', reason: 'cancelled' }]);
    expect((await running).text).toBe('root went on');
    expect(delivered(h.events, childId)).toHaveLength(0);
    expect(JSON.stringify(h.server.requests.map((r) => r.body.messages))).not.toContain('this never arrives');
    expect(JSON.stringify(h.store.loadMessages(childId))).not.toContain('this never arrives');
  });

  it("a parent's task(session_id) message that never arrived is named in the child's later result", async () => {
    h = await startHarness();
    let childId = '';
    scriptConversations(h.server, {
      'steer then lose': [
        reply(spawn('doomed', 'doomed child', { run_in_background: true })),
        async (req) => {
          childId = taskIdIn(resultsText(req)[0] ?? '') ?? 'missing';
          await waitFor(() => requestsOf(h!.server, 'doomed child').length === 1, "the child's first request", { timeoutMs: 15_000 });
          return reply(spawn('nudge', 'please also do B', { session_id: childId }));
        },
        (req) => {
          expect(resultsText(req)[0]).toMatch(/Message delivered/);
          return text('waiting for the doomed child');
        },
        text('noted the lost message'),
      ],
      'doomed child': [{ type: 'stall', afterEvents: 3 }],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'steer then lose')).text).toBe('waiting for the doomed child');
    expect(h.engine.cancel(childId)).toBe(true);
    await h.engine.settled(root.id);
    const later = lastUserText(requestsOf(h.server, 'steer then lose')[3]!);
    expect(later).toMatch(/state="cancelled"/);
    expect(later).toMatch(/not delivered \(it was cancelled before its next step\): "please also do B"/);
    expect(h.events.filter((e) => e.type === 'message.dropped' && e.session_id === childId)).toMatchObject([{ sender: 'parent', reason: 'cancelled' }]);
  });
});
