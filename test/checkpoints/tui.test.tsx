// /undo and /redo in the TUI: the files go back and forth and a notice says what happened.
// (What was already printed above the live region stays in the terminal's scrollback.)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openApp, type RenderedApp } from '../support/app.js';
import { reply, text } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../support/harness.js';
import { closeApp } from '../ui/app/teardown.js';
import { waitFor } from '../support/wait.js';
import { KEY, press, waitForFrame } from '../ui/keys/harness.js';

let h: Harness | undefined;
let app: RenderedApp | undefined;
afterEach(async () => {
  await closeApp(app, h);
  app = undefined;
  h = undefined;
});

it('/undo removes the file the turn wrote, /redo writes it again, each with a notice', async () => {
  h = await startHarness({ engine: { interactive: true, autoApprove: true } });
  const harness = h;
  harness.server.enqueue(reply({ type: 'tool_use', id: 'toolu_w1', name: 'write', input: { file_path: 'made.txt', content: 'made\n' } }), text('WROTE-IT'));
  app = await openApp(harness.engine);
  const rootId = app.rootId;
  await press(app.stdin, 'make a file', KEY.enter);
  await waitForEvent(harness.engine, (e) => e.type === 'turn.completed' && e.session_id === rootId, 10_000);
  await waitForFrame(app.lastFrame, (f) => f.includes('WROTE-IT'));
  const made = join(harness.projectDir, 'made.txt');
  expect(existsSync(made)).toBe(true);
  // The prompt is over once its "after" snapshot is stored.
  await waitFor(() => harness.store.messageRows(rootId).some((r) => r.prompt && r.snapshot_after !== null), 'the snapshot after the prompt', { timeoutMs: 15_000 });

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

/** Sends `prompt`, whose scripted turn writes `file`, and waits until its "after" snapshot is stored. */
async function promptThatWrites(harness: Harness, rootId: string, prompt: string, file: string, answer: string): Promise<void> {
  harness.server.enqueue(reply({ type: 'tool_use', id: `toolu_${file}`, name: 'write', input: { file_path: file, content: `${file}\n` } }), text(answer));
  const before = harness.store.messageRows(rootId).filter((r) => r.prompt).length;
  await press(app!.stdin, prompt, KEY.enter);
  await waitFor(
    () => harness.store.messageRows(rootId).filter((r) => r.prompt && r.snapshot_after !== null).length === before + 1,
    `the snapshot after "${prompt}"`,
    { timeoutMs: 15_000 },
  );
  await waitForFrame(app!.lastFrame, (f) => f.includes(answer));
}

it('Esc Esc (both in one read) lists the prompts; restoring code and conversation removes the files and puts the prompt back in the input', async () => {
  h = await startHarness({ engine: { interactive: true, autoApprove: true } });
  const harness = h;
  app = await openApp(harness.engine);
  const rootId = app.rootId;
  await promptThatWrites(harness, rootId, 'write first', 'first.txt', 'FIRST-DONE');
  await promptThatWrites(harness, rootId, 'write second', 'second.txt', 'SECOND-DONE');

  app.stdin.write('\u001b\u001b');
  const list = await waitForFrame(app.lastFrame, (f) => f.includes('Rewind: pick a prompt'));
  // Newest last, and the newest is where the cursor starts.
  expect(list.indexOf('write first')).toBeLessThan(list.indexOf('write second'));
  await press(app.stdin, KEY.up, KEY.enter);
  await waitForFrame(app.lastFrame, (f) => f.includes('Restore code and conversation') && f.includes('Code only'));
  await press(app.stdin, KEY.enter);
  await waitForFrame(app.lastFrame, (f) => f.includes('Rewound the conversation to before "write first"'), 15_000);
  expect(existsSync(join(harness.projectDir, 'first.txt'))).toBe(false);
  expect(existsSync(join(harness.projectDir, 'second.txt'))).toBe(false);
  // The prompt's text is back in the input, ready to edit and send again.
  await waitForFrame(app.lastFrame, (f) => /› write first|write first\s*$/m.test(f) && !f.includes('Ask anything'));
  expect(harness.store.messageRows(rootId).filter((r) => r.prompt && !r.undone)).toHaveLength(0);
}, 90_000);

it('/rewind "Code only" that would overwrite a later edit of the user changes nothing and names the file', async () => {
  h = await startHarness({ engine: { interactive: true, autoApprove: true } });
  const harness = h;
  app = await openApp(harness.engine);
  const rootId = app.rootId;
  await promptThatWrites(harness, rootId, 'write it', 'mine.txt', 'WROTE');
  const file = join(harness.projectDir, 'mine.txt');
  writeFileSync(file, 'the user rewrote this\n');

  await press(app.stdin, '/rewind');
  await press(app.stdin, KEY.escape, KEY.enter);
  await waitForFrame(app.lastFrame, (f) => f.includes('Rewind: pick a prompt') && f.includes('write it'));
  await press(app.stdin, KEY.enter);
  await waitForFrame(app.lastFrame, (f) => f.includes('Code only'));
  await press(app.stdin, KEY.down, KEY.down, KEY.enter);
  const refused = await waitForFrame(app.lastFrame, (f) => f.includes('Nothing was restored'), 15_000);
  expect(refused).toContain('mine.txt');
  expect(readFileSync(file, 'utf8')).toBe('the user rewrote this\n');
  expect(harness.store.messageRows(rootId).filter((r) => r.prompt && !r.undone)).toHaveLength(1);
}, 60_000);
