// `/mcp` in the TUI: the panel shows each server's state and tools (starting them if no turn
// has yet), and a server that failed with its error.
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, type RenderedApp } from '../support/app.js';
import { startHarness, type Harness } from '../support/harness.js';
import { closeApp } from '../ui/app/teardown.js';
import { KEY, press, waitForFrame } from '../ui/keys/harness.js';
import { CRASHY } from './processes.js';

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
});
