// Esc and Ctrl+B while a dialog is open, as in Claude Code (against the real engine and the
// fake Messages API): Esc in an approval denies and interrupts the asking sub-agent's turn
// (its parent goes on); a second Esc soon after interrupts the whole turn, however many
// children keep asking; Ctrl+B sends running children to the background with a dialog open.
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../../src/ui/app.js';
import { held, requestsOf, scriptConversations, toolUse } from '../../support/conversations.js';
import { reply, text, toolResults } from '../../support/fake-anthropic.js';
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
const task = (description: string, prompt: string) => toolUse('task', { description, prompt, subagent_type: 'general' });
const bash = (command: string) => reply(toolUse('bash', { command, description: `Run ${command}` }));
const resultsOf = (prompt: string, index: number) => toolResults(requestsOf(h!.server, prompt)[index]!).map((r) => (typeof r.content === 'string' ? r.content : JSON.stringify(r.content)));

describe('keys in a dialog', () => {
  it('Esc in a sub-agent approval denies it and interrupts that sub-agent; its parent goes on', async () => {
    h = await startHarness({ engine: { interactive: true }, config: { permission: { bash: 'ask' } } });
    scriptConversations(h.server, {
      'one asking helper': [reply(task('Asker', 'asking child')), text('parent went on')],
      'asking child': [bash('echo one'), bash('echo two'), text('never reached')],
    });
    const root = h.engine.createSession();
    app = render(<App core={h.engine} rootId={root.id} initialPrompt="one asking helper" />);
    await waitForFrame(app.lastFrame, (f) => f.includes('echo one') && f.includes('Allow once'), 10_000);
    await press(app.stdin, KEY.escape);
    await waitForEvent(h.engine, (e) => e.type === 'turn.completed' && e.session_id === root.id, 10_000);
    // The child asked once and stopped: no second approval, no further request.
    expect(h.events.filter((e) => e.type === 'permission.asked')).toHaveLength(1);
    expect(requestsOf(h.server, 'asking child')).toHaveLength(1);
    expect(resultsOf('one asking helper', 1)[0]).toMatch(/state="cancelled"/);
    await waitForFrame(app.lastFrame, (f) => f.includes('parent went on'));
  });

  it('a second Esc soon after interrupts the whole turn while two children keep asking', async () => {
    h = await startHarness({ engine: { interactive: true }, config: { permission: { bash: 'ask' } } });
    scriptConversations(h.server, {
      'two asking helpers': [reply(task('First', 'first asker'), task('Second', 'second asker')), text('never said')],
      'first asker': [bash('echo a1'), bash('echo a2'), bash('echo a3')],
      'second asker': [bash('echo b1'), bash('echo b2'), bash('echo b3')],
    });
    const root = h.engine.createSession();
    app = render(<App core={h.engine} rootId={root.id} initialPrompt="two asking helpers" />);
    await waitFor(() => h!.events.filter((e) => e.type === 'permission.asked').length === 2, 'both children to ask', { timeoutMs: 10_000 });
    const first = await waitForFrame(app.lastFrame, (f) => f.includes('Allow once'));
    const [shown, other] = first.includes('echo a1') ? ['echo a1', 'echo b1'] : ['echo b1', 'echo a1'];
    await press(app.stdin, KEY.escape);
    await waitForFrame(app.lastFrame, (f) => f.includes('Allow once') && f.includes(other) && !f.includes(shown));
    await press(app.stdin, KEY.escape);
    const done = await waitForEvent(h.engine, (e) => e.type === 'session.status' && e.session_id === root.id && e.status !== 'running', 10_000);
    expect(done.type === 'session.status' && done.status).toBe('cancelled');
    expect(requestsOf(h.server, 'two asking helpers')).toHaveLength(1);
    await waitForFrame(app.lastFrame, (f) => !f.includes('Allow once'));
  });

  it('Ctrl+B with an approval open sends the running children to the background', async () => {
    h = await startHarness({ engine: { interactive: true }, config: { permission: { bash: 'ask' } } });
    const slow = held(text('slow helper finished'));
    scriptConversations(h.server, {
      'asker and worker': [reply(task('Asker', 'asker child'), task('Worker', 'worker child')), text('parent went on'), text('parent read one'), text('parent read both')],
      'asker child': [bash('echo hi'), text('asker done')],
      'worker child': [slow.reply],
    });
    const root = h.engine.createSession();
    app = render(<App core={h.engine} rootId={root.id} initialPrompt="asker and worker" />);
    await waitForFrame(app.lastFrame, (f) => f.includes('echo hi') && f.includes('Allow once'), 10_000);
    await waitFor(() => requestsOf(h!.server, 'worker child').length === 1, 'the worker to call the model', { timeoutMs: 10_000 });
    await press(app.stdin, CTRL_B);
    await waitForFrame(app.lastFrame, (f) => f.includes('Sent to the background'));
    await waitFor(() => requestsOf(h!.server, 'asker and worker').length === 2, 'the parent to go on', { timeoutMs: 10_000 });
    expect(resultsOf('asker and worker', 1).every((r) => /state="running"/.test(r))).toBe(true);
    // The dialog is still there for the user to answer.
    expect(app.lastFrame()).toContain('Allow once');
    slow.open();
  });
});
