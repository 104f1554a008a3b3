// Custom commands in the whole app: the `/` menu offers them with their descriptions, Tab
// completes one, Enter runs it as a sub-agent task block, and a typo is named without a
// model call.
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, type RenderedApp } from '../../support/app.js';
import { firstUserText, scriptConversations } from '../../support/conversations.js';
import { text } from '../../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../../support/harness.js';
import { closeApp } from './teardown.js';
import { KEY, press, waitForFrame } from '../keys/harness.js';

let h: Harness | undefined;
let app: RenderedApp | undefined;
afterEach(async () => {
  await closeApp(app, h);
  app = undefined;
  h = undefined;
});

const FILES = {
  '.opencode/command/review.md': '---\ndescription: Review a file for bugs\nagent: explore\nargument-hint: <file>\n---\nReview $1 for bugs.\n',
  '.claude/commands/release-notes.md': '---\ndescription: Draft release notes\n---\nDraft release notes.\n',
};

/** The whole app over a project holding `files`, on a fresh session, ready for typing. */
async function openAppWith(files: Record<string, string>): Promise<{ h: Harness; app: RenderedApp; rootId: string }> {
  h = await startHarness({ files, engine: { interactive: true } });
  app = await openApp(h.engine);
  return { h, app, rootId: app.rootId };
}

/** Types a command and sends it as typed (Esc closes the completion menu first). */
async function submit(app: RenderedApp, typed: string): Promise<void> {
  await press(app.stdin, typed);
  await press(app.stdin, KEY.escape);
  await press(app.stdin, KEY.enter);
}

describe('custom commands in the TUI', () => {
  it('offers custom commands in the / menu, completes one and runs it as a sub-agent task', async () => {
    h = await startHarness({ files: FILES, engine: { interactive: true } });
    scriptConversations(h.server, {
      'Review src/a.ts for bugs.': [text('Nothing wrong.')],
      '/review src/a.ts': [text('The reviewer is happy.')],
    });
    app = await openApp(h.engine);
    const rootId = app.rootId;

    await press(app.stdin, '/');
    // Built-ins first (they fill the first page), then custom commands with their argument hints and descriptions.
    const all = await waitForFrame(app.lastFrame, (f) => f.includes('/help') && f.includes('/compact'));
    expect(all).not.toContain('/review');
    await press(app.stdin, 're');
    const menu = await waitForFrame(app.lastFrame, (f) => f.includes('/review') && f.includes('/release-notes'));
    expect(menu).toContain('<file> — Review a file for bugs');
    expect(menu).toContain('Draft release notes');
    expect(menu).not.toContain('/help');

    await press(app.stdin, 'v', KEY.tab);
    await waitForFrame(app.lastFrame, (f) => f.includes('/review ') && !f.includes('/release-notes'));
    await press(app.stdin, 'src/a.ts', KEY.enter);

    await waitForEvent(h.engine, (e) => e.type === 'turn.completed' && e.session_id === rootId, 10_000);
    const screen = await waitForFrame(app.lastFrame, (f) => f.includes('The reviewer is happy.'));
    expect(app.frames.join('\n')).toMatch(/explore[\s\S]*Review a file for bugs/);
    expect(screen).not.toMatch(/Unknown command/);
    expect(h.server.requests.map(firstUserText)).toEqual(['Review src/a.ts for bugs.', '/review src/a.ts']);
  });

  it('names the close match for a mistyped command and sends nothing', async () => {
    const { h, app, rootId } = await openAppWith(FILES);
    await submit(app, '/reveiw x');
    await waitForFrame(app.lastFrame, (f) => f.includes('Unknown command /reveiw. Did you mean /review?'));
    expect(h.server.requests).toHaveLength(0);
    expect(h.store.loadMessages(rootId)).toHaveLength(0);
  });

  it('lists custom commands in /help', async () => {
    const { app } = await openAppWith(FILES);
    await submit(app, '/help');
    await waitForFrame(app.lastFrame, (f) => f.includes('Help') && f.includes('Esc closes'));
    // Scrolled to the end, past the built-in commands, to the project's own.
    for (let i = 0; i < 40; i++) await press(app.stdin, KEY.down);
    const help = await waitForFrame(app.lastFrame, (f) => f.includes('/review') && f.includes('/release-notes'));
    expect(help).toContain('Draft release notes');
    expect(app.frames.join('\n')).toContain('/sessions');
  });
});

describe('panels on a small screen', () => {
  it('keeps /help within 24 rows and scrolls to the last command', async () => {
    const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`.opencode/command/cmd${String(i).padStart(2, '0')}.md`, `---\ndescription: command ${i}\n---\nDo ${i}.\n`]));
    const { app } = await openAppWith(many);
    await submit(app, '/help');
    const help = await waitForFrame(app.lastFrame, (f) => f.includes('Help') && f.includes('Esc closes'));
    // ink-testing-library reports no height, so the app assumes 24 rows; the live region
    // (from the panel down) keeps one row free.
    const liveRows = (frame: string) => frame.split('\n').length - frame.split('\n').findIndex((l) => l.startsWith('╭'));
    expect(liveRows(help)).toBeLessThanOrEqual(23);
    expect(help).toMatch(/↑↓ more \(1–\d+ of \d+\)/);
    expect(help).not.toContain('/cmd19');
    for (let i = 0; i < 60; i++) await press(app.stdin, KEY.down);
    const bottom = await waitForFrame(app.lastFrame, (f) => f.includes('/cmd19'));
    expect(liveRows(bottom)).toBeLessThanOrEqual(23);
    expect(bottom).not.toContain('Keys');
  });
});
