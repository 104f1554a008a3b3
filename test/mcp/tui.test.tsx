// `/mcp` in the TUI: the panel shows each server's state and tools (starting them if no turn
// has yet), and a server that failed with its error.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, type RenderedApp } from '../support/app.js';
import { startHarness, type Harness } from '../support/harness.js';
import { closeApp } from '../ui/app/teardown.js';
import { KEY, press, waitForFrame } from '../ui/keys/harness.js';
import { held, scriptConversations } from '../support/conversations.js';
import { text, toolUse } from '../support/fake-anthropic.js';
import { CRASHY, waitUntilGone } from './processes.js';

let h: Harness | undefined;
let app: RenderedApp | undefined;
afterEach(async () => {
  await h?.engine.close();
  await closeApp(app, h);
  app = undefined;
  h = undefined;
});

describe('/mcp', () => {
  it('lists servers with their state, tools and errors', async () => {
    h = await startHarness({
      config: { mcp: { crashy: { type: 'local', command: [process.execPath, CRASHY] }, broken: { type: 'local', command: ['/nonexistent/server'] } } },
      engine: { interactive: true },
    });
    app = await openApp(h.engine);
    await press(app.stdin, '/mcp');
    await press(app.stdin, KEY.escape);
    await press(app.stdin, KEY.enter);
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('mcp__crashy__ok') && f.includes('broken'), 10_000);
    expect(frame).toContain('MCP servers');
    expect(frame).toMatch(/crashy {2}connected \(6 tools\) {2}local/);
    expect(frame).toMatch(/broken {2}failed {2}local/);
    expect(frame).toContain('error: cannot start "/nonexistent/server"');
    expect(h.server.requests).toHaveLength(0);
  });

  it("lists a live session's own servers under its agent and session", async () => {
    const marker = `own-${randomUUID()}`;
    const agentFile = [
      '---',
      'name: helper',
      'description: Has a server of its own',
      'mcpServers:',
      '  - own:',
      `      command: ${JSON.stringify(process.execPath)}`,
      `      args: [${JSON.stringify(CRASHY)}, ${marker}]`,
      '---',
      'Help.',
    ].join('\n');
    h = await startHarness({ files: { '.claude/agents/helper.md': agentFile }, engine: { interactive: true } });
    const stuck = held(text('child done'));
    scriptConversations(h.server, {
      'delegate': [toolUse('task', { description: 'use it', prompt: 'child work', subagent_type: 'helper' }), text('done')],
      'child work': [stuck.reply],
    });
    app = await openApp(h.engine);
    const root = h.engine.createSession();
    const turn = h.engine.prompt(root.id, 'delegate');
    // The root's request, then the child's, held: the child's own server is up.
    await h.server.waitForRequests(2);
    await press(app.stdin, '/mcp');
    await press(app.stdin, KEY.escape);
    await press(app.stdin, KEY.enter);
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('agent helper'), 10_000);
    const child = h.engine.agentMcpStatus()[0]!;
    expect(frame).toContain(`agent helper · session ${child.session_id}`);
    expect(frame).toMatch(/ {2}own {2}connected \(6 tools\) {2}local/);
    expect(frame).toContain('mcp__own__ok');
    stuck.open();
    expect((await turn).status).toBe('completed');
    await waitUntilGone(marker);
    expect(h.engine.agentMcpStatus()).toEqual([]);
  });
});
