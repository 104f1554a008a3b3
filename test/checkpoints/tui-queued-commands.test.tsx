// Commands that need an idle session, typed in the TUI right after an answer (while the turn
// is still finishing: its "after" snapshot is being taken), wait for the turn and run in order
// with queued prompts, with a "queued" hint; Esc drops them. The finishing moment is held open
// by a core whose first prompt() settles only when the test says so, on top of the real engine.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openApp, type RenderedApp } from '../support/app.js';
import type { UiCore } from '../../src/ui/core-api.js';
import { reply, text } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../support/harness.js';
import { closeApp } from '../ui/app/teardown.js';
import { KEY, press, waitForFrame } from '../ui/keys/harness.js';

let h: Harness | undefined;
let app: RenderedApp | undefined;
afterEach(async () => {
  await closeApp(app, h);
  app = undefined;
  h = undefined;
});

/** The real engine, except that its first prompt() settles only once `finish()` is called. */
function slowToFinish(engine: Harness['engine']): { core: UiCore; finish(): void } {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let prompts = 0;
  const core: UiCore = new Proxy(engine, {
    get(target, key) {
      if (key === 'prompt') {
        return (sessionId: string, prompt: string) => {
          const outcome = target.prompt(sessionId, prompt);
          return ++prompts === 1 ? outcome.then(async (o) => (await finished, o)) : outcome;
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { core, finish };
}

/** Types a slash command and sends it (Esc closes the command menu first). */
const typeCommand = (stdin: { write(data: string): void }, command: string) => press(stdin, command, KEY.escape, KEY.enter);

async function answeredButFinishing(prompt: string, answer: string) {
  h = await startHarness({ engine: { interactive: true, autoApprove: true } });
  h.server.enqueue(reply({ type: 'tool_use', id: 'toolu_w1', name: 'write', input: { file_path: 'made.txt', content: 'made\n' } }), text(answer));
  const slow = slowToFinish(h.engine);
  app = await openApp(slow.core);
  const rootId = app.rootId;
  await press(app.stdin, prompt, KEY.enter);
  await waitForEvent(h.engine, (e) => e.type === 'turn.completed' && e.session_id === rootId, 10_000);
  await waitForFrame(app.lastFrame, (f) => f.includes(answer));
  return { rootId, finish: slow.finish, made: join(h.projectDir, 'made.txt') };
}

it('queues /undo typed while the turn finishes and runs it once the turn is over', async () => {
  const { finish, made } = await answeredButFinishing('make a file', 'WROTE-IT');
  await typeCommand(app!.stdin, '/undo');
  const waiting = await waitForFrame(app!.lastFrame, (f) => f.includes('queued: /undo'));
  expect(waiting).not.toContain('Wait for the running turn');
  expect(existsSync(made)).toBe(true);

  finish();
  const undone = await waitForFrame(app!.lastFrame, (f) => f.includes('Undid "make a file"'), 15_000);
  expect(undone).toContain('1 file restored (made.txt)');
  expect(undone).not.toContain('queued: /undo');
  expect(existsSync(made)).toBe(false);
}, 60_000);

it('runs queued prompts and commands in the order they were typed', async () => {
  const { rootId, finish, made } = await answeredButFinishing('make a file', 'WROTE-IT');
  h!.server.enqueue(text('SECOND-ANSWER'));
  await press(app!.stdin, 'second prompt', KEY.enter);
  await typeCommand(app!.stdin, '/undo');
  await waitForFrame(app!.lastFrame, (f) => f.includes('queued: second prompt') && f.includes('queued: /undo'));

  finish();
  // The prompt goes first, so /undo steps back over it (it wrote nothing), not over the first one.
  await waitForFrame(app!.lastFrame, (f) => f.includes('Undid "second prompt"'), 15_000);
  expect(h!.server.requests).toHaveLength(3);
  expect(existsSync(made)).toBe(true);
  expect(h!.engine.prompts(rootId).map((p) => [p.text, p.undone])).toEqual([
    ['make a file', false],
    ['second prompt', true],
  ]);
}, 60_000);

it('drops a queued command on Esc, with a notice, and leaves the files alone', async () => {
  const { rootId, finish, made } = await answeredButFinishing('make a file', 'WROTE-IT');
  await typeCommand(app!.stdin, '/undo');
  await waitForFrame(app!.lastFrame, (f) => f.includes('queued: /undo'));
  await press(app!.stdin, KEY.escape);
  const dropped = await waitForFrame(app!.lastFrame, (f) => f.includes('Dropped the queued /undo.'));
  expect(dropped).not.toContain('queued: /undo');

  finish();
  // A prompt typed afterwards runs next: had /undo stayed queued, it would have run before it.
  h!.server.enqueue(text('LATER-ANSWER'));
  await press(app!.stdin, 'later prompt', KEY.enter);
  await waitForFrame(app!.lastFrame, (f) => f.includes('LATER-ANSWER'), 15_000);
  expect(existsSync(made)).toBe(true);
  expect(app!.frames.join('\n')).not.toContain('Undid');
  expect(h!.engine.prompts(rootId).every((p) => !p.undone)).toBe(true);
}, 60_000);

it('still runs a command that is fine during a turn at once', async () => {
  const { finish } = await answeredButFinishing('make a file', 'WROTE-IT');
  await typeCommand(app!.stdin, '/help');
  const help = await waitForFrame(app!.lastFrame, (f) => f.includes('Help') && f.includes('Esc closes'));
  expect(help).not.toContain('queued:');
  finish();
}, 60_000);
