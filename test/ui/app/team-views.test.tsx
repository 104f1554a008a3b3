// The team's task list (Ctrl+T) and the panel of live sub-agents (ctrl+x a), against the real
// engine, the real task store and the fake Messages API (DESIGN §24 "Seen everywhere").
import { afterEach, describe, expect, it } from 'vitest';
import { renderApp, type RenderedApp } from '../../support/app.js';
import { held, scriptConversations, toolUse } from '../../support/conversations.js';
import { reply, text } from '../../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../../support/harness.js';
import { closeApp } from './teardown.js';
import { KEY, waitFor, waitForFrame } from '../keys/harness.js';

const CTRL_T = '\u0014';

/** The frame after the last repaint: lastFrame keeps what was printed before a view change. */
const since = (a: RenderedApp, from: number) => () => a.frames.slice(from).join('\n');

let h: Harness | undefined;
let app: RenderedApp | undefined;
afterEach(async () => {
  await closeApp(app, h);
  app = undefined;
  h = undefined;
});

describe('the team task list', () => {
  it('lists id, status, title, owner and blockers; Enter opens the owner, also typed in one write with Ctrl+T', async () => {
    h = await startHarness({ engine: { interactive: true } });
    scriptConversations(h.server, {
      'plan the work': [
        reply(toolUse('task_list', { action: 'create', title: 'Write the tests' }), toolUse('task_list', { action: 'create', title: 'Fix the parser', blocked_by: ['1'] })),
        reply(toolUse('task', { description: 'Tests', prompt: 'take task one', subagent_type: 'general' })),
        text('Planned.'),
        reply(toolUse('task_list', { action: 'create', title: 'Ship it' })),
        text('Added.'),
      ],
      'take task one': [reply(toolUse('task_list', { action: 'claim', id: '1' })), text('Claimed it.')],
    });
    app = renderApp(h.engine, { initialPrompt: 'plan the work' });
    await waitForEvent(h.engine, (e) => e.type === 'turn.completed' && e.session_id === app!.rootId, 10_000);
    await waitForFrame(app.lastFrame, (f) => f.includes('Planned.'));

    app.stdin.write(CTRL_T);
    const list = await waitForFrame(app.lastFrame, (f) => f.includes('Team tasks'));
    expect(list).toContain('0 of 2 done');
    expect(list).toMatch(/› 1 ◐ working Write the tests · general \(Tests\) · ended/);
    expect(list).toMatch(/ {2}2 ○ pending Fix the parser · unowned · after 1/);
    // The open list follows the store: a task created meanwhile shows up.
    const added = h.engine.prompt(app.rootId, 'add one more');
    await waitForFrame(app.lastFrame, (f) => f.includes('0 of 3 done') && /3 ○ pending Ship it · unowned/.test(f), 10_000);
    await added;
    // An unowned task has nobody to open: the list stays and says so.
    app.stdin.write(KEY.down + KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('Task 2 has no owner yet.') && f.includes('Team tasks'));
    app.stdin.write(KEY.escape);
    await waitForFrame(app.lastFrame, (f) => !f.includes('Team tasks') && f.includes('Ask anything'));

    // Ctrl+T and Enter in one write: the list opens, then Enter opens task 1's owner.
    const mark = app.frames.length;
    app.stdin.write(CTRL_T + KEY.enter);
    const child = await waitForFrame(since(app, mark), (f) => f.includes('sub-agent session') && f.includes('Claimed it.'));
    expect(child).toContain('build › general (Tests)');
  });
});

describe('the live sub-agents panel', () => {
  it('lists every running sub-agent with its state, time and latest call, stays across turns, and Enter opens one', async () => {
    h = await startHarness({ engine: { interactive: true } });
    const first = held(text('First done.'));
    const second = held(text('Second done.'));
    scriptConversations(h.server, {
      'start two': [
        reply(
          toolUse('task', { description: 'Slow one', prompt: 'slow job one', subagent_type: 'general', run_in_background: true }),
          toolUse('task', { description: 'Slow two', prompt: 'slow job two', subagent_type: 'general', run_in_background: true }),
        ),
        text('Both started.'),
        text('Still waiting on them.'),
        text('One reported.'),
        text('The other reported.'),
      ],
      'slow job one': [reply(toolUse('list', { path: '.' })), first.reply],
      'slow job two': [reply(toolUse('glob', { pattern: '*.md' })), second.reply],
    });
    app = renderApp(h.engine, { initialPrompt: 'start two' });
    await waitForFrame(app.lastFrame, (f) => f.includes('Both started.'), 10_000);

    app.stdin.write(KEY.ctrlX + 'a');
    const panel = await waitForFrame(app.lastFrame, (f) => f.includes('Sub-agents · 2 live') && f.includes('⎿ list .') && f.includes('⎿ glob *.md'), 10_000);
    expect(panel).toMatch(/› \S general \(Slow one\) · running \d+s · ⎿ list \./);
    expect(panel).toMatch(/ {2}\S general \(Slow two\) · running \d+s · ⎿ glob \*\.md/);
    // Esc gives the keys back to the prompt; the panel stays through the next turn.
    app.stdin.write(KEY.escape);
    await waitForFrame(app.lastFrame, (f) => f.includes('ctrl+x a to pick'));
    app.stdin.write('and now?');
    await waitForFrame(app.lastFrame, (f) => f.includes('and now?'));
    app.stdin.write(KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('Still waiting on them.') && f.includes('Sub-agents · 2 live'));

    // The leader, the key, ↓ and Enter in one write: the second one's view opens.
    const mark = app.frames.length;
    app.stdin.write(KEY.ctrlX + 'a' + KEY.down + KEY.enter);
    const child = await waitForFrame(since(app, mark), (f) => f.includes('build › general (Slow two) · sub-agent session'));
    expect(child).toContain('Sub-agents · 2 live');

    // A finished one leaves the panel.
    second.open();
    await waitForFrame(app.lastFrame, (f) => f.includes('Sub-agents · 1 live') && !f.includes('(Slow two) · running'));
    first.open();
    await waitForFrame(app.lastFrame, (f) => f.includes('No sub-agents are running.'));
  });

  it('gives a dialog the keys while it is open: Enter answers it and opens no view', async () => {
    h = await startHarness({ engine: { interactive: true }, config: { permission: { bash: 'ask' } } });
    const gate = held(reply(toolUse('bash', { command: 'echo from-asker' })));
    scriptConversations(h.server, {
      'start asker': [reply(toolUse('task', { description: 'Asker', prompt: 'asker job', subagent_type: 'general', run_in_background: true })), text('Started.'), text('Reported.')],
      'asker job': [gate.reply, text('asker done')],
    });
    app = renderApp(h.engine, { initialPrompt: 'start asker' });
    await waitForFrame(app.lastFrame, (f) => f.includes('Started.'), 10_000);
    app.stdin.write(KEY.ctrlX + 'a');
    await waitForFrame(app.lastFrame, (f) => f.includes('Sub-agents · 1 live · ↑↓ Enter opens'));
    gate.open();
    await waitForFrame(app.lastFrame, (f) => f.includes('wants to use bash') && f.includes('ctrl+x a to pick'), 10_000);
    app.stdin.write(KEY.enter);
    await waitFor(() => h!.events.some((e) => e.type === 'permission.replied'));
    expect(h.events.filter((e) => e.type === 'permission.replied')).toMatchObject([{ reply: 'once' }]);
    // The panel has the keys back once the dialog has gone; no view was opened meanwhile.
    const after = await waitForFrame(app.lastFrame, (f) => !f.includes('wants to use bash') && f.includes('↑↓ Enter opens'));
    expect(after).not.toContain('sub-agent session');
  });
});
