// An agent file's `effort` on the wire, through the real engine and the fake servers: an
// Anthropic model that takes it gets `output_config.effort` on the agent's requests only; an
// OpenAI-compatible model gets `reasoning_effort`; a model that does not take it gets neither,
// and the user is told once, naming the file and the field — not at every request.
import { afterEach, describe, expect, it } from 'vitest';
import { createProvider, type Provider } from '../../src/core/provider/index.js';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { text, toolUse, type RecordedRequest } from '../support/fake-anthropic.js';
import { say, startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
let local: FakeOpenAIServer | undefined;
afterEach(async () => {
  await h?.engine.close();
  await h?.close();
  await local?.close();
  h = undefined;
  local = undefined;
});

const outputConfig = (req: RecordedRequest) => (req.body as unknown as Record<string, unknown>).output_config;
const agentFile = (name: string, fields: string) => `---\nname: ${name}\ndescription: Thinks as told.\n${fields}\n---\nThink.\n`;
const task = (prompt: string, type: string) => toolUse('task', { description: prompt, prompt, subagent_type: type });

describe('effort in an agent file', () => {
  it("sends output_config.effort on an Anthropic model that takes it, for that agent's requests only", async () => {
    const warnings: string[] = [];
    h = await startHarness({
      files: {
        '.claude/agents/deep.md': agentFile('deep', 'model: anthropic/claude-opus-4-6\neffort: max'),
        '.claude/agents/older.md': agentFile('older', 'model: anthropic/claude-opus-4-5\neffort: max'),
      },
      engine: { onWarning: (line) => warnings.push(line) },
    });
    scriptConversations(h.server, {
      'delegate': [task('think hard', 'deep'), task('think older', 'older'), text('done')],
      'think hard': [toolUse('glob', { pattern: '*.md' }), text('thought')],
      'think older': [text('thought too')],
    });
    expect((await h.engine.prompt(h.engine.createSession().id, 'delegate')).status).toBe('completed');
    expect(requestsOf(h.server, 'think hard').map(outputConfig)).toEqual([{ effort: 'max' }, { effort: 'max' }]);
    // Opus 4.5 has no `max`: the next level down it has.
    expect(requestsOf(h.server, 'think older').map(outputConfig)).toEqual([{ effort: 'high' }]);
    expect(requestsOf(h.server, 'delegate').map(outputConfig)).toEqual([undefined, undefined, undefined]);
    expect(warnings).toEqual([]);
  });

  it('sends nothing to a model that does not take it, and says so once for the file and field', async () => {
    const warnings: string[] = [];
    h = await startHarness({
      config: { model: 'anthropic/claude-haiku-4-5' },
      files: { '.claude/agents/quick.md': agentFile('quick', 'effort: low') },
      engine: { onWarning: (line) => warnings.push(line) },
    });
    scriptConversations(h.server, {
      'delegate': [task('first run', 'quick'), task('second run', 'quick'), text('done')],
      'first run': [toolUse('glob', { pattern: '*.md' }), text('one')],
      'second run': [text('two')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'delegate')).status).toBe('completed');
    const childRequests = [...requestsOf(h.server, 'first run'), ...requestsOf(h.server, 'second run')];
    expect(childRequests).toHaveLength(3);
    expect(childRequests.map(outputConfig)).toEqual([undefined, undefined, undefined]);
    expect(warnings).toEqual([expect.stringMatching(/quick\.md: "effort: low" is not applied: anthropic\/claude-haiku-4-5 takes no effort setting\.$/)]);
  });

  it('sends reasoning_effort to an OpenAI-compatible model', async () => {
    local = await startFakeOpenAI();
    const config = { provider: { local: { type: 'openai-compatible' as const, baseURL: local.url } } };
    h = await startHarness({
      config,
      files: { '.claude/agents/reasoner.md': agentFile('reasoner', 'model: local/some-model\neffort: xhigh') },
    });
    const anthropic = createProvider('anthropic', { apiKey: 'test-key', baseURL: h.server.url, maxRetries: 0, env: {} });
    const providerFor = (name: string): Provider => (name === 'anthropic' ? anthropic : createProvider(name, { config, env: {}, maxRetries: 0 }));
    await h.engine.close();
    h.engine = h.newEngine({ providerFor });
    scriptConversations(h.server, { 'delegate': [task('reason it out', 'reasoner'), text('done')] });
    local.enqueue(say('reasoned'));
    expect((await h.engine.prompt(h.engine.createSession().id, 'delegate')).status).toBe('completed');
    // Above `high` is `high` on the common servers.
    expect(local.requests.map((r) => r.body.reasoning_effort)).toEqual(['high']);
  });
});
