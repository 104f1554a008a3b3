// The live region (everything below the printed transcript) against the real engine and
// the fake Messages API: it fits a 24-row terminal with an edit's approval open, says
// when the root waits on the model, names the dialogs queued behind the open one, and
// prints no colour under NO_COLOR.
import chalk from 'chalk';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, renderApp, type RenderedApp } from '../../support/app.js';
import { requestsOf, scriptConversations } from '../../support/conversations.js';
import { reply, text } from '../../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../../support/harness.js';
import { closeApp } from './teardown.js';
import { KEY, press, waitForFrame } from '../keys/harness.js';

let h: Harness | undefined;
let app: RenderedApp | undefined;
const savedLevel = chalk.level;
const savedNoColor = process.env['NO_COLOR'];
afterEach(async () => {
  await closeApp(app, h);
  app = undefined;
  h = undefined;
  chalk.level = savedLevel;
  if (savedNoColor === undefined) delete process.env['NO_COLOR'];
  else process.env['NO_COLOR'] = savedNoColor;
});

/** A promise the test settles: holds a scripted reply back until the screen is ready for it. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const task = (description: string, prompt: string, agent: string, id: string) => ({
  type: 'tool_use' as const,
  name: 'task',
  input: { description, prompt, subagent_type: agent },
  id,
});

/** ink-testing-library reports no height, so the app assumes 24 rows. */
const ROWS = 24;

describe('the live region', () => {
  it('shows an edit’s diff once, in its approval dialog, and fits the terminal height', async () => {
    const file = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
    h = await startHarness({ engine: { interactive: true }, files: { 'src/a.ts': `${file}\n` } });
    scriptConversations(h.server, {
      'change line ten': [
        reply({ type: 'tool_use', id: 'toolu_r1', name: 'read', input: { file_path: 'src/a.ts' } }),
        reply({ type: 'text', text: 'Changing it.' }, { type: 'tool_use', id: 'toolu_e1', name: 'edit', input: { file_path: 'src/a.ts', old_string: 'line 10\n', new_string: 'LINE TEN\n' } }),
        text('Edited.'),
      ],
    });
    app = renderApp(h.engine, { initialPrompt: 'change line ten' });

    const asked = await waitForFrame(app.lastFrame, (f) => f.includes('Allow once'), 10_000);
    // The frame is printed output plus the live region; the live region starts at the call.
    const lines = asked.split('\n');
    const live = lines.slice(lines.findIndex((l) => l.includes('edit src/a.ts')));
    expect(live.length).toBeLessThan(ROWS);
    expect(live.at(-1)).toContain('build');
    expect(asked.match(/LINE TEN/g)).toHaveLength(1);
    expect(asked).toMatch(/10 \+ LINE TEN/);

    await press(app.stdin, KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('Edited.'), 10_000);
    // Done, the call prints with its diff again.
    expect(app.lastFrame()).toMatch(/\+ LINE TEN/);
  });

  it('shows only the newest rows of a live transcript too tall for the screen', async () => {
    h = await startHarness({ engine: { interactive: true } });
    const hold = gate();
    // Ten sub-agents (the most one message may start) and a dialog: taller than 24 rows.
    const jobs = Array.from({ length: 10 }, (_, i) => i);
    scriptConversations(h.server, {
      'many jobs': [reply(...jobs.map((i) => task(`Job ${i}`, `job ${i}`, 'general', `toolu_t${i}`)))],
      'job 0': [reply({ type: 'tool_use', id: 'toolu_b0', name: 'bash', input: { command: 'echo zero', description: 'Zero' } })],
      // The other sub-agents stay busy until the test ends.
      ...Object.fromEntries(jobs.slice(1).map((i) => [`job ${i}`, [async () => (await hold.opened, text('done'))]])),
    });
    app = renderApp(h.engine, { initialPrompt: 'many jobs' });

    const asked = await waitForFrame(app.lastFrame, (f) => f.includes('$ echo zero') && f.includes('Job 9 ·'), 10_000);
    const lines = asked.split('\n');
    const live = lines.slice(lines.findIndex((l) => l.includes('› many jobs')) + 1);
    expect(live.length).toBeLessThan(ROWS);
    expect(live.at(-1)).toContain('build');
    // The oldest blocks are cut from the top; everything prints in full once finished.
    expect(asked).not.toContain('Job 0 ·');
    hold.open();
  });

  it('says the root is working while it waits on the model, until something streams', async () => {
    h = await startHarness({ engine: { interactive: true } });
    const slow = gate();
    scriptConversations(h.server, {
      'slow question': [
        async () => {
          await slow.opened;
          return text('Finally here.');
        },
      ],
    });
    app = renderApp(h.engine, { initialPrompt: 'slow question' });
    const rootId = app.rootId;
    const waiting = await waitForFrame(app.lastFrame, (f) => f.includes('working… Esc to interrupt'), 10_000);
    expect(waiting).toContain('› slow question');
    slow.open();
    await waitForEvent(h.engine, (e) => e.type === 'turn.completed' && e.session_id === rootId, 10_000);
    const done = await waitForFrame(app.lastFrame, (f) => f.includes('Finally here.'));
    expect(done).not.toContain('working…');
  });

  it('names a question waiting behind an approval, and an approval waiting behind a question, without swapping the open one', async () => {
    h = await startHarness({ engine: { interactive: true } });
    const ask = gate();
    const secondCommand = gate();
    scriptConversations(h.server, {
      'map and test': [reply(task('Ask the user', 'ask things', 'explore', 'toolu_t1'), task('Run the tests', 'run things', 'general', 'toolu_t2')), text('All done.')],
      'ask things': [
        async () => {
          await ask.opened;
          return reply({ type: 'tool_use', id: 'toolu_q', name: 'ask_user', input: { question: 'Which API version?', options: ['v1', 'v2'] } });
        },
        text('Asked.'),
      ],
      'run things': [
        reply({ type: 'tool_use', id: 'toolu_b1', name: 'bash', input: { command: 'echo first', description: 'First' } }),
        async () => {
          await secondCommand.opened;
          return reply({ type: 'tool_use', id: 'toolu_b2', name: 'bash', input: { command: 'echo second', description: 'Second' } });
        },
        text('Ran.'),
      ],
    });
    app = renderApp(h.engine, { initialPrompt: 'map and test' });
    const rootId = app.rootId;

    await waitForFrame(app.lastFrame, (f) => f.includes('$ echo first'), 10_000);
    ask.open();
    const approval = await waitForFrame(app.lastFrame, (f) => f.includes('Also waiting: question from build › explore (Ask the user)'), 10_000);
    expect(approval).toContain('$ echo first');
    expect(approval).not.toContain('Question from');

    await press(app.stdin, KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('Question from build › explore (Ask the user)') && !f.includes('Allow once'));
    await press(app.stdin, 'v3');
    secondCommand.open();
    // The approval arrives while the question is open: it waits, named, and the typed answer stays.
    const question = await waitForFrame(app.lastFrame, (f) => f.includes('Also waiting: approval from build › general (Run the tests)'), 10_000);
    expect(question).toContain('Question from build › explore (Ask the user)');
    expect(question).toContain('Or type: v3');
    expect(question).not.toContain('Allow once');

    await press(app.stdin, KEY.enter);
    const next = await waitForFrame(app.lastFrame, (f) => f.includes('$ echo second'));
    expect(next).not.toContain('Also waiting');
    await press(app.stdin, KEY.enter);
    await waitForEvent(h.engine, (e) => e.type === 'turn.completed' && e.session_id === rootId, 10_000);
    expect(JSON.stringify(requestsOf(h.server, 'ask things')[1]?.body.messages.at(-1))).toContain('v3');
  });

  it('prints no colour codes under NO_COLOR, the prompt included', async () => {
    h = await startHarness({ engine: { interactive: true } });
    // Tests run without a terminal, where chalk drops colour anyway: force it on.
    chalk.level = 1;
    delete process.env['NO_COLOR'];
    app = await openApp(h.engine);
    const rootId = app.rootId;
    // eslint-disable-next-line no-control-regex
    const colour = /\u001B\[(?:3[0-8]|9[0-7])m/;
    expect(app.lastFrame()).toMatch(colour);
    app.unmount();

    process.env['NO_COLOR'] = '1';
    app = renderApp(h.engine, { rootId });
    const plain = await waitForFrame(app.lastFrame, (f) => f.includes('Ask anything'));
    expect(plain).toContain('build');
    expect(app.frames.join('')).not.toMatch(colour);
  });
});
