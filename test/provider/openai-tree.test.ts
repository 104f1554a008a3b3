// Mixed trees through the real engine: a root session on an OpenAI-compatible server (text
// and a tool round trip), and a child on a local model under a Claude parent, with the cost
// of each priced by its own provider and rolled up to the parent.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProvider, type Provider } from '../../src/core/provider/index.js';
import { reply, text, toolResults } from '../support/fake-anthropic.js';
import { call, say, startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
let local: FakeOpenAIServer | undefined;
afterEach(async () => {
  await h?.close();
  await local?.close();
  h = undefined;
  local = undefined;
});

/** A harness whose config names `local`, an openai-compatible provider at the fake server. */
async function start(): Promise<{ h: Harness; local: FakeOpenAIServer; providers: string[] }> {
  local = await startFakeOpenAI();
  h = await startHarness({ config: { provider: { local: { type: 'openai-compatible', baseURL: local.url, models: { 'some-model': { limit: { context: 32768 } } } } } } });
  const anthropic = createProvider('anthropic', { apiKey: 'test-key', baseURL: h.server.url, maxRetries: 0, env: {} });
  const config = { provider: { local: { type: 'openai-compatible' as const, baseURL: local.url } } };
  const providers: string[] = [];
  const providerFor = (name: string): Provider => {
    providers.push(name);
    return name === 'anthropic' ? anthropic : createProvider(name, { config, env: {}, maxRetries: 0 });
  };
  h.engine = h.newEngine({ providerFor });
  return { h, local, providers };
}

describe('mixed provider trees', () => {
  it('runs a root session on an OpenAI-compatible server, tool round trip included', async () => {
    const { h, local } = await start();
    writeFileSync(join(h.projectDir, 'notes.txt'), 'the secret is 42\n');
    local.enqueue(
      { type: 'message', text: 'Let me look.', calls: [{ name: 'read', arguments: { file_path: 'notes.txt' }, id: 'call_read_1', pieces: 4 }] },
      say('The secret is 42.', { prompt_tokens: 300, completion_tokens: 9 }),
    );
    const root = h.engine.createSession({ model: 'local/some-model' });
    const outcome = await h.engine.prompt(root.id, 'what is the secret?');
    expect(outcome).toMatchObject({ status: 'completed', text: 'The secret is 42.' });
    expect(local.requests.map((r) => r.body.model)).toEqual(['some-model', 'some-model']);
    const second = local.requests[1]!.body.messages;
    const assistant = second.find((m) => m.role === 'assistant')!;
    expect(assistant.tool_calls).toEqual([{ id: 'call_read_1', type: 'function', function: { name: 'read', arguments: '{"file_path":"notes.txt"}' } }]);
    const tool = second.find((m) => m.role === 'tool')!;
    expect(tool.tool_call_id).toBe('call_read_1');
    expect(String(tool.content)).toContain('the secret is 42');
    // Nothing went to Anthropic; a local model costs nothing.
    expect(h.server.requests).toHaveLength(0);
    expect(h.store.getSession(root.id)).toMatchObject({ model: 'local/some-model', cost: 0 });
  });

  it('runs a child on a local model under a Claude parent, rolling its zero cost up', async () => {
    const { h, local, providers } = await start();
    h.server.enqueue(
      reply({ type: 'tool_use', name: 'task', input: { description: 'Explore', prompt: 'look around', subagent_type: 'general', model: 'local/some-model' } }),
      text('Parent done.', { input_tokens: 1_000_000, output_tokens: 0 }),
    );
    local.enqueue(say('Child found nothing.', { prompt_tokens: 5000, completion_tokens: 200 }));
    const root = h.engine.createSession({ model: 'anthropic/claude-haiku-4-5' });
    const outcome = await h.engine.prompt(root.id, 'delegate');
    expect(outcome).toMatchObject({ status: 'completed', text: 'Parent done.' });
    expect(local.requests).toHaveLength(1);
    expect(local.requests[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'look around' });
    const [child] = h.store.children(root.id);
    expect(child).toMatchObject({ model: 'local/some-model', status: 'completed', cost: 0, depth: 1 });
    expect(child!.input_tokens).toBe(5000);
    const results = toolResults(h.server.requests[1]!);
    expect(String(results[0]!.content)).toContain('Child found nothing.');
    // The parent's reply is priced as Claude Haiku ($1 per million input tokens, plus the
    // first request's default usage); the child's tokens add nothing.
    const totals = h.store.totals(root.id);
    expect(totals.total_cost).toBeCloseTo(h.store.getSession(root.id)!.cost, 10);
    expect(totals.total_cost).toBeGreaterThanOrEqual(1);
    expect(totals.total_tokens).toBeGreaterThan(5000);
    expect(new Set(providers)).toEqual(new Set(['anthropic', 'local']));
  });

  it('fails a root turn clearly when the local server is gone', async () => {
    const { h, local } = await start();
    await local.close();
    const root = h.engine.createSession({ model: 'local/some-model' });
    const outcome = await h.engine.prompt(root.id, 'hello?');
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/^Cannot reach the OpenAI-compatible server "local" at http:\/\/127\.0\.0\.1:\d+\/v1 — is the server running\?/);
  });

  it('routes a parallel batch of calls from a local model to tools and back', async () => {
    const { h, local } = await start();
    writeFileSync(join(h.projectDir, 'a.txt'), 'alpha\n');
    writeFileSync(join(h.projectDir, 'b.txt'), 'beta\n');
    local.enqueue(
      call({ name: 'read', arguments: { file_path: 'a.txt' }, id: 'call_a', pieces: 6 }, { name: 'read', arguments: { file_path: 'b.txt' }, id: 'call_b', pieces: 2 }),
      say('Both read.'),
    );
    const root = h.engine.createSession({ model: 'local/some-model' });
    await h.engine.prompt(root.id, 'read both');
    const tools = local.requests[1]!.body.messages.filter((m) => m.role === 'tool');
    expect(tools.map((m) => m.tool_call_id)).toEqual(['call_a', 'call_b']);
    expect(String(tools[0]!.content)).toContain('alpha');
    expect(String(tools[1]!.content)).toContain('beta');
  });
});

describe('mistakes in a tree', () => {
  it('gives the parent a readable error when a task names an unknown provider', async () => {
    const { h, local } = await start();
    h.server.enqueue(
      reply({ type: 'tool_use', name: 'task', input: { description: 'Explore', prompt: 'look around', subagent_type: 'general', model: 'lcal/some-model' } }),
      text('Parent done.'),
    );
    const root = h.engine.createSession({ model: 'anthropic/claude-haiku-4-5' });
    const outcome = await h.engine.prompt(root.id, 'delegate');
    expect(outcome.status).toBe('completed');
    expect(local.requests).toHaveLength(0);
    const result = String(toolResults(h.server.requests[1]!)[0]!.content);
    expect(result).toContain('Unknown provider "lcal"');
    expect(result).toContain('Did you mean "local"?');
  });
});

describe('switching providers in one session', () => {
  it('continues on Claude after a local model, leaving out the local model\'s unsigned reasoning', async () => {
    const { h, local } = await start();
    local.enqueue({ type: 'message', reasoning: 'local musing', text: 'Local answer.' });
    const root = h.engine.createSession({ model: 'local/some-model' });
    await h.engine.prompt(root.id, 'first question');
    h.engine.setModel(root.id, 'anthropic/claude-haiku-4-5');
    h.server.enqueue(text('Claude answer.'));
    const outcome = await h.engine.prompt(root.id, 'second question');
    expect(outcome).toMatchObject({ status: 'completed', text: 'Claude answer.' });
    const sent = JSON.stringify(h.server.requests[0]!.body.messages);
    expect(sent).toContain('Local answer.');
    expect(sent).not.toContain('local musing');
  });
});

describe('/model', () => {
  it('refuses an unknown provider at once, naming the close match, and keeps the model', async () => {
    const { h } = await start();
    const root = h.engine.createSession({ model: 'anthropic/claude-haiku-4-5' });
    expect(() => h.engine.setModel(root.id, 'lcal/some-model')).toThrow(/Unknown provider "lcal".*Did you mean "local"\?/);
    expect(h.store.getSession(root.id)!.model).toBe('anthropic/claude-haiku-4-5');
    expect(h.engine.setModel(root.id, 'local/some-model').model).toBe('local/some-model');
  });
});
