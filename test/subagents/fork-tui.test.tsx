// `/fork <prompt>` in the TUI (issue 37 item 8): the real app over the real engine and the fake
// server. The fork starts in the background on the conversation so far, shows as a block that
// says it is a fork, and its result comes back to the session, which answers it.
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, type RenderedApp } from '../support/app.js';
import { held } from '../support/conversations.js';
import { text, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../support/harness.js';
import { waitFor } from '../support/wait.js';
import { closeApp } from '../ui/app/teardown.js';
import { KEY, press, waitForFrame } from '../ui/keys/harness.js';

let h: Harness | undefined;
let app: RenderedApp | undefined;
afterEach(async () => {
  await closeApp(app, h);
  app = undefined;
  h = undefined;
});

const isForkRequest = (r: RecordedRequest) => JSON.stringify(r.body.messages).includes('"text":"<fork>\\n');

describe('/fork in the TUI', () => {
  it('starts a background fork of the conversation, drawn as a fork block, whose result the session then answers', async () => {
    h = await startHarness({ engine: { interactive: true } });
    const harness = h;
    const forkReply = held(text('Found 3 TODOs.'));
    const parentReplies = [text('Hello! What next?'), text('The fork found 3 TODOs.')];
    harness.server.setHandler((req) => (isForkRequest(req) ? forkReply.reply() : (parentReplies.shift() ?? text('?'))));
    app = await openApp(harness.engine);
    const rootId = app.rootId;
    await press(app.stdin, 'hello', KEY.enter);
    await waitForEvent(harness.engine, (e) => e.type === 'turn.completed' && e.session_id === rootId, 10_000);

    await press(app.stdin, '/fork find the TODOs');
    await press(app.stdin, KEY.escape, KEY.enter);
    // Running in the background: the block names the parent's agent and says it is a fork.
    await waitForFrame(app.lastFrame, (f) => f.includes('build fork find the TODOs') && f.includes('Forked:'));
    const forkRequest = await waitFor(() => harness.server.requests.find(isForkRequest), 'the fork request');
    expect(JSON.stringify(forkRequest.body.messages[0])).toContain('hello');
    // The prompt stays free for the user meanwhile.
    expect(harness.engine.isRunning(rootId)).toBe(false);

    forkReply.open();
    await waitForFrame(app.lastFrame, (f) => f.includes('The fork found 3 TODOs.'));
    const [fork] = harness.store.children(rootId);
    expect(fork).toMatchObject({ agent: 'build', status: 'completed', title: 'find the TODOs (@build fork)' });
  });

  it('says what to type when the prompt is missing, and starts nothing', async () => {
    h = await startHarness({ engine: { interactive: true } });
    app = await openApp(h.engine);
    await press(app.stdin, '/fork');
    await press(app.stdin, KEY.escape, KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('Say what the fork should do: /fork <prompt>.'));
    expect(h.store.children(app.rootId)).toHaveLength(0);
    expect(h.server.requests).toHaveLength(0);
  });
});
