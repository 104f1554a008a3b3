// /undo and /redo in the TUI: the files go back and forth and a notice says what happened.
// (What was already printed above the live region stays in the terminal's scrollback.)
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { render } from 'ink-testing-library';
import { afterEach, expect, it } from 'vitest';
import { App } from '../../src/ui/app.js';
import { reply, text } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../support/harness.js';
import { closeApp } from '../ui/app/teardown.js';
import { waitFor } from '../support/wait.js';
import { KEY, press, waitForFrame } from '../ui/keys/harness.js';

let h: Harness | undefined;
let app: ReturnType<typeof render> | undefined;
afterEach(async () => {
  await closeApp(app, h);
  app = undefined;
  h = undefined;
});

it('/undo removes the file the turn wrote, /redo writes it again, each with a notice', async () => {
  h = await startHarness({ engine: { interactive: true, autoApprove: true } });
  const harness = h;
  harness.server.enqueue(reply({ type: 'tool_use', id: 'toolu_w1', name: 'write', input: { file_path: 'made.txt', content: 'made\n' } }), text('WROTE-IT'));
  const root = harness.engine.createSession();
  app = render(<App core={harness.engine} rootId={root.id} />);
  await waitForFrame(app.lastFrame, (f) => f.includes('Ask anything'));
  await press(app.stdin, 'make a file', KEY.enter);
  await waitForEvent(harness.engine, (e) => e.type === 'turn.completed' && e.session_id === root.id, 10_000);
  await waitForFrame(app.lastFrame, (f) => f.includes('WROTE-IT'));
  const made = join(harness.projectDir, 'made.txt');
  expect(existsSync(made)).toBe(true);
  // The prompt is over once its "after" snapshot is stored.
  await waitFor(() => harness.store.messageRows(root.id).some((r) => r.prompt && r.snapshot_after !== null), 'the snapshot after the prompt', { timeoutMs: 15_000 });

  await press(app.stdin, '/undo');
  await press(app.stdin, KEY.escape, KEY.enter);
  const undone = await waitForFrame(app.lastFrame, (f) => f.includes('Undid "make a file"'), 15_000);
  expect(undone).toContain('1 file restored (made.txt)');
  expect(existsSync(made)).toBe(false);

  await press(app.stdin, '/redo');
  await press(app.stdin, KEY.escape, KEY.enter);
  await waitForFrame(app.lastFrame, (f) => f.includes('Redid "make a file"'), 15_000);
  expect(existsSync(made)).toBe(true);
}, 60_000);
