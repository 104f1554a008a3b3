// Selecting a sub-agent's block in the parent's view (the `session_child_select` key, DESIGN
// §18): ↑/↓ move a visible `❯` over the task blocks, `o` shows the selected child's diff alone,
// `u` (and the revert key) asks y/n and reverts that child only, Enter steps into its view,
// Esc leaves. Real engine, real git, turns scripted through the fake Messages API.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { render } from 'ink-testing-library';
import { afterEach, expect, it } from 'vitest';
import { App } from '../../src/ui/app.js';
import { scriptConversations } from '../support/conversations.js';
import { reply, text, type ScriptedBlock } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { closeApp } from '../ui/app/teardown.js';
import { KEY, press, waitForFrame } from '../ui/keys/harness.js';

let h: Harness | undefined;
let app: ReturnType<typeof render> | undefined;
afterEach(async () => {
  await closeApp(app, h);
  app = undefined;
  h = undefined;
});

let seq = 0;
const use = (name: string, input: Record<string, unknown>): ScriptedBlock => ({ type: 'tool_use', name, input, id: `toolu_${name}_${++seq}` });
const NUMBERS = [1, 2, 3, 4, 5] as const;
const file = (n: number) => `f${n}.txt`;

/** The header lines of the top-level blocks carrying the selection marker. */
function markedBlocks(frame: string): string[] {
  return frame.split('\n').filter((line) => /^❯ \S general Edit \d/.test(line));
}

it('selects the third of five finished children, shows its diff alone, and reverts it alone after y', async () => {
  const files = Object.fromEntries(NUMBERS.map((n) => [file(n), `old ${n}\n`]));
  const harness = await startHarness({ files, engine: { interactive: true, autoApprove: true } });
  h = harness;
  // One child at a time: children running side by side share the working tree, so each one's
  // snapshots would hold the others' edits too.
  scriptConversations(harness.server, {
    'run five': [...NUMBERS.map((n) => reply(use('task', { description: `Edit ${n}`, prompt: `edit file ${n}`, subagent_type: 'general' }))), text('ALL-DONE')],
    ...Object.fromEntries(
      NUMBERS.map((n) => [
        `edit file ${n}`,
        [reply(use('read', { file_path: file(n) })), reply(use('edit', { file_path: file(n), old_string: `old ${n}`, new_string: `new ${n}` })), text(`edited ${n}`)],
      ]),
    ),
  });
  const rootId = harness.engine.createSession().id;
  app = render(<App core={harness.engine} rootId={rootId} />);
  await waitForFrame(app.lastFrame, (f) => f.includes('Ask anything'));
  await press(app.stdin, 'run five', KEY.enter);
  await waitForFrame(app.lastFrame, (f) => f.includes('ALL-DONE') && (f.match(/\+1 −1 in 1 file/g) ?? []).length >= 5, 60_000);

  // The key starts at the newest block; two ↑ reach the third.
  await press(app.stdin, KEY.ctrlX, 's');
  await waitForFrame(app.lastFrame, (f) => f.includes('❯ sub-agent 5 of 5 · ↑↓ move · enter open · u revert · o diff · esc done · build › general (Edit 5)'));
  await press(app.stdin, KEY.up, KEY.up);
  const third = await waitForFrame(app.lastFrame, (f) => f.includes('❯ sub-agent 3 of 5 · ↑↓ move · enter open · u revert · o diff · esc done · build › general (Edit 3)'));
  // The block itself carries the marker (the newest reprint is last in the captured output).
  expect(markedBlocks(third).at(-1)).toContain('Edit 3');

  // `o` shows that child's diff, no other.
  await press(app.stdin, 'o');
  const diff = await waitForFrame(app.lastFrame, (f) => f.includes('- old 3') && f.includes('+ new 3'), 15_000);
  expect(diff).not.toMatch(/- old [1245]/);

  // The revert key acts on the selection too; n leaves everything as it was.
  await press(app.stdin, KEY.up);
  await waitForFrame(app.lastFrame, (f) => f.includes('❯ sub-agent 2 of 5'));
  await press(app.stdin, KEY.ctrlX, 'u');
  await waitForFrame(app.lastFrame, (f) => /Revert build › general \(Edit 2\)'s changes to 1 file .*y\/n/.test(f), 15_000);
  await press(app.stdin, 'n');
  await waitForFrame(app.lastFrame, (f) => !f.includes('y/n'));

  // Back on the third: `u`, then y, reverts it alone.
  await press(app.stdin, KEY.down);
  await waitForFrame(app.lastFrame, (f) => f.includes('❯ sub-agent 3 of 5'));
  await press(app.stdin, 'u');
  await waitForFrame(app.lastFrame, (f) => /Revert build › general \(Edit 3\)'s changes to 1 file .*y\/n/.test(f), 15_000);
  await press(app.stdin, 'y');
  await waitForFrame(app.lastFrame, (f) => f.includes('1 file restored (f3.txt)'), 15_000);
  for (const n of NUMBERS) expect(readFileSync(join(harness.projectDir, file(n)), 'utf8')).toBe(n === 3 ? 'old 3\n' : `new ${n}\n`);
  const edited3 = harness.store.children(rootId).find((c) => c.task_description === 'Edit 3');
  expect(harness.events.filter((e) => e.type === 'session.reverted')).toEqual([expect.objectContaining({ action: 'revert', session_id: edited3!.id, files: [file(3)] })]);

  // Enter steps into the selected child's view; Esc there is the prompt's again.
  await press(app.stdin, KEY.enter);
  const child = await waitForFrame(app.lastFrame, (f) => f.includes('sub-agent session') && f.includes('edited 3'));
  expect(child).not.toContain('❯ sub-agent');
}, 150_000);

it('with no sub-agent block the key says so; Esc leaves the mode and the prompt has the keys again', async () => {
  const harness = await startHarness({ engine: { interactive: true, autoApprove: true } });
  h = harness;
  scriptConversations(harness.server, {
    'one child': [reply(use('task', { description: 'Look', prompt: 'look around', subagent_type: 'general' })), text('LOOKED')],
    'look around': [text('nothing to see')],
  });
  const rootId = harness.engine.createSession().id;
  app = render(<App core={harness.engine} rootId={rootId} />);
  await waitForFrame(app.lastFrame, (f) => f.includes('Ask anything'));
  await press(app.stdin, KEY.ctrlX, 's');
  await waitForFrame(app.lastFrame, (f) => f.includes('No sub-agent blocks in this view to select.'));

  await press(app.stdin, 'one child', KEY.enter);
  await waitForFrame(app.lastFrame, (f) => f.includes('LOOKED'), 20_000);
  await press(app.stdin, KEY.ctrlX, 's');
  await waitForFrame(app.lastFrame, (f) => f.includes('❯ sub-agent 1 of 1 · ↑↓ move · enter open · u revert · o diff · esc done · build › general (Look)'));
  // Printable keys do not reach the prompt while the mode is on.
  await press(app.stdin, 'zz');
  await press(app.stdin, KEY.escape);
  await waitForFrame(app.lastFrame, (f) => !f.includes('❯ sub-agent'));
  await press(app.stdin, 'typed');
  const typed = await waitForFrame(app.lastFrame, (f) => f.includes('typed'));
  expect(typed).not.toContain('zztyped');
}, 150_000);
