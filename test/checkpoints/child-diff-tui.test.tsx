// A finished sub-agent in the TUI (DESIGN §18): its block says what it changed (`+1 −1 in 1
// file`, nothing when it changed none), Ctrl+O shows that diff, and in its view the revert key
// asks y/n and reverts its changes only. Real engine, real git, turns scripted through the fake
// Messages API.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openApp, renderApp, type RenderedApp } from '../support/app.js';
import { scriptConversations } from '../support/conversations.js';
import { reply, text, type ScriptedBlock } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { closeApp } from '../ui/app/teardown.js';
import { KEY, press, waitForFrame } from '../ui/keys/harness.js';

let h: Harness | undefined;
let app: RenderedApp | undefined;
afterEach(async () => {
  await closeApp(app, h);
  app = undefined;
  h = undefined;
});

let seq = 0;
const use = (name: string, input: Record<string, unknown>): ScriptedBlock => ({ type: 'tool_use', name, input, id: `toolu_${name}_${++seq}` });
const task = (description: string, prompt: string) => use('task', { description, prompt, subagent_type: 'general' });
const CTRL_O = '\u000f';

const ORIGINAL = 'alpha\nbeta\ngamma\n';

/** A root turn with two children: one edits a.txt, one only reads it. */
async function twoChildren(): Promise<{ harness: Harness; rootId: string }> {
  const harness = await startHarness({ files: { 'a.txt': ORIGINAL }, engine: { interactive: true, autoApprove: true } });
  scriptConversations(harness.server, {
    'run two': [reply(task('Edit a', 'edit a please')), reply(task('Read a', 'read a please')), text('ALL-DONE')],
    'edit a please': [
      reply(use('read', { file_path: 'a.txt' })),
      reply(use('edit', { file_path: 'a.txt', old_string: 'beta', new_string: 'BETA' })),
      text('edited a'),
    ],
    'read a please': [reply(use('read', { file_path: 'a.txt' })), text('read a')],
  });
  const root = harness.engine.createSession();
  return { harness, rootId: root.id };
}

it("shows a finished child's stat in its block, its diff on Ctrl+O, and reverts it from its view after y", async () => {
  const { harness, rootId } = await twoChildren();
  h = harness;
  app = await openApp(harness.engine, { rootId });
  await press(app.stdin, 'run two', KEY.enter);
  const done = await waitForFrame(app.lastFrame, (f) => f.includes('ALL-DONE'), 20_000);
  // One stat line: the reading child changed nothing and says nothing.
  expect(done.match(/\+1 −1 in 1 file/g)).toHaveLength(1);
  expect(done).not.toMatch(/\+0 −0/);

  await press(app.stdin, CTRL_O);
  const expanded = await waitForFrame(app.lastFrame, (f) => f.includes('- beta') && f.includes('+ BETA'), 15_000);
  expect(expanded).toContain('a.txt (+1 −1)');

  // Into the first child's view, then the revert key.
  await press(app.stdin, KEY.ctrlX, KEY.right);
  await waitForFrame(app.lastFrame, (f) => f.includes('sub-agent session'));
  await press(app.stdin, KEY.ctrlX, 'u');
  await waitForFrame(app.lastFrame, (f) => /Revert build › general.*changes to 1 file \(its sub-agents' included\)\? y\/n/.test(f), 15_000);
  // A stray key neither confirms nor dismisses it.
  await press(app.stdin, 'x');
  expect(readFileSync(join(harness.projectDir, 'a.txt'), 'utf8')).toBe('alpha\nBETA\ngamma\n');
  await press(app.stdin, 'y');
  await waitForFrame(app.lastFrame, (f) => f.includes('1 file restored (a.txt)'), 15_000);
  expect(readFileSync(join(harness.projectDir, 'a.txt'), 'utf8')).toBe(ORIGINAL);
  const [edited] = harness.store.children(rootId);
  expect(harness.events.filter((e) => e.type === 'session.reverted')).toEqual([expect.objectContaining({ action: 'revert', session_id: edited!.id, files: ['a.txt'] })]);
}, 90_000);

it('says why a child cannot be reverted: it changed nothing, or a later edit overlaps (then nothing changes)', async () => {
  const { harness, rootId } = await twoChildren();
  h = harness;
  app = await openApp(harness.engine, { rootId });
  await press(app.stdin, 'run two', KEY.enter);
  await waitForFrame(app.lastFrame, (f) => f.includes('ALL-DONE'), 20_000);

  // In the parent's view the key offers the newest sub-agent that changed files; n dismisses it.
  await press(app.stdin, KEY.ctrlX, 'u');
  await waitForFrame(app.lastFrame, (f) => /Revert build › general \(Edit a\)'s changes to 1 file .*y\/n/.test(f), 15_000);
  await press(app.stdin, 'n');
  await waitForFrame(app.lastFrame, (f) => !f.includes('y/n'));
  expect(readFileSync(join(harness.projectDir, 'a.txt'), 'utf8')).toBe('alpha\nBETA\ngamma\n');

  // The second child only read: nothing to revert, no question asked.
  await press(app.stdin, KEY.ctrlX, KEY.left);
  await waitForFrame(app.lastFrame, (f) => f.includes('sub-agent session') && f.includes('read a'));
  await press(app.stdin, KEY.ctrlX, 'u');
  await waitForFrame(app.lastFrame, (f) => f.includes('changed no file: nothing to revert'), 15_000);

  // The first child's line, changed again by the user since: the revert refuses and names it.
  writeFileSync(join(harness.projectDir, 'a.txt'), 'alpha\nBETA by the user\ngamma\n');
  await press(app.stdin, KEY.ctrlX, KEY.left);
  await waitForFrame(app.lastFrame, (f) => f.includes('sub-agent session') && f.includes('edited a'));
  await press(app.stdin, KEY.ctrlX, 'u');
  await waitForFrame(app.lastFrame, (f) => f.includes('y/n'), 15_000);
  await press(app.stdin, 'y');
  const refused = await waitForFrame(app.lastFrame, (f) => f.includes('Nothing was restored'), 15_000);
  expect(refused).toContain('a.txt');
  expect(readFileSync(join(harness.projectDir, 'a.txt'), 'utf8')).toBe('alpha\nBETA by the user\ngamma\n');
}, 90_000);

it('a resumed session shows the stat of children that finished in an earlier run', async () => {
  const { harness, rootId } = await twoChildren();
  h = harness;
  await harness.engine.prompt(rootId, 'run two');
  // A new process: nothing cached, the stat comes from the stored snapshots.
  const later = harness.newEngine({ interactive: true, autoApprove: true });
  app = renderApp(later, { rootId });
  const frame = await waitForFrame(app.lastFrame, (f) => f.includes('+1 −1 in 1 file'), 15_000);
  expect(frame.match(/\+1 −1 in 1 file/g)).toHaveLength(1);
}, 90_000);
