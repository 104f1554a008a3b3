// A notice goes when what it says stops being true (issue: stale notices). Against the real
// engine and the fake Messages API: "Sent to the background" goes once the child's result is
// in, and a line names the child whose result starts the parent's next turn; "Queued for …" goes once the child has read the message; "Press Ctrl+C again to exit"
// over a dialog goes when its window closes.
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../../src/ui/app.js';
import { held, requestsOf, scriptConversations, toolUse } from '../../support/conversations.js';
import { lastUserText, reply, text } from '../../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../../support/harness.js';
import { waitFor } from '../../support/wait.js';
import { closeApp } from './teardown.js';
import { KEY, press, waitForFrame } from '../keys/harness.js';

let h: Harness | undefined;
let app: ReturnType<typeof render> | undefined;
afterEach(async () => {
  await closeApp(app, h);
  app = undefined;
  h = undefined;
});

const CTRL_B = '\u0002';
const CTRL_C = '\u0003';
const task = (description: string, prompt: string, id: string) => ({ type: 'tool_use' as const, name: 'task', input: { description, prompt, subagent_type: 'general' }, id });

describe('notices end with their truth', () => {
  it('"Sent to the background" goes once the child has finished', async () => {
    h = await startHarness({ engine: { interactive: true } });
    const work = held(text('slow work finished'));
    scriptConversations(h.server, {
      'delegate slowly': [reply(task('Slow job', 'slow child', 'toolu_slow')), text('parent went on'), text('parent read the late result')],
      'slow child': [work.reply],
    });
    const root = h.engine.createSession();
    app = render(<App core={h.engine} rootId={root.id} initialPrompt="delegate slowly" />);
    await waitFor(() => requestsOf(h!.server, 'slow child').length === 1, 'the child to call the model', { timeoutMs: 10_000 });
    await waitForFrame(app.lastFrame, (f) => f.includes('ctrl+b background'), 10_000);
    await press(app.stdin, CTRL_B);
    await waitForFrame(app.lastFrame, (f) => f.includes('parent went on') && f.includes('Sent to the background'));

    work.open();
    const after = await waitForFrame(app.lastFrame, (f) => f.includes('parent read the late result'), 10_000);
    await waitForFrame(app.lastFrame, (f) => !f.includes('Sent to the background'));
    // The reply that follows is announced as the child's result, not as an answer to a prompt.
    const announced = after.indexOf('general (Slow job) reported back: completed');
    expect(announced).toBeGreaterThan(after.indexOf('parent went on'));
    expect(announced).toBeLessThan(after.indexOf('parent read the late result'));
  });

  it('"Queued for …" goes once the child has read the message', async () => {
    h = await startHarness({ engine: { interactive: true } });
    const first = held(reply(toolUse('glob', { pattern: '*.md' })));
    scriptConversations(h.server, {
      'one busy helper': [reply(task('Busy one', 'busy child', 'toolu_busy')), text('parent done')],
      'busy child': [first.reply, text('child read the nudge')],
    });
    const root = h.engine.createSession();
    app = render(<App core={h.engine} rootId={root.id} initialPrompt="one busy helper" />);
    await waitFor(() => requestsOf(h!.server, 'busy child').length === 1, 'the child to call the model', { timeoutMs: 10_000 });
    await press(app.stdin, KEY.ctrlX, KEY.down);
    await waitForFrame(app.lastFrame, (f) => f.includes('to general › Busy one'));
    app.stdin.write('a timely nudge');
    await waitForFrame(app.lastFrame, (f) => f.includes('a timely nudge'));
    await press(app.stdin, KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('Queued for general › Busy one'));

    first.open();
    await waitFor(() => requestsOf(h!.server, 'busy child').length === 2, 'the child to read the nudge', { timeoutMs: 10_000 });
    expect(lastUserText(requestsOf(h.server, 'busy child')[1]!)).toContain('a timely nudge');
    await waitForFrame(app.lastFrame, (f) => !f.includes('Queued for general › Busy one'), 5000);
  });

  it('"Press Ctrl+C again to exit" over a dialog goes when its window closes', async () => {
    h = await startHarness({ engine: { interactive: true }, config: { permission: { bash: 'ask' } } });
    scriptConversations(h.server, {
      'run a command': [reply(toolUse('bash', { command: 'echo hello', description: 'Say hello' })), text('done')],
    });
    const root = h.engine.createSession();
    let exited = false;
    app = render(<App core={h.engine} rootId={root.id} initialPrompt="run a command" onExit={() => (exited = true)} />);
    await waitForEvent(h.engine, (e) => e.type === 'permission.asked', 10_000);
    await waitForFrame(app.lastFrame, (f) => f.includes('echo hello'));
    await press(app.stdin, CTRL_C);
    await waitForFrame(app.lastFrame, (f) => f.includes('Press Ctrl+C again to exit'));
    await waitForFrame(app.lastFrame, (f) => !f.includes('Press Ctrl+C again to exit'), 5000);
    expect(exited).toBe(false);
  });
});
