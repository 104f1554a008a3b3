// `/undo` keeps the undone turn in view, marked `[undone]` and dimmed (as `sessions show`
// prints it), and `/redo` brings it back unmarked: against the real engine, its snapshots
// and the fake Messages API.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../../src/ui/app.js';
import { scriptConversations, toolUse } from '../../support/conversations.js';
import { reply, text } from '../../support/fake-anthropic.js';
import { startHarness, type Harness } from '../../support/harness.js';
import { closeApp } from './teardown.js';
import { KEY, press, waitForFrame } from '../keys/harness.js';

let h: Harness | undefined;
let app: ReturnType<typeof render> | undefined;
afterEach(async () => {
  await closeApp(app, h);
  app = undefined;
  h = undefined;
});

describe('undone turns in the transcript', () => {
  it('marks the turn /undo took out and unmarks it on /redo', async () => {
    h = await startHarness({ engine: { interactive: true } });
    scriptConversations(h.server, {
      'make a file': [reply(toolUse('write', { file_path: 'made.txt', content: 'made\n' })), text('WROTE-IT')],
    });
    const root = h.engine.createSession();
    app = render(<App core={h.engine} rootId={root.id} initialPrompt="make a file" />);
    await waitForFrame(app.lastFrame, (f) => f.includes('Allow once'), 10_000);
    await press(app.stdin, '1');
    await waitForFrame(app.lastFrame, (f) => f.includes('WROTE-IT'), 10_000);
    const made = join(h.projectDir, 'made.txt');
    expect(existsSync(made)).toBe(true);

    app.stdin.write('/undo');
    await waitForFrame(app.lastFrame, (f) => f.includes('/undo'));
    await press(app.stdin, KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('Undid "make a file"'), 10_000);
    expect(existsSync(made)).toBe(false);
    const undone = await waitForFrame(app.lastFrame, (f) => f.includes('[undone]'));
    expect(undone).toContain('[undone] › make a file');
    expect(undone).toContain('[undone] WROTE-IT');

    app.stdin.write('/redo');
    await waitForFrame(app.lastFrame, (f) => f.includes('/redo'));
    await press(app.stdin, KEY.enter);
    // The test terminal keeps what was printed before the repaint's clear: read after its last header.
    const afterRepaint = (f: string) => f.slice(f.lastIndexOf('build · make a file'));
    await waitForFrame(app.lastFrame, (f) => f.includes('Redid "make a file"'), 10_000);
    const redone = afterRepaint(await waitForFrame(app.lastFrame, (f) => !afterRepaint(f).includes('[undone]')));
    expect(redone).toContain('› make a file');
  });
});
