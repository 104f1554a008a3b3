// The block-selection mode (`ctrl+x s`, DESIGN §18) with keys as a terminal really delivers
// them: `u` and `y` in one write revert the selected sub-agent (the y/n question opens only
// once the core has answered, and the `y` waits for it), the revert key too; while a block is
// selected the prompt draws no cursor and a key the mode does not use says so instead of
// vanishing; on a 40x10 terminal the hint and the y/n question fit, keys included. Real
// engine, real git, turns scripted through the fake Messages API.
import chalk from 'chalk';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { render } from 'ink-testing-library';
import { afterEach, expect, it } from 'vitest';
import { App } from '../../src/ui/app.js';
import { displayWidth } from '../../src/ui/render/text.js';
import { scriptConversations } from '../support/conversations.js';
import { reply, text, type ScriptedBlock } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { renderSized } from '../support/sized-render.js';
import { KEY, press, waitForFrame } from '../ui/keys/harness.js';

let h: Harness | undefined;
let app: { unmount(): void } | undefined;
const savedLevel = chalk.level;
afterEach(async () => {
  app?.unmount();
  app = undefined;
  h?.engine.cancelAll();
  await h?.close();
  h = undefined;
  chalk.level = savedLevel;
});

let seq = 0;
const use = (name: string, input: Record<string, unknown>): ScriptedBlock => ({ type: 'tool_use', name, input, id: `toolu_${name}_${++seq}` });
const file = (n: number) => `f${n}.txt`;
/** The inverse-video cell the prompt draws as its cursor. */
const CURSOR = '\u001B[7m';

/** Two finished sub-agents, one after the other, each changing its own file. */
async function twoChildren(description: (n: number) => string = (n) => `Edit ${n}`): Promise<Harness> {
  const harness = await startHarness({ files: { [file(1)]: 'old 1\n', [file(2)]: 'old 2\n' }, engine: { interactive: true, autoApprove: true } });
  h = harness;
  scriptConversations(harness.server, {
    'run two': [reply(use('task', { description: description(1), prompt: 'edit file 1', subagent_type: 'general' })), reply(use('task', { description: description(2), prompt: 'edit file 2', subagent_type: 'general' })), text('ALL-DONE')],
    ...Object.fromEntries(
      [1, 2].map((n) => [
        `edit file ${n}`,
        // The last reply answers a message sent to the finished child from its view.
        [reply(use('read', { file_path: file(n) })), reply(use('edit', { file_path: file(n), old_string: `old ${n}`, new_string: `new ${n}` })), text(`edited ${n}`), text(`CONTINUED ${n}`)],
      ]),
    ),
  });
  return harness;
}

async function runTwo(ui: { lastFrame(): string | undefined; stdin: { write(data: string): void } }): Promise<void> {
  await waitForFrame(ui.lastFrame, (f) => f.includes('Ask anything'));
  await press(ui.stdin, 'run two', KEY.enter);
  await waitForFrame(ui.lastFrame, (f) => f.includes('ALL-DONE') && (stripVTControlCharacters(f).match(/\+1 −1 in 1 file/g) ?? []).length >= 2, 60_000);
}

const contents = (harness: Harness) => [1, 2].map((n) => readFileSync(join(harness.projectDir, file(n)), 'utf8'));

it('`uy` in one write reverts the selected sub-agent, so does the revert key with `y`, and Enter with text sends it to the opened child', async () => {
  const harness = await twoChildren();
  const rootId = harness.engine.createSession().id;
  const ui = render(<App core={harness.engine} rootId={rootId} />);
  app = ui;
  await runTwo(ui);

  await press(ui.stdin, KEY.ctrlX, 's');
  await waitForFrame(ui.lastFrame, (f) => f.includes('❯ sub-agent 2 of 2'));
  ui.stdin.write('uy');
  await waitForFrame(ui.lastFrame, (f) => f.includes('1 file restored (f2.txt)'), 15_000);
  expect(contents(harness)).toEqual(['new 1\n', 'old 2\n']);

  await press(ui.stdin, KEY.up);
  await waitForFrame(ui.lastFrame, (f) => f.includes('❯ sub-agent 1 of 2'));
  ui.stdin.write(`${KEY.ctrlX}uy`);
  await waitForFrame(ui.lastFrame, (f) => f.includes('1 file restored (f1.txt)'), 15_000);
  expect(contents(harness)).toEqual(['old 1\n', 'old 2\n']);

  // Enter opens the child's view; what follows in the same write goes to that view's prompt.
  ui.stdin.write('\rgo on\r');
  await waitForFrame(ui.lastFrame, (f) => f.includes('sub-agent session') && f.includes('CONTINUED 1'), 15_000);
}, 150_000);

it('hides the prompt cursor while a block is selected and says so when a key goes nowhere', async () => {
  chalk.level = 1;
  const harness = await twoChildren();
  const rootId = harness.engine.createSession().id;
  const ui = render(<App core={harness.engine} rootId={rootId} />);
  app = ui;
  await runTwo(ui);
  const promptLine = (frame: string) => frame.split('\n').filter((l) => l.includes('build')).at(-2) ?? '';
  expect(promptLine(ui.lastFrame() ?? '')).toContain(CURSOR);

  await press(ui.stdin, KEY.ctrlX, 's');
  const selecting = await waitForFrame(ui.lastFrame, (f) => f.includes('❯ sub-agent 2 of 2') && f.includes('esc to type here'));
  expect(promptLine(selecting)).toContain('esc to type here');
  expect(promptLine(selecting)).not.toContain(CURSOR);

  // A letter the mode does not use is not typed, and the screen says why.
  await press(ui.stdin, 'z');
  await waitForFrame(ui.lastFrame, (f) => f.includes('Not typed: esc leaves the selection'));
  // A key of the mode takes the warning down.
  await press(ui.stdin, KEY.up);
  await waitForFrame(ui.lastFrame, (f) => f.includes('❯ sub-agent 1 of 2') && !f.includes('Not typed'));

  await press(ui.stdin, KEY.escape);
  const back = await waitForFrame(ui.lastFrame, (f) => !f.includes('❯ sub-agent') && f.includes('Ask anything'));
  expect(promptLine(back)).toContain(CURSOR);
  await press(ui.stdin, 'typed');
  const typed = await waitForFrame(ui.lastFrame, (f) => f.includes('typed'));
  expect(typed).not.toContain('ztyped');
}, 150_000);

it('on a 40x10 terminal the hint names the block and every key, and the y/n question keeps its y/n', async () => {
  const harness = await twoChildren((n) => `Edit file number ${n} with a long description`);
  const rootId = harness.engine.createSession().id;
  const ui = renderSized(<App core={harness.engine} rootId={rootId} />, { columns: 40, rows: 10 });
  app = ui;
  await runTwo(ui);
  /** The live region: what is below the last printed line the run left (the turn's answer). */
  const live = (frame: string) => frame.split('\n').slice(frame.split('\n').lastIndexOf('ALL-DONE') + 1);

  // The layout is what this test is about; keys in one write are the tmux test's.
  await press(ui.stdin, KEY.ctrlX, 's');
  await waitForFrame(ui.lastFrame, (f) => f.includes('❯ 2/2 build › general (Edit file number'));
  await press(ui.stdin, KEY.up);
  const selected = await waitForFrame(ui.lastFrame, (f) => f.includes('❯ 1/2 build › general (Edit file number'));
  const rows = live(selected);
  expect(rows).toContain('↑↓ enter open · u revert · o diff · esc');
  for (const row of rows) expect(displayWidth(row)).toBeLessThanOrEqual(40);
  expect(rows.length).toBeLessThan(10);

  await press(ui.stdin, 'u');
  const asked = await waitForFrame(ui.lastFrame, (f) => f.includes('Revert build › general'), 15_000);
  const question = live(asked).find((l) => l.startsWith('Revert build › general')) ?? '';
  expect(question).toMatch(/… y\/n$/);
  for (const row of live(asked)) expect(displayWidth(row)).toBeLessThanOrEqual(40);
  await press(ui.stdin, 'y');
  await waitForFrame(ui.lastFrame, (f) => f.includes('restored (f1.txt)'), 15_000);
  expect(contents(harness)).toEqual(['old 1\n', 'new 2\n']);
}, 150_000);
