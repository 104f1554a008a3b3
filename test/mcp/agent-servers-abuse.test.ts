// An agent's own MCP servers under abuse, through the real engine and real processes: five
// children of one agent at once (one server set per child session, as Claude Code connects a
// sub-agent's servers per run, so their state never mixes), a server that never answers the
// handshake while its child is cancelled, a server whose command is missing and a listed name
// no configuration defines. No turn hangs and no server process outlives its session.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/core/project-context.js';
import { held, requestsOf, scriptConversations } from '../support/conversations.js';
import { reply, text, toolNames, toolUse } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { childPids, CRASHY, EVERYTHING, waitForChild, waitUntilGone } from './processes.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.engine.close();
  await h?.close();
  h = undefined;
});

function agentFile(name: string, servers: string[]): string {
  return ['---', `name: ${name}`, 'description: Has servers of its own', 'mcpServers:', ...servers, '---', 'Help.'].join('\n');
}

const crashy = (marker: string) => [`  - own:`, `      command: ${JSON.stringify(process.execPath)}`, `      args: [${JSON.stringify(CRASHY)}, ${marker}]`];

describe("an agent's own MCP servers under abuse", () => {
  it('starts one server per child when five children of one agent run at once, and stops all five', async () => {
    const marker = `own-${randomUUID()}`;
    h = await startHarness({ files: { '.claude/agents/helper.md': agentFile('helper', crashy(marker)) } });
    const gates = [0, 1, 2, 3, 4].map(() => held(text('child done')));
    scriptConversations(h.server, {
      'delegate': [
        reply(...[0, 1, 2, 3, 4].map((i) => ({ type: 'tool_use' as const, id: `toolu_part${i}`, name: 'task', input: { description: `part ${i}`, prompt: `part ${i}`, subagent_type: 'helper' } }))),
        text('done'),
      ],
      ...Object.fromEntries(gates.map((gate, i) => [`part ${i}`, [gate.reply]])),
    });
    const turn = h.engine.prompt(h.engine.createSession().id, 'delegate');
    // The root's request and the five children's, held.
    await h.server.waitForRequests(6, 15_000);
    expect(childPids(marker)).toHaveLength(5);
    expect(new Set(h.engine.agentMcpStatus().map((s) => s.session_id)).size).toBe(5);
    for (const gate of gates) gate.open();
    expect((await turn).status).toBe('completed');
    await waitUntilGone(marker);
  });

  it('ends a turn at once when its child is cancelled while a server that never answers starts, and stops it', async () => {
    const marker = `mute-${randomUUID()}`;
    // Reads stdin, answers nothing: the handshake would wait for the start timeout.
    const mute = ['  - mute:', `      command: ${JSON.stringify(process.execPath)}`, `      args: ["-e", "process.stdin.resume()", ${marker}]`];
    h = await startHarness({ files: { '.claude/agents/helper.md': agentFile('helper', mute) } });
    scriptConversations(h.server, {
      'delegate': [toolUse('task', { description: 'use it', prompt: 'child work', subagent_type: 'helper' }), text('done')],
      'child work': [text('child done')],
    });
    const root = h.engine.createSession();
    const turn = h.engine.prompt(root.id, 'delegate');
    await waitForChild(marker);
    const cancelledAt = Date.now();
    h.engine.cancel(root.id);
    const result = await turn;
    // Well before the 10 s start timeout.
    expect(Date.now() - cancelledAt).toBeLessThan(5_000);
    expect(result.status).not.toBe('completed');
    expect(requestsOf(h.server, 'child work')).toEqual([]);
    await waitUntilGone(marker);
  });

  it('runs the child without a server whose command is missing or whose listed name is not configured, and says why', async () => {
    const warnings: string[] = [];
    const missing = ['  - gone:', '      command: /nonexistent/server', '  - nosuch', '  - everything'];
    h = await startHarness({
      config: { mcp: { everything: { type: 'local', command: [process.execPath, EVERYTHING, 'stdio'], enabled: false } } },
      files: { '.claude/agents/helper.md': agentFile('helper', missing) },
      engine: { onWarning: (line) => warnings.push(line) } });
    scriptConversations(h.server, {
      'delegate': [toolUse('task', { description: 'use it', prompt: 'child work', subagent_type: 'helper' }), text('done')],
      'child work': [text('child done')],
    });
    expect((await h.engine.prompt(h.engine.createSession().id, 'delegate')).status).toBe('completed');
    expect(toolNames(requestsOf(h.server, 'child work')[0]!).filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(warnings.join('\n')).toContain('cannot start "/nonexistent/server"');
    // Trusted, so the project's own config (which defines `everything`) counts.
    const project = loadProject({ cwd: h.projectDir, env: h.env, trustOnce: true });
    expect(project.agentWarnings.map((w) => w.message)).toContain(
      'agent "helper": "mcpServers" names the server "nosuch", which no configuration defines (the "mcp" key of .opencoderc.json, or a trusted project\'s .mcp.json); it is left out.',
    );
    // A configured name is not named.
    expect(project.agentWarnings.map((w) => w.message).join('\n')).not.toContain('"everything"');
  });
});
