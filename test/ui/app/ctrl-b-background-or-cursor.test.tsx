// Ctrl+B is two keys in one: "background" (DESIGN §23) when a running foreground sub-agent
// can be sent there, and the prompt's Emacs cursor-left otherwise (as in a shell). One press
// does one of them, never both. Real engine, the child held open through the fake Messages API.
import { render } from 'ink-testing-library';
import { afterEach, expect, it } from 'vitest';
import { App } from '../../../src/ui/app.js';
import { held, requestsOf, scriptConversations } from '../../support/conversations.js';
import { reply, text } from '../../support/fake-anthropic.js';
import { startHarness, type Harness } from '../../support/harness.js';
import { waitFor } from '../../support/wait.js';
import { closeApp } from './teardown.js';
import { press, waitForFrame } from '../keys/harness.js';

let h: Harness | undefined;
let app: ReturnType<typeof render> | undefined;
afterEach(async () => {
  await closeApp(app, h);
  app = undefined;
  h = undefined;
});

const CTRL_B = '\u0002';

it('Ctrl+B backgrounds a running child without moving the cursor; with nothing to background it moves the cursor left', async () => {
  h = await startHarness({ engine: { interactive: true } });
  const work = held(text('slow work finished'));
  scriptConversations(h.server, {
    'delegate slowly': [
      reply({ type: 'tool_use', name: 'task', input: { description: 'Slow job', prompt: 'slow child', subagent_type: 'general' }, id: 'toolu_slow' }),
      text('parent went on'),
      text('parent read the late result'),
    ],
    'slow child': [work.reply],
  });
  const root = h.engine.createSession();
  app = render(<App core={h.engine} rootId={root.id} initialPrompt="delegate slowly" />);
  await waitFor(() => requestsOf(h!.server, 'slow child').length === 1, 'the child to call the model');
  await waitForFrame(app.lastFrame, (f) => f.includes('Slow job') && f.includes('ctrl+b background'));

  // A draft typed while the child runs; Ctrl+B sends the child away and leaves the cursor at the end.
  await press(app.stdin, 'abc');
  await press(app.stdin, CTRL_B);
  await waitForFrame(app.lastFrame, (f) => f.includes('Sent to the background: build › general (Slow job)'));
  await press(app.stdin, 'X');
  await waitForFrame(app.lastFrame, (f) => f.includes('abcX'));

  // Nothing left to send: Ctrl+B is the editor's cursor-left.
  await waitForFrame(app.lastFrame, (f) => f.includes('parent went on'));
  await press(app.stdin, CTRL_B, 'Y');
  const moved = await waitForFrame(app.lastFrame, (f) => f.includes('abcYX'));
  expect(moved).not.toContain('abcXY');
  work.open();
});
