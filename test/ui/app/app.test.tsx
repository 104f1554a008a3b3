// The whole app against the real engine and the fake Messages API: a sub-agent's question
// is answered by typing, and the user steps into the child session and back.
import { afterEach, describe, expect, it } from 'vitest';
import { renderApp, type RenderedApp } from '../../support/app.js';
import { requestsOf, scriptConversations } from '../../support/conversations.js';
import { reply, text, toolResults } from '../../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../../support/harness.js';
import { closeApp } from './teardown.js';
import { KEY, press, waitForFrame } from '../keys/harness.js';

/** Everything written since frame `from`: static output and live frames are separate writes. */
const screenSince = (a: RenderedApp, from: number) => () => a.frames.slice(from).join('\n');

let h: Harness | undefined;
let app: RenderedApp | undefined;
afterEach(async () => {
  await closeApp(app, h);
  app = undefined;
  h = undefined;
});

const task = (description: string, prompt: string, id: string) => ({
  type: 'tool_use' as const,
  name: 'task',
  input: { description, prompt, subagent_type: 'explore' },
  id,
});

describe('App', () => {
  it('routes a child question to the dialog, sends the typed answer back, and navigates into the child', async () => {
    h = await startHarness({ engine: { interactive: true } });
    scriptConversations(h.server, {
      'map the routes': [reply(task('Find API routes', 'find routes', 'toolu_t1')), text('Routes mapped.')],
      'find routes': [
        reply({ type: 'tool_use', name: 'ask_user', input: { question: 'Which API version?', options: ['v1', 'v2'] }, id: 'toolu_q1' }),
        text('Using the answer: done'),
      ],
    });
    app = renderApp(h.engine, { initialPrompt: 'map the routes' });
    const rootId = app.rootId;

    const asked = await waitForFrame(app.lastFrame, (f) => f.includes('Which API version?'), 10_000);
    expect(asked).toContain('build › explore (Find API routes)');
    expect(asked).toContain('v2');

    app.stdin.write('v3 please');
    await waitForFrame(app.lastFrame, (f) => f.includes('v3 please'));
    app.stdin.write(KEY.enter);

    await waitForEvent(h.engine, (e) => e.type === 'turn.completed' && e.session_id === rootId, 10_000);
    const childFollowUp = requestsOf(h.server, 'find routes')[1]!;
    expect(JSON.stringify(toolResults(childFollowUp))).toContain('v3 please');
    await waitForFrame(app.lastFrame, (f) => f.includes('Routes mapped.'));

    let mark = app.frames.length;
    await press(app.stdin, KEY.ctrlX, KEY.right);
    const child = await waitForFrame(screenSince(app, mark), (f) => f.includes('continue explore › Find API routes') && f.includes('Using the answer: done'));
    expect(child).toContain('build › explore (Find API routes)');
    expect(child).toMatch(/explore \(1 of 1\)/);

    mark = app.frames.length;
    await press(app.stdin, KEY.ctrlX, KEY.up);
    await waitForFrame(screenSince(app, mark), (f) => f.includes('Routes mapped.') && f.includes('Ask anything'));
    expect(app.lastFrame()).not.toContain('continue explore › Find API routes');
  });

  it('queues a message typed while the agent works and sends it after the turn', async () => {
    h = await startHarness({ engine: { interactive: true } });
    scriptConversations(h.server, {
      'first question': [{ ...text('first answer'), delayMs: 400 }, text('second answer')],
    });
    app = renderApp(h.engine, { initialPrompt: 'first question' });
    await h.server.waitForRequests(1);
    app.stdin.write('follow up');
    await waitForFrame(app.lastFrame, (f) => f.includes('follow up'));
    app.stdin.write(KEY.enter);
    await waitForFrame(app.lastFrame, (f) => /queued/i.test(f));
    await waitForFrame(app.lastFrame, (f) => f.includes('second answer'), 10_000);
    const requests = requestsOf(h.server, 'first question');
    expect(requests).toHaveLength(2);
    expect(JSON.stringify(requests[1]!.body.messages.at(-1))).toContain('follow up');
  });
});
