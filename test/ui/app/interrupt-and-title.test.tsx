// Esc on a plain turn (no sub-agents) leaves "Interrupted by user" in the transcript, and
// the status line shows the title the first prompt gave the session.
import { afterEach, describe, expect, it } from 'vitest';
import { renderApp, type RenderedApp } from '../../support/app.js';
import { INTERRUPTED } from '../../../src/ui/app.js';
import { scriptConversations } from '../../support/conversations.js';
import { text } from '../../support/fake-anthropic.js';
import { startHarness, type Harness } from '../../support/harness.js';
import { closeApp } from './teardown.js';
import { KEY, press, waitForFrame } from '../keys/harness.js';

let h: Harness | undefined;
let app: RenderedApp | undefined;
afterEach(async () => {
  await closeApp(app, h);
  app = undefined;
  h = undefined;
});

const everything = (a: RenderedApp) => () => a.frames.join('\n');

describe('Esc and the session title', () => {
  it('keeps "Interrupted by user" after Esc stops a turn, also once the next turn has run', async () => {
    h = await startHarness({ engine: { interactive: true } });
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    scriptConversations(h.server, {
      'explain the build': [{ ...text(words), chunkDelayMs: 150 }, text('second answer')],
    });
    app = renderApp(h.engine, { initialPrompt: 'explain the build' });
    const rootId = app.rootId;
    await h.server.waitForRequests(1);
    await waitForFrame(app.lastFrame, (f) => f.includes('word0'), 10_000);
    await press(app.stdin, KEY.escape);
    const after = await waitForFrame(everything(app), (f) => f.includes(INTERRUPTED), 10_000);
    expect(h.engine.isRunning(rootId)).toBe(false);
    expect(after).toContain('word0');

    await press(app.stdin, 'go on');
    await press(app.stdin, KEY.enter);
    await waitForFrame(everything(app), (f) => f.includes('second answer'), 10_000);
    // Printed once, above the next turn: the trace stays.
    const all = everything(app)();
    expect(all.indexOf(INTERRUPTED)).toBeLessThan(all.lastIndexOf('second answer'));
    expect(app.lastFrame()).not.toContain('working…');
  });

  it('shows the title the first prompt gives a new session in the status line', async () => {
    h = await startHarness({ engine: { interactive: true } });
    scriptConversations(h.server, { 'fix the login redirect': [{ ...text('looking into it'), delayMs: 100 }] });
    app = renderApp(h.engine);
    const first = await waitForFrame(app.lastFrame, (f) => f.includes('Ask anything'));
    expect(first.split('\n').at(-1)).toContain('New session');
    await press(app.stdin, 'fix the login redirect');
    await press(app.stdin, KEY.enter);
    const titled = await waitForFrame(app.lastFrame, (f) => (f.split('\n').at(-1) ?? '').includes('fix the login redirect'), 10_000);
    expect(titled.split('\n').at(-1)).not.toContain('New session');
  });
});
