// MCP stdio servers that opt in (`mcp.<server>.sandbox: true`) start inside the sandbox, and
// are not started at all when it is unavailable.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { text, toolResults, toolUse } from '../support/fake-anthropic.js';
import { REPO_ROOT, startHarness, type Harness } from '../support/harness.js';
import { CRASHY } from '../mcp/processes.js';
import { removeDir } from '../tools/context.js';
import { bwrapMissing, makeVisibleTempDir } from './support.js';

let h: Harness | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await h?.engine.close();
  await h?.close();
  h = undefined;
  for (const d of dirs.splice(0)) removeDir(d);
});

/** A server that first tries to write outside the project, then serves `ok`. */
function server(outside: string, sandbox: boolean) {
  return { type: 'local', command: ['/bin/sh', '-c', `touch ${outside}/mark 2>/dev/null; exec ${process.execPath} ${CRASHY}`], sandbox };
}

describe.skipIf(bwrapMissing !== undefined)('an MCP server with sandbox: true', () => {
  it('serves its tools from inside the sandbox, where it cannot write outside the project', async () => {
    const outside = makeVisibleTempDir('oci-mcp-outside-');
    dirs.push(outside);
    // The server's script and its dependencies live in this repository, which may be under
    // /tmp (a fresh clone): the sandbox's private /tmp would hide it, so it is named visible.
    h = await startHarness({ config: { mcp: { boxed: server(outside, true) }, permission: { 'mcp__*': 'allow' }, sandbox: { allow_write: [REPO_ROOT] } } });
    scriptConversations(h.server, { call: [toolUse('mcp__boxed__ok', { word: 'inside' }), text('done')] });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'call')).status).toBe('completed');
    expect(String(toolResults(requestsOf(h.server, 'call')[1]!)[0]!.content)).toContain('ok inside');
    expect(existsSync(join(outside, 'mark'))).toBe(false);
  });
});

describe('an MCP server with sandbox: true and no sandbox', () => {
  it('is not started, with a warning naming why, while other servers start', async () => {
    const outside = makeVisibleTempDir('oci-mcp-outside-');
    dirs.push(outside);
    const warnings: string[] = [];
    h = await startHarness({
      config: { mcp: { boxed: server(outside, true), plain: server(outside, false) }, permission: { 'mcp__*': 'allow' } },
      env: { OPENCODE_INK_BWRAP: '/nonexistent/bwrap' },
      engine: { onWarning: (line) => warnings.push(line) },
    });
    scriptConversations(h.server, { call: [toolUse('mcp__plain__ok', { word: 'host' }), text('done')] });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'call')).status).toBe('completed');
    expect(warnings).toEqual([
      'Warning: MCP server "boxed" failed to start: not started: it asks for the sandbox, which is unavailable: /nonexistent/bwrap was not found (install the "bubblewrap" package)',
    ]);
    expect(String(toolResults(requestsOf(h.server, 'call')[1]!)[0]!.content)).toContain('ok host');
    // The unsandboxed one did write: the test would notice a sandboxed server that did not.
    expect(existsSync(join(outside, 'mark'))).toBe(true);
  });
});
