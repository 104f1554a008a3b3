// Background commands in the TUI: the status line counts the running ones, `/shells` lists
// each with its id, age, session and command, and the count goes once they end.
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, type RenderedApp } from '../../support/app.js';
import { text, toolUse } from '../../support/fake-anthropic.js';
import { startHarness, type Harness } from '../../support/harness.js';
import { liveProcesses } from '../../support/processes.js';
import { closeApp } from './teardown.js';
import { KEY, press, waitForFrame } from '../keys/harness.js';

let h: Harness | undefined;
let app: RenderedApp | undefined;
const durations: string[] = [];
afterEach(async () => {
  await h?.engine.close();
  await closeApp(app, h);
  app = undefined;
  h = undefined;
  for (const d of durations.splice(0)) for (const pid of liveProcesses(d)) process.kill(pid, 'SIGKILL');
});

describe('background commands in the TUI', { timeout: 30_000 }, () => {
  it('counts running shells in the status line and lists them with /shells', async () => {
    const d = `${300000 + Math.floor(Math.random() * 99999)}.${process.pid}`;
    durations.push(d);
    h = await startHarness({ engine: { interactive: true }, config: { permission: { bash: 'allow' } } });
    h.server.enqueue(toolUse('bash', { command: `sleep ${d}`, run_in_background: true }), text('Server started.'));
    app = await openApp(h.engine);
    expect(app.lastFrame()).not.toMatch(/background shell/);

    await press(app.stdin, 'start the server', KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('Server started.') && f.includes('1 background shell'), 20_000);

    await press(app.stdin, '/shells');
    await press(app.stdin, KEY.escape);
    await press(app.stdin, KEY.enter);
    const panel = await waitForFrame(app.lastFrame, (f) => f.includes('Background commands'), 5000);
    expect(panel).toMatch(new RegExp(`shell_1\\s+\\d+ s build · sleep ${d.replace('.', '\\.')}`));

    await press(app.stdin, KEY.escape);
    await waitForFrame(app.lastFrame, (f) => !f.includes('Background commands') && f.includes('Ask anything'));
    await h.engine.close();
    await waitForFrame(app.lastFrame, (f) => !f.includes('background shell'), 10_000);
  });

  it('stops the shell picked in /shells, and only that one, with its whole process tree', async () => {
    const keep = `${300000 + Math.floor(Math.random() * 99999)}.${process.pid}`;
    const stop = `${400000 + Math.floor(Math.random() * 99999)}.${process.pid}`;
    durations.push(keep, stop);
    h = await startHarness({ engine: { interactive: true }, config: { permission: { bash: 'allow' } } });
    h.server.enqueue(
      toolUse('bash', { command: `sleep ${keep}`, run_in_background: true }),
      // A child of the shell too: stopping a shell takes everything it started.
      toolUse('bash', { command: `sleep ${stop} & sleep ${stop}; wait`, run_in_background: true }),
      text('Two servers started.'),
    );
    app = await openApp(h.engine);
    await press(app.stdin, 'start two servers', KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('Two servers started.') && f.includes('2 background shells'), 20_000);
    expect(liveProcesses(stop).length).toBeGreaterThanOrEqual(2);

    await press(app.stdin, '/shells');
    await press(app.stdin, KEY.escape);
    await press(app.stdin, KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('Background commands') && f.includes('k stops it'), 5000);
    await press(app.stdin, KEY.down);
    await waitForFrame(app.lastFrame, (f) => f.includes(`› shell_2`), 5000);
    await press(app.stdin, 'k');

    // The panel's rows only: the transcript above it names both commands.
    const panelOf = (frame: string) => frame.slice(frame.indexOf('Background commands'), frame.indexOf('k stops it'));
    const panel = panelOf(await waitForFrame(app.lastFrame, (f) => f.includes('Background commands') && !panelOf(f).includes(`sleep ${stop}`), 15_000));
    expect(panel).toContain(`sleep ${keep}`);
    expect(h.events.filter((e) => e.type === 'shell.exited')).toMatchObject([{ shell_id: 'shell_2', reason: 'killed' }]);
    expect(liveProcesses(stop)).toEqual([]);
    expect(liveProcesses(keep)).toHaveLength(1);
    await waitForFrame(app.lastFrame, (f) => f.includes('1 background shell') && f.includes('Stopped shell_2'), 5000);
  });

  it('shows a shell\'s output live on Enter, stops it with k, and goes back to the list', async () => {
    const d = `${500000 + Math.floor(Math.random() * 99999)}.${process.pid}`;
    durations.push(d);
    h = await startHarness({ engine: { interactive: true }, config: { permission: { bash: 'allow' } } });
    h.server.enqueue(toolUse('bash', { command: `for i in $(seq 1 100000); do echo tick-$i; sleep 0.05; done; sleep ${d}`, run_in_background: true }), text('Ticking.'));
    app = await openApp(h.engine);
    await press(app.stdin, 'start ticking', KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('Ticking.') && f.includes('1 background shell'), 20_000);

    await press(app.stdin, '/shells');
    await press(app.stdin, KEY.escape);
    await press(app.stdin, KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('Background commands') && f.includes('Enter shows its output'), 5000);
    await press(app.stdin, KEY.enter);
    const ticks = (f: string) => [...f.matchAll(/^│ tick-(\d+)/gm)].map((m) => Number(m[1]));
    const first = await waitForFrame(app.lastFrame, (f) => f.includes('shell_1 · build · for i in') && ticks(f).length > 0 && f.includes('live · k stops it'), 10_000);
    const seen = Math.max(...ticks(first));
    // Live: later lines arrive while the view is open.
    await waitForFrame(app.lastFrame, (f) => Math.max(...ticks(f)) > seen + 3, 10_000);

    await press(app.stdin, 'k');
    await waitForFrame(app.lastFrame, (f) => f.includes('stopped · Esc back'), 15_000);
    expect(liveProcesses(d)).toEqual([]);
    await press(app.stdin, KEY.escape);
    await waitForFrame(app.lastFrame, (f) => f.includes('Background commands') && f.includes('No background commands are running'), 5000);
  });

  it('says when none runs', async () => {
    h = await startHarness({ engine: { interactive: true } });
    app = await openApp(h.engine);
    await press(app.stdin, '/shells');
    await press(app.stdin, KEY.escape);
    await press(app.stdin, KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('No background commands are running'));
  });
});
