// The per-child keys in the app (DESIGN §23), against the real engine and the fake Messages
// API: a running task block names them; Ctrl+B sends the child the parent waits on to the
// background; ctrl+x k in a child's view cancels that child alone; a finished child's view
// continues it; a message typed for a child that is then cancelled shows as not delivered.
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../../src/ui/app.js';
import { held, requestsOf, scriptConversations } from '../../support/conversations.js';
import { lastUserText, reply, text, toolResults } from '../../support/fake-anthropic.js';
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
const task = (description: string, prompt: string, id: string) => ({ type: 'tool_use' as const, name: 'task', input: { description, prompt, subagent_type: 'general' }, id });

const resultOf = (prompt: string, index: number) => {
  const content = toolResults(requestsOf(h!.server, prompt)[index]!)[0]?.content;
  return typeof content === 'string' ? content : JSON.stringify(content);
};

describe('per-child keys', () => {
  it('Ctrl+B sends the running child to the background; the parent goes on and reads the result later', async () => {
    h = await startHarness({ engine: { interactive: true } });
    const work = held(text('slow work finished'));
    scriptConversations(h.server, {
      'delegate slowly': [reply(task('Slow job', 'slow child', 'toolu_slow')), text('parent went on'), text('parent read the late result')],
      'slow child': [work.reply],
    });
    const root = h.engine.createSession();
    app = render(<App core={h.engine} rootId={root.id} initialPrompt="delegate slowly" />);
    await waitFor(() => requestsOf(h!.server, 'slow child').length === 1, 'the child to call the model');
    const block = await waitForFrame(app.lastFrame, (f) => f.includes('Slow job') && f.includes('ctrl+b background'));
    expect(block).toContain('ctrl+x right to steer or cancel');

    await press(app.stdin, CTRL_B);
    await waitForFrame(app.lastFrame, (f) => f.includes('Sent to the background: build › general (Slow job)'));
    await waitForFrame(app.lastFrame, (f) => f.includes('parent went on'));
    expect(resultOf('delegate slowly', 1)).toMatch(/state="running"/);

    work.open();
    await waitForFrame(app.lastFrame, (f) => f.includes('parent read the late result'), 10_000);
    expect(lastUserText(requestsOf(h.server, 'delegate slowly')[2]!)).toContain('slow work finished');
  });

  it('ctrl+x k in a running child view cancels that child alone; a finished child view continues it', async () => {
    h = await startHarness({ engine: { interactive: true } });
    scriptConversations(h.server, {
      'two helpers': [reply(task('Stuck one', 'stuck child', 'toolu_a'), task('Quick one', 'quick child', 'toolu_b')), text('parent carried on'), text('parent saw the follow-up')],
      'stuck child': [{ type: 'stall', afterEvents: 3 }, text('stuck one answered the follow-up')],
      'quick child': [{ ...text('quick done'), delayMs: 100 }],
    });
    const root = h.engine.createSession();
    app = render(<App core={h.engine} rootId={root.id} initialPrompt="two helpers" />);
    await waitFor(() => requestsOf(h!.server, 'stuck child').length === 1, 'the stuck child to call the model');

    await press(app.stdin, KEY.ctrlX, KEY.down);
    await waitForFrame(app.lastFrame, (f) => f.includes('to general › Stuck one') && f.includes('ctrl+x k cancel it'));
    await press(app.stdin, KEY.ctrlX, 'k');
    await waitForEvent(h.engine, (e) => e.type === 'turn.completed' && e.session_id === root.id, 10_000);
    expect(resultOf('two helpers', 1)).toMatch(/state="cancelled"/);
    expect(toolResults(requestsOf(h.server, 'two helpers')[1]!)[1]?.content).toMatch(/state="completed"/);

    // Now finished: the same view continues it, and the parent hears the new result.
    await waitForFrame(app.lastFrame, (f) => f.includes('continue general › Stuck one'));
    app.stdin.write('one more try');
    await waitForFrame(app.lastFrame, (f) => f.includes('one more try'));
    await press(app.stdin, KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('Continuing general › Stuck one'));
    await waitFor(() => requestsOf(h!.server, 'two helpers').length === 3, 'the parent to read the follow-up result', { timeoutMs: 10_000 });
    expect(lastUserText(requestsOf(h.server, 'two helpers')[2]!)).toContain('stuck one answered the follow-up');
    expect(lastUserText(requestsOf(h.server, 'stuck child')[1]!)).toContain('one more try');
  });

  it('a message typed for a child that is then cancelled is shown in its view as not delivered', async () => {
    h = await startHarness({ engine: { interactive: true } });
    scriptConversations(h.server, {
      'one stuck helper': [reply(task('Stuck one', 'stuck child', 'toolu_lost')), text('parent carried on')],
      'stuck child': [{ type: 'stall', afterEvents: 3 }],
    });
    const root = h.engine.createSession();
    app = render(<App core={h.engine} rootId={root.id} initialPrompt="one stuck helper" />);
    await waitFor(() => requestsOf(h!.server, 'stuck child').length === 1, 'the stuck child to call the model');
    await press(app.stdin, KEY.ctrlX, KEY.down);
    await waitForFrame(app.lastFrame, (f) => f.includes('to general › Stuck one'));
    app.stdin.write('a lost nudge');
    await waitForFrame(app.lastFrame, (f) => f.includes('a lost nudge'));
    await press(app.stdin, KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('Queued for general › Stuck one'));
    await press(app.stdin, KEY.ctrlX, 'k');
    await waitForFrame(app.lastFrame, (f) => f.includes('Not delivered (the session was cancelled before it read it): a lost nudge'), 10_000);
  });
});
