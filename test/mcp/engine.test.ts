// MCP servers through the real engine: the reference server over stdio, tools offered with
// their schemas, called by the parent and by an allowlisted child on one connection,
// permission rules, a server that fails to start, one that dies mid-call, and no server
// process left once the engine is closed.
import { afterEach, describe, expect, it } from 'vitest';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { reply, text, toolNames, toolResults, toolUse, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../support/harness.js';
import { childPids, CRASHY, EVERYTHING, waitForChild, waitUntilGone } from './processes.js';

let h: Harness | undefined;
const engines: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close();
  await h?.close();
  h = undefined;
});

const everything = { type: 'local', command: [process.execPath, EVERYTHING, 'stdio'] };
const resultText = (req: RecordedRequest) => toolResults(req).map((r) => (typeof r.content === 'string' ? r.content : JSON.stringify(r.content)));

describe('MCP servers in sessions', () => {
  it('offers the server tools with their schemas, calls them for parent and allowlisted child over one process, and stops it on close', async () => {
    const warnings: string[] = [];
    h = await startHarness({
      config: {
        mcp: { everything, broken: { type: 'local', command: ['/nonexistent/mcp-server-binary'] } },
        permission: { 'mcp__everything__echo': 'allow' },
      },
      files: {
        '.claude/agents/helper.md': '---\nname: helper\ndescription: Uses the everything server\ntools: mcp__everything__*\n---\nHelp.',
      },
      engine: { onWarning: (line) => warnings.push(line) },
    });
    engines.push(h.engine);
    scriptConversations(h.server, {
      'use mcp': [
        reply(
          { type: 'tool_use', name: 'mcp__everything__echo', input: { message: 'hello mcp' }, id: 'toolu_echo' },
          { type: 'tool_use', name: 'mcp__everything__get-sum', input: { a: 2, b: 3 }, id: 'toolu_sum' },
        ),
        toolUse('task', { description: 'Echo in child', prompt: 'child echo', subagent_type: 'helper' }),
        text('done'),
      ],
      'child echo': [toolUse('mcp__everything__echo', { message: 'from child' }), text('child done')],
    });
    const root = h.engine.createSession();
    const outcome = await h.engine.prompt(root.id, 'use mcp');
    expect(outcome).toMatchObject({ status: 'completed', text: 'done' });

    const [first, second, third] = requestsOf(h.server, 'use mcp');
    const echo = first!.body.tools!.find((t) => t.name === 'mcp__everything__echo')!;
    expect(echo.input_schema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] });
    expect(toolNames(first!)).toContain('mcp__everything__get-sum');
    expect(toolNames(first!)).not.toContain(expect.stringMatching(/^mcp__broken/));

    // Allowed by the rule; get-sum asks, and nobody can answer in a non-interactive run.
    const results = toolResults(second!);
    expect(results[0]).toMatchObject({ tool_use_id: 'toolu_echo' });
    expect(resultText(second!)[0]).toContain('hello mcp');
    expect(results[1]).toMatchObject({ tool_use_id: 'toolu_sum', is_error: true });
    expect(resultText(second!)[1]).toMatch(/needs approval, and nobody can approve it/);

    // The child sees only what its allowlist gives, and uses the parent's connection.
    const [childFirst, childSecond] = requestsOf(h.server, 'child echo');
    expect(toolNames(childFirst!).filter((n) => !n.startsWith('mcp__everything__'))).toEqual(['ask_user']);
    expect(toolNames(childFirst!)).toContain('mcp__everything__echo');
    expect(resultText(childSecond!)[0]).toContain('from child');
    expect(resultText(third!)[0]).toContain('child done');

    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^Warning: MCP server "broken" failed to start: /);
    const states = h.engine.mcp.states();
    expect(states.find((s) => s.name === 'broken')).toMatchObject({ status: 'failed' });
    expect(states.find((s) => s.name === 'everything')).toMatchObject({ status: 'connected' });

    expect(childPids(EVERYTHING)).toHaveLength(1);
    await h.engine.close();
    await waitUntilGone(EVERYTHING);
  });

  it('lets --yes approve an MCP tool that asks, while a deny rule removes it', async () => {
    h = await startHarness({
      config: { mcp: { everything }, permission: { 'mcp__everything__get-env': 'deny' } },
      engine: { autoApprove: true },
    });
    engines.push(h.engine);
    scriptConversations(h.server, { 'add numbers': [toolUse('mcp__everything__get-sum', { a: 20, b: 22 }), text('42')] });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'add numbers');
    const [first, second] = requestsOf(h.server, 'add numbers');
    expect(toolNames(first!)).not.toContain('mcp__everything__get-env');
    expect(toolResults(second!)[0]!.is_error).toBeFalsy();
    expect(resultText(second!)[0]).toContain('42');
  });

  it('turns a server that dies mid-call into an error result, marks it failed and drops its tools', async () => {
    h = await startHarness({ config: { mcp: { crashy: { type: 'local', command: [process.execPath, CRASHY] } }, permission: { 'mcp__*': 'allow' } } });
    engines.push(h.engine);
    scriptConversations(h.server, {
      'crash it': [
        toolUse('mcp__crashy__image', {}),
        toolUse('mcp__crashy__big', {}),
        toolUse('mcp__crashy__fail', {}),
        toolUse('mcp__crashy__crash', {}),
        text('after the crash'),
      ],
      'next turn': [text('still here')],
    });
    const root = h.engine.createSession();
    expect(await h.engine.prompt(root.id, 'crash it')).toMatchObject({ status: 'completed' });
    const requests = requestsOf(h.server, 'crash it');
    expect(resultText(requests[1]!)[0]).toBe('[image: image/png, 10 bytes]\n{\n  "width": 2,\n  "height": 5\n}');
    expect(resultText(requests[2]!)[0]).toMatch(/^x{30000}\n\n\[Output truncated: 20000 more characters omitted\.\]$/);
    expect(toolResults(requests[3]!)[0]).toMatchObject({ is_error: true, content: 'it broke' });
    expect(toolResults(requests[4]!)[0]).toMatchObject({ is_error: true });
    expect(resultText(requests[4]!)[0]).toMatch(/crashy/);
    expect(h.engine.mcp.states()[0]).toMatchObject({ name: 'crashy', status: 'failed' });

    await h.engine.prompt(root.id, 'next turn');
    const next = h.server.requests[h.server.requests.length - 1]!;
    expect(toolNames(next).some((n) => n.startsWith('mcp__crashy__'))).toBe(false);
    await waitUntilGone(CRASHY);
  });

  it('picks up a tools/list_changed announcement for the next turn', async () => {
    h = await startHarness({ config: { mcp: { crashy: { type: 'local', command: [process.execPath, CRASHY] } }, permission: { 'mcp__*': 'allow' } } });
    engines.push(h.engine);
    h.server.enqueue(toolUse('mcp__crashy__add_tool', {}), text('added'), toolUse('mcp__crashy__later', {}), text('used'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'add a tool');
    expect(toolNames(h.server.requests[0]!)).not.toContain('mcp__crashy__later');
    // The announcement may trail the call's result; the next turn needs it.
    if (!h.engine.mcp.tools().some((t) => t.name === 'mcp__crashy__later')) await new Promise<void>((resolve) => h!.engine.mcp.onChange(resolve));
    await h.engine.prompt(root.id, 'use it');
    const [first, second] = h.server.requests.slice(2);
    expect(toolNames(first!)).toContain('mcp__crashy__later');
    expect(resultText(second!)[0]).toBe('late');
  });

  it('lets Esc cancel a turn while its servers are still starting', async () => {
    h = await startHarness({ config: { mcp: { slow: { type: 'local', command: [process.execPath, '-e', 'setInterval(() => {}, 1000)'], timeout: 30_000 } } } });
    engines.push(h.engine);
    const root = h.engine.createSession();
    const running = waitForEvent(h.engine, (e) => e.type === 'session.status' && e.status === 'running');
    const turn = h.engine.prompt(root.id, 'hello');
    await running;
    expect(h.engine.cancel(root.id)).toBe(true);
    expect(await turn).toMatchObject({ status: 'cancelled' });
    expect(h.server.requests).toHaveLength(0);
    expect(h.engine.mcp.states()[0]).toMatchObject({ status: 'pending' });
    // Closing does not wait out the start timeout: the starting server is stopped at once.
    await waitForChild('setInterval(() => {}, 1000)');
    await h.engine.close();
    await waitUntilGone('setInterval(() => {}, 1000)', 3000);
  });

  it('starts no server for a session that never runs a turn', async () => {
    h = await startHarness({ config: { mcp: { everything } } });
    engines.push(h.engine);
    h.engine.createSession();
    expect(h.engine.mcp.states()[0]).toMatchObject({ status: 'pending' });
    expect(childPids(EVERYTHING)).toHaveLength(0);
  });
});
