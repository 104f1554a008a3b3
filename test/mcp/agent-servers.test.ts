// `mcpServers: [name]` in a Claude Code agent file with a `tools` list: the named configured
// server's tools stay on that agent's list (the reference server over stdio), other servers'
// do not.
import { afterEach, describe, expect, it } from 'vitest';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { text, toolNames, toolUse } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { EVERYTHING } from './processes.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.engine.close();
  await h?.close();
  h = undefined;
});

const server = { type: 'local', command: [process.execPath, EVERYTHING, 'stdio'] };

describe('mcpServers in an agent file', () => {
  it('keeps the named server\'s tools on an agent whose tools list does not name them', async () => {
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
});
