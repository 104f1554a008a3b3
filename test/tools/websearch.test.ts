// `websearch` through the real engine and the real Anthropic SDK: the tool makes its own
// Messages request with the server-side web search tool, and the streamed server tool
// blocks and cited text come back to the model as an answer with numbered sources.
import { afterEach, describe, expect, it } from 'vitest';
import { reply, text, toolNames, toolResults, toolUse, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const resultText = (req: RecordedRequest) => toolResults(req).map((r) => (typeof r.content === 'string' ? r.content : JSON.stringify(r.content)));

const SEARCH_REPLY = reply(
  { type: 'server_tool_use', name: 'web_search', id: 'srvtoolu_1', input: { query: 'node 24 release date' } },
  {
    type: 'web_search_tool_result',
    tool_use_id: 'srvtoolu_1',
    content: [
      { type: 'web_search_result', url: 'https://nodejs.org/en/blog/release/v24.0.0', title: 'Node.js 24.0.0', encrypted_content: 'x', page_age: null },
      { type: 'web_search_result', url: 'https://nodejs.org/en/about/previous-releases', title: 'Node.js Releases', encrypted_content: 'y', page_age: null },
    ],
  },
  { type: 'text', text: 'Here is what I found. ' },
  {
    type: 'text',
    text: 'Node.js 24 was released on 6 May 2025.',
    citations: [
      { type: 'web_search_result_location', url: 'https://nodejs.org/en/blog/release/v24.0.0', title: 'Node.js 24.0.0', encrypted_index: 'i', cited_text: 'Node.js 24 released' },
    ],
  },
);

describe('websearch', () => {
  it('runs a server-side web search and returns the cited answer with its sources', async () => {
    h = await startHarness();
    h.server.enqueue(toolUse('websearch', { query: 'node 24 release date', allowed_domains: ['nodejs.org'] }), SEARCH_REPLY, text('Released in May 2025.'));
    const root = h.engine.createSession();
    expect(await h.engine.prompt(root.id, 'when did node 24 come out?')).toMatchObject({ status: 'completed', text: 'Released in May 2025.' });

    const [first, search, last] = h.server.requests;
    expect(toolNames(first!)).toContain('websearch');
    expect(search!.body.model).toBe(first!.body.model);
    expect(search!.body.tools).toEqual([{ type: 'web_search_20250305', name: 'web_search', max_uses: 5, allowed_domains: ['nodejs.org'] }]);
    expect(JSON.stringify(search!.body.messages)).toContain('node 24 release date');
    expect(resultText(last!)[0]).toBe(
      [
        'Here is what I found. Node.js 24 was released on 6 May 2025. [1]',
        '',
        'Sources:',
        '[1] Node.js 24.0.0 — https://nodejs.org/en/blog/release/v24.0.0',
        '[2] Node.js Releases — https://nodejs.org/en/about/previous-releases',
      ].join('\n'),
    );
    expect(toolResults(last!)[0]!.is_error).toBeFalsy();
  });

  it('reports a failed search, refuses both domain lists, and obeys a deny rule', async () => {
    h = await startHarness();
    h.server.enqueue(
      reply(
        { type: 'tool_use', name: 'websearch', input: { query: 'anything', allowed_domains: ['a.com'], blocked_domains: ['b.com'] }, id: 'toolu_both' },
      ),
      toolUse('websearch', { query: 'rate limited' }),
      reply({ type: 'web_search_tool_result', tool_use_id: 'srvtoolu_2', content: { type: 'web_search_tool_result_error', error_code: 'too_many_requests' } }),
      text('ok'),
    );
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'search twice');
    const requests = h.server.requests;
    expect(resultText(requests[1]!)[0]).toBe('Give allowed_domains or blocked_domains, not both.');
    expect(requests[2]!.body.tools).toEqual([{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }]);
    expect(toolResults(requests[3]!)[0]).toMatchObject({ is_error: true, content: 'Web search failed: too_many_requests.' });

    const denied = await startHarness({ config: { permission: { websearch: 'deny' } } });
    try {
      denied.server.enqueue(text('no search'));
      await denied.engine.prompt(denied.engine.createSession().id, 'hi');
      expect(toolNames(denied.server.requests[0]!)).not.toContain('websearch');
    } finally {
      await denied.close();
    }
  });

  it("gives Claude Code agents that list WebSearch the websearch tool", async () => {
    h = await startHarness({
      files: { '.claude/agents/researcher.md': '---\nname: researcher\ndescription: Researches\ntools: WebSearch, Read\n---\nResearch.' },
    });
    h.server.enqueue(toolUse('task', { description: 'Research', prompt: 'research it', subagent_type: 'researcher' }), text('child answer'), text('done'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'delegate');
    expect(toolNames(h.server.requests[1]!).sort()).toEqual(['ask_user', 'read', 'websearch']);
  });
});

describe('websearch in agent listings', () => {
  it('lists websearch for agents on an Anthropic model only', async () => {
    const { agentToolNames } = await import('../../src/core/engine.js');
    const { ConfigSchema } = await import('../../src/core/config/schema.js');
    const config = ConfigSchema.parse({});
    const agent = { name: 'a', mode: 'primary' as const, description: '', prompt: '', hidden: false, disable: false, source: 'x' };
    expect(agentToolNames(agent, config, false)).toContain('websearch');
    expect(agentToolNames({ ...agent, model: 'local/llama' }, config, false)).not.toContain('websearch');
  });
});
