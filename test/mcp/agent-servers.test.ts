// `mcpServers` in a Claude Code agent file, through the real engine and real server processes:
// a listed name keeps that configured server's tools on the agent's `tools` list; a server
// written out is the agent's own — started only when one of its sessions first needs tools,
// offered to that session alone (not the root, not other agents), winning over a configured
// server of its name, stopped when the session ends or the engine closes — and never started
// from an untrusted project's file, whose notice names it.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/core/project-context.js';
import { held, requestsOf, scriptConversations } from '../support/conversations.js';
import { text, toolNames, toolResults, toolUse } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { childPids, CRASHY, EVERYTHING, waitForChild, waitUntilGone } from './processes.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.engine.close();
  await h?.close();
  h = undefined;
});

const server = { type: 'local', command: [process.execPath, EVERYTHING, 'stdio'] };

/** An agent file whose own server `own` is the crash-test server, found later by `marker` on its command line. */
function ownServerAgent(name: string, marker: string, extra = ''): string {
  return [
    '---',
    `name: ${name}`,
    'description: Has a server of its own',
    extra,
    'mcpServers:',
    '  - own:',
    `      command: ${JSON.stringify(process.execPath)}`,
    `      args: [${JSON.stringify(CRASHY)}, ${marker}]`,
    '---',
    'Help.',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

describe('mcpServers in an agent file', () => {
  it("keeps the named server's tools on an agent whose tools list does not name them", async () => {
    h = await startHarness({
      config: { mcp: { everything: server, other: server } },
      files: { '.claude/agents/helper.md': '---\nname: helper\ndescription: Uses one server\ntools: Read\nmcpServers: [everything]\n---\nHelp.' },
    });
    scriptConversations(h.server, {
      'delegate': [toolUse('task', { description: 'use the server', prompt: 'child work', subagent_type: 'helper' }), text('done')],
      'child work': [text('child done')],
    });
    await h.engine.prompt(h.engine.createSession().id, 'delegate');
    const names = toolNames(requestsOf(h.server, 'child work')[0]!);
    expect(names).toContain('read');
    expect(names).toContain('mcp__everything__echo');
    expect(names.some((n) => n.startsWith('mcp__other__'))).toBe(false);
    expect(names).not.toContain('bash');
  });

  it("starts an agent's own server for its session alone, lazily, and stops it when the session ends", async () => {
    const marker = `own-${randomUUID()}`;
    h = await startHarness({
      config: { permission: { 'mcp__own__*': 'allow' } },
      files: { '.claude/agents/helper.md': ownServerAgent('helper', marker, 'tools: Read') },
    });
    scriptConversations(h.server, {
      'no delegation': [text('plain answer')],
      'delegate': [
        toolUse('task', { description: 'use it', prompt: 'child work', subagent_type: 'helper' }),
        toolUse('task', { description: 'other agent', prompt: 'general work', subagent_type: 'general' }),
        text('done'),
      ],
      'child work': [toolUse('mcp__own__ok', { word: 'agent-server' }), text('child done')],
      'general work': [text('general done')],
    });
    // The agent never ran: nothing was started.
    expect((await h.engine.prompt(h.engine.createSession().id, 'no delegation')).status).toBe('completed');
    expect(childPids(marker)).toEqual([]);

    expect((await h.engine.prompt(h.engine.createSession().id, 'delegate')).status).toBe('completed');
    const child = requestsOf(h.server, 'child work');
    // Its own tools, on top of a `tools` list that did not name them, and they work.
    expect(toolNames(child[0]!)).toEqual(expect.arrayContaining(['read', 'mcp__own__ok']));
    expect(toolResults(child[1]!).map((r) => JSON.stringify(r.content))).toEqual([expect.stringContaining('ok agent-server')]);
    // Neither the root nor another agent is offered them.
    for (const req of [...requestsOf(h.server, 'no delegation'), ...requestsOf(h.server, 'delegate'), ...requestsOf(h.server, 'general work')]) {
      expect(toolNames(req).filter((n) => n.startsWith('mcp__'))).toEqual([]);
    }
    // The child's turn ended and it left memory: its server went with it.
    await waitUntilGone(marker);
  });

  it("gives a fork of the agent's session servers of its own, started for the fork and stopped with it", async () => {
    const marker = `own-${randomUUID()}`;
    h = await startHarness({
      config: { permission: { 'mcp__own__*': 'allow' }, subagents: { max_depth: 2 } },
      files: { '.claude/agents/helper.md': ownServerAgent('helper', marker) },
    });
    let whileForkRan: number[] = [];
    // The fork inherits the child's conversation, so both are one script, served in order.
    scriptConversations(h.server, {
      'delegate': [toolUse('task', { description: 'use it', prompt: 'child work', subagent_type: 'helper' }), text('done')],
      'child work': [
        toolUse('mcp__own__ok', { word: 'child' }),
        toolUse('task', { description: 'copy', prompt: 'fork work', subagent_type: 'fork' }),
        toolUse('mcp__own__ok', { word: 'fork' }),
        () => {
          whileForkRan = childPids(marker);
          return text('fork done');
        },
        text('child done'),
      ],
    });
    expect((await h.engine.prompt(h.engine.createSession().id, 'delegate')).status).toBe('completed');
    const [, , forkFirst, forkSecond] = requestsOf(h.server, 'child work');
    // The fork runs as the same agent: the same tools, its own server's among them, and they work.
    expect(toolNames(forkFirst!)).toContain('mcp__own__ok');
    expect(toolResults(forkSecond!).map((r) => JSON.stringify(r.content))).toEqual([expect.stringContaining('ok fork')]);
    // One server for the child, one for its fork (each session has its own set).
    expect(whileForkRan).toHaveLength(2);
    await waitUntilGone(marker);
  });

  it("uses the agent's own server over a configured one of the same name, for that agent only, and says so", async () => {
    const marker = `own-${randomUUID()}`;
    const warnings: string[] = [];
    h = await startHarness({
      config: { mcp: { own: server } },
      files: { '.claude/agents/helper.md': ownServerAgent('helper', marker) },
      engine: { onWarning: (line) => warnings.push(line) },
    });
    scriptConversations(h.server, {
      'delegate': [toolUse('task', { description: 'use it', prompt: 'child work', subagent_type: 'helper' }), text('done')],
      'child work': [text('child done')],
    });
    await h.engine.prompt(h.engine.createSession().id, 'delegate');
    const rootNames = toolNames(requestsOf(h.server, 'delegate')[0]!);
    const childNames = toolNames(requestsOf(h.server, 'child work')[0]!);
    expect(rootNames).toContain('mcp__own__echo');
    expect(rootNames).not.toContain('mcp__own__ok');
    expect(childNames).toContain('mcp__own__ok');
    expect(childNames).not.toContain('mcp__own__echo');
    expect(warnings).toEqual([expect.stringMatching(/helper\.md: mcpServers: the server "own" has the name of a configured MCP server; agent "helper" uses its own\.$/)]);
    await waitUntilGone(marker);
  });

  it("stops the own server of a session still running when the engine closes", async () => {
    const marker = `own-${randomUUID()}`;
    h = await startHarness({ files: { '.claude/agents/helper.md': ownServerAgent('helper', marker) } });
    const stuck = held(text('late'));
    scriptConversations(h.server, {
      'delegate': [toolUse('task', { description: 'use it', prompt: 'child work', subagent_type: 'helper' }), text('done')],
      'child work': [stuck.reply],
    });
    const turn = h.engine.prompt(h.engine.createSession().id, 'delegate');
    await waitForChild(marker);
    // The root's request, then the child's, held: the child is mid-turn.
    await h.server.waitForRequests(2);
    await h.engine.close();
    expect(childPids(marker)).toEqual([]);
    stuck.open();
    await turn;
  });

  it("does not start the own servers of an untrusted project's agent file, and names them in the notice", async () => {
    const marker = `own-${randomUUID()}`;
    h = await startHarness({ files: { '.claude/agents/helper.md': ownServerAgent('helper', marker) } });
    const project = loadProject({ cwd: h.projectDir, env: h.env });
    expect(project.trust.notice).toContain('agent helper mcpServers.own (.claude/agents/helper.md)');
    const engine = h.newEngine({ agents: project.agents });
    scriptConversations(h.server, {
      'delegate': [toolUse('task', { description: 'use it', prompt: 'child work', subagent_type: 'helper' }), text('done')],
      'child work': [toolUse('mcp__own__ok', { word: 'x' }), text('child done')],
    });
    try {
      expect((await engine.prompt(engine.createSession().id, 'delegate')).status).toBe('completed');
      const child = requestsOf(h.server, 'child work');
      expect(toolNames(child[0]!).filter((n) => n.startsWith('mcp__'))).toEqual([]);
      expect(JSON.stringify(toolResults(child[1]!)[0]!.content)).toContain('mcp__own__ok');
      expect(childPids(marker)).toEqual([]);
    } finally {
      await engine.close();
    }
  });
});
