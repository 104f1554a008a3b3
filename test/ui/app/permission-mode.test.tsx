// Shift+Tab in the app (DESIGN §26), against the real engine and the fake Messages API: it
// cycles default → acceptEdits → plan → default, the status line names the mode, and the
// engine checks the next tool call in the mode shown.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../../src/ui/app.js';
import { MODE_BADGES } from '../../../src/ui/components/status-line.js';
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

describe('Shift+Tab', () => {
  it('cycles the permission mode, shows it in the status line, and the engine applies it', async () => {
    h = await startHarness({ engine: { interactive: true } });
    const root = h.engine.createSession();
    app = render(<App core={h.engine} rootId={root.id} />);
    const first = await waitForFrame(app.lastFrame, (f) => f.includes('Ask anything'));
    expect(first).not.toMatch(/accept edits on|plan mode on/);

    await press(app.stdin, KEY.shiftTab);
    await waitForFrame(app.lastFrame, (f) => f.includes(MODE_BADGES.acceptEdits));
    expect(h.engine.permissionMode(root.id)).toBe('acceptEdits');

    // In acceptEdits the write runs without a dialog.
    scriptConversations(h.server, { 'write it': [reply(toolUse('write', { file_path: 'made.txt', content: 'x\n' })), text('written')] });
    await press(app.stdin, 'write it', KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('written'), 10_000);
    expect(existsSync(join(h.projectDir, 'made.txt'))).toBe(true);

    await press(app.stdin, KEY.shiftTab);
    await waitForFrame(app.lastFrame, (f) => f.includes(MODE_BADGES.plan) && !f.includes(MODE_BADGES.acceptEdits));
    expect(h.engine.permissionMode(root.id)).toBe('plan');

    await press(app.stdin, KEY.shiftTab);
    await waitForFrame(app.lastFrame, (f) => !f.includes(MODE_BADGES.plan));
    expect(h.engine.permissionMode(root.id)).toBe('default');
  });

  it('starts from the engine’s mode (--permission-mode, --yes) and leaves it for default', async () => {
    h = await startHarness({ engine: { interactive: true, permissionMode: 'bypassPermissions' } });
    const root = h.engine.createSession();
    app = render(<App core={h.engine} rootId={root.id} />);
    await waitForFrame(app.lastFrame, (f) => f.includes(MODE_BADGES.bypassPermissions));
    await press(app.stdin, KEY.shiftTab);
    await waitForFrame(app.lastFrame, (f) => !f.includes(MODE_BADGES.bypassPermissions) && f.includes('Ask anything'));
    expect(h.engine.permissionMode(root.id)).toBe('default');
  });
});
