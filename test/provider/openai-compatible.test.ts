// The openai-compatible provider through the real `openai` SDK against the fake Chat
// Completions server: streaming, wire translation both ways, usage, finish reasons,
// reasoning, retries, the watchdog, cancellation and the error sentences.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, RunError, isAbortError } from '../../src/core/errors.js';
import type { Message } from '../../src/core/messages.js';
import { credentialProblem } from '../../src/core/provider/credentials.js';
import { costFor, createProvider, resolveProvider, type ModelRequest, type Provider, type StreamEvent, type ToolSpec } from '../../src/core/provider/index.js';
import { call, say, startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai.js';

let server: FakeOpenAIServer;

beforeEach(async () => {
  server = await startFakeOpenAI();
});

afterEach(async () => {
  await server.close();
});

function config(extra: Record<string, unknown> = {}) {
  return { provider: { local: { type: 'openai-compatible' as const, baseURL: server.url, ...extra } } };
}

function provider(opts: { maxRetries?: number; idleTimeoutMs?: number; requestTimeoutMs?: number } = {}, extra: Record<string, unknown> = {}): Provider {
  return createProvider('local', { config: config(extra), env: {}, maxRetries: 3, retryBaseDelayMs: 1, ...opts });
}

const READ: ToolSpec = {
  name: 'read',
  description: 'Read a file',
  input_schema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { path: { type: 'string', examples: ['a.txt'] }, examples: { type: 'string' } },
    required: ['path'],
    additionalProperties: false,
  },
};

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'some-model',
    system: 'You are terse.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    maxTokens: 1024,
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function run(p: Provider, req: ModelRequest = request(), onEvent?: (e: StreamEvent) => void) {
  const events: StreamEvent[] = [];
  const response = await p.stream(req, (e) => {
    events.push(e);
    onEvent?.(e);
  });
  return { response, events };
}

describe('streaming', () => {
  it('streams text, asks for usage and reads it from the last chunk', async () => {
    server.enqueue(say('Hello there, friend.', { prompt_tokens: 42, completion_tokens: 7 }));
    const { response, events } = await run(provider());
    expect(events.filter((e) => e.type === 'text.delta').map((e) => (e as { text: string }).text).join('')).toBe('Hello there, friend.');
    expect(events.filter((e) => e.type === 'text.delta').length).toBeGreaterThan(1);
    expect(response.content).toEqual([{ type: 'text', text: 'Hello there, friend.' }]);
    expect(response.stopReason).toBe('end_turn');
    expect(response.usage).toEqual({ input_tokens: 42, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    const body = server.requests[0]!.body;
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.max_tokens).toBe(1024);
    expect(body.messages[0]).toEqual({ role: 'system', content: 'You are terse.' });
    expect(body.messages[1]).toEqual({ role: 'user', content: 'hi' });
    // Keyless local server: no key from anywhere is sent.
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('never asks a model for more output than its configured limit', async () => {
    server.enqueue(say('ok'), say('ok'));
    const p = provider({}, { models: { 'some-model': { limit: { output: 4096 } } } });
    await run(p, request({ maxTokens: 16000 }));
    await run(p, request({ maxTokens: 1000 }));
    expect(server.requests.map((r) => r.body.max_tokens)).toEqual([4096, 1000]);
  });

  it('sends the configured key and headers', async () => {
    server.enqueue(say('ok'));
    await run(provider({}, { apiKey: 'sk-local', headers: { 'X-Title': 'opencode-ink' } }));
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-local');
    expect(server.requests[0]!.headers['x-title']).toBe('opencode-ink');
  });

  it('assembles parallel tool calls whose arguments arrive in pieces', async () => {
    server.enqueue(
      call(
        { name: 'read', arguments: { path: 'src/a very long file name.ts' }, id: 'call_A', pieces: 5 },
        { name: 'read', arguments: { path: 'b.txt' }, id: 'call_B', pieces: 4 },
      ),
    );
    const { response, events } = await run(provider(), request({ tools: [READ] }));
    expect(response.stopReason).toBe('tool_use');
    expect(response.content).toEqual([
      { type: 'tool_use', id: 'call_A', name: 'read', input: { path: 'src/a very long file name.ts' } },
      { type: 'tool_use', id: 'call_B', name: 'read', input: { path: 'b.txt' } },
    ]);
    expect(events.filter((e) => e.type === 'tool_use.started')).toEqual([
      { type: 'tool_use.started', id: 'call_A', name: 'read' },
      { type: 'tool_use.started', id: 'call_B', name: 'read' },
    ]);
    // The schema as function calling takes it: no $schema or examples, properties kept.
    expect(server.requests[0]!.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'read',
          description: 'Read a file',
          parameters: {
            type: 'object',
            properties: { path: { type: 'string' }, examples: { type: 'string' } },
            required: ['path'],
            additionalProperties: false,
          },
        },
      },
    ]);
  });

  it('keeps the argument pieces of two calls apart when they arrive interleaved', async () => {
    server.enqueue({
      type: 'message',
      calls: [
        { name: 'read', arguments: { path: 'first/file/name.ts' }, id: 'call_A', pieces: 4 },
        { name: 'read', arguments: { path: 'second.txt' }, id: 'call_B', pieces: 3 },
      ],
      interleaveCalls: true,
    });
    const { response } = await run(provider(), request({ tools: [READ] }));
    expect(response.stopReason).toBe('tool_use');
    expect(response.content).toEqual([
      { type: 'tool_use', id: 'call_A', name: 'read', input: { path: 'first/file/name.ts' } },
      { type: 'tool_use', id: 'call_B', name: 'read', input: { path: 'second.txt' } },
    ]);
  });

  it('replaces unusable or duplicate tool call ids with its own', async () => {
    server.enqueue(call({ name: 'read', arguments: { path: 'a' }, id: 'bad id!' }, { name: 'read', arguments: { path: 'b' }, id: 'bad id!' }));
    const { response } = await run(provider(), request({ tools: [READ] }));
    const ids = response.content.map((p) => (p.type === 'tool_use' ? p.id : ''));
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('maps length to max_tokens and content_filter to refusal', async () => {
    server.enqueue({ type: 'message', calls: [{ name: 'read', arguments: { path: 'x' }, pieces: 2 }], finish_reason: 'length' });
    server.enqueue({ type: 'message', text: 'no', finish_reason: 'content_filter' });
    expect((await run(provider(), request({ tools: [READ] }))).response.stopReason).toBe('max_tokens');
    expect((await run(provider())).response.stopReason).toBe('refusal');
  });

  it.each(['reasoning_content', 'reasoning'] as const)('streams %s as thinking and never sends it back', async (field) => {
    server.enqueue({ type: 'message', reasoning: 'Let me think about it.', reasoningField: field, text: 'Done.' });
    const { response, events } = await run(provider());
    expect(events.filter((e) => e.type === 'thinking.delta').map((e) => (e as { text: string }).text).join('')).toBe('Let me think about it.');
    expect(response.content).toEqual([
      { type: 'thinking', thinking: 'Let me think about it.', signature: '' },
      { type: 'text', text: 'Done.' },
    ]);
    server.enqueue(say('again'));
    await run(provider(), request({ messages: [...request().messages, { role: 'assistant', content: response.content }, { role: 'user', content: [{ type: 'text', text: 'more' }] }] }));
    expect(server.requests[1]!.body.messages[2]).toEqual({ role: 'assistant', content: 'Done.' });
  });

  it('reports cached prompt tokens as cache reads', async () => {
    server.enqueue({ type: 'message', text: 'x', usage: { prompt_tokens: 100, completion_tokens: 3, cached_tokens: 60 } });
    const { response } = await run(provider());
    expect(response.usage).toEqual({ input_tokens: 40, output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 60 });
  });
});

describe('messages to the wire', () => {
  it('sends tool calls and their results as tool messages with matching ids, then the user text', async () => {
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'read two files' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } },
          { type: 'tool_use', id: 'call_2', name: 'read', input: { path: 'b' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'A' },
          { type: 'tool_result', tool_use_id: 'call_2', content: 'no such file', is_error: true },
          { type: 'text', text: 'and be quick' },
        ],
      },
    ];
    server.enqueue(say('done'));
    await run(provider(), request({ messages: history, tools: [READ] }));
    expect(server.requests[0]!.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'read two files' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
          { id: 'call_2', type: 'function', function: { name: 'read', arguments: '{"path":"b"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'A' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Error: no such file' },
      { role: 'user', content: 'and be quick' },
    ]);
  });

  it('sends no system message for an empty prompt and no tools key without tools', async () => {
    server.enqueue(say('ok'));
    await run(provider(), request({ system: '' }));
    expect(server.requests[0]!.body.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(server.requests[0]!.body.tools).toBeUndefined();
  });
});

describe('errors and retries', () => {
  it('waits out a 429 with retry-after, then succeeds', async () => {
    server.enqueue({ type: 'http_error', status: 429, message: 'Rate limit reached', retryAfter: 0.05 }, say('after the wait'));
    const { response, events } = await run(provider());
    expect(response.content).toEqual([{ type: 'text', text: 'after the wait' }]);
    const retry = events.find((e) => e.type === 'retrying');
    expect(retry).toMatchObject({ type: 'retrying', attempt: 1, delayMs: 50 });
    expect((retry as { reason: string }).reason).toContain('429');
    expect(server.requests).toHaveLength(2);
  });

  it('gives up on repeated 500s with a clear message naming the server and the attempts', async () => {
    for (let i = 0; i < 3; i++) server.enqueue({ type: 'http_error', status: 500, message: 'model crashed' });
    const err = await run(provider({ maxRetries: 2 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect((err as Error).message).toBe('OpenAI-compatible server "local" error 500: model crashed (gave up after 3 attempts)');
    expect(server.requests).toHaveLength(3);
  });

  it('explains a server without tool support and does not retry', async () => {
    server.enqueue({ type: 'http_error', status: 400, message: 'registry.ollama.ai/library/gemma:2b does not support tools' });
    const err = await run(provider(), request({ tools: [READ] })).catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      'The model "some-model" on OpenAI-compatible server "local" does not support tool calls (the server said: registry.ollama.ai/library/gemma:2b does not support tools); pick a model with tool support.',
    );
    expect(server.requests).toHaveLength(1);
  });

  it('recognises vLLM\'s wording for a server without tool calling, but not other 400s about tools', async () => {
    server.enqueue({ type: 'http_error', status: 400, message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set' });
    const vllm = await run(provider(), request({ tools: [READ] })).catch((e: unknown) => e);
    expect((vllm as Error).message).toMatch(/^The model "some-model" on OpenAI-compatible server "local" does not support tool calls/);
    server.enqueue({ type: 'http_error', status: 400, message: "Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'." });
    const other = await run(provider(), request({ tools: [READ] })).catch((e: unknown) => e);
    expect((other as Error).message).toBe(
      'OpenAI-compatible server "local" error 400: Invalid parameter: messages with role \'tool\' must be a response to a preceding message with \'tool_calls\'.',
    );
  });

  it('says an unreachable Ollama is probably not running, without a minute of retries', async () => {
    const port = await freePort();
    const p = createProvider('ollama', { config: { provider: { ollama: { baseURL: `http://127.0.0.1:${port}/v1` } } }, env: {}, retryBaseDelayMs: 1 });
    const err = await run(p).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect((err as Error).message).toMatch(
      new RegExp(`^Cannot reach the OpenAI-compatible server "ollama" at http://127\\.0\\.0\\.1:${port}/v1 — is Ollama running\\? \\(.*ECONNREFUSED`),
    );
  });

  it('resolves the presets without configuration, and lets the config override their fields', () => {
    expect(resolveProvider('ollama', { provider: {} }, { OPENAI_API_KEY: 'sk-not-for-ollama' })).toMatchObject({
      type: 'openai-compatible',
      baseURL: 'http://127.0.0.1:11434/v1',
      apiKey: undefined,
      needsKey: false,
      source: 'builtin',
    });
    expect(resolveProvider('openai', { provider: {} }, { OPENAI_API_KEY: 'sk-1' })).toMatchObject({ baseURL: 'https://api.openai.com/v1', apiKey: 'sk-1', needsKey: true });
    expect(resolveProvider('ollama', { provider: { ollama: { baseURL: 'http://gpu-box:11434/v1' } } }, {})).toMatchObject({
      baseURL: 'http://gpu-box:11434/v1',
      source: 'config',
    });
    expect(resolveProvider('nope', { provider: {} }, {})).toBeUndefined();
  });

  it('retries an error the server sends inside a started stream', async () => {
    server.enqueue({ type: 'stream_error', message: 'model overloaded' }, say('second time lucky'));
    const { response, events } = await run(provider());
    expect(response.content).toEqual([{ type: 'text', text: 'second time lucky' }]);
    const retry = events.find((e) => e.type === 'retrying') as { reason: string } | undefined;
    expect(retry?.reason).toBe('OpenAI-compatible server "local" error: model overloaded');
  });

  it('recovers from a stalled stream with the idle watchdog, dropping the partial text', async () => {
    server.enqueue({ type: 'stall', chunks: 2 }, say('fresh answer'));
    const { response, events } = await run(provider({ idleTimeoutMs: 150 }));
    expect(response.content).toEqual([{ type: 'text', text: 'fresh answer' }]);
    const retry = events.find((e) => e.type === 'retrying') as { reason: string } | undefined;
    expect(retry?.reason).toContain('stopped responding');
  });

  it('retries a stream that ends without a finish reason', async () => {
    server.enqueue({ type: 'cut', chunks: 3 }, say('whole answer'));
    const { response, events } = await run(provider());
    expect(response.content).toEqual([{ type: 'text', text: 'whole answer' }]);
    const retry = events.find((e) => e.type === 'retrying') as { reason: string } | undefined;
    expect(retry?.reason).toContain('ended the reply before it was complete');
  });

  it('stops at once when cancelled mid-stream', async () => {
    server.enqueue({ type: 'stall', chunks: 3 });
    const controller = new AbortController();
    const pending = run(provider(), request({ signal: controller.signal }), (e) => {
      if (e.type === 'text.delta') controller.abort();
    });
    const err = await pending.catch((e: unknown) => e);
    expect(isAbortError(err)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses the openai preset without a key, naming the variable, before sending anything', async () => {
    const p = createProvider('openai', { env: {} });
    const err = await run(p).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect((err as Error).message).toBe('No API key for provider "openai": set OPENAI_API_KEY (or provider.openai.apiKey in the config).');
    const cfg = { provider: {}, model: 'anthropic/claude-sonnet-4-6' };
    expect(credentialProblem(cfg, {}, 'openai/gpt-4.1')).toBe((err as Error).message);
    expect(credentialProblem(cfg, { OPENAI_API_KEY: 'sk' }, 'openai/gpt-4.1')).toBeUndefined();
    expect(credentialProblem(cfg, {}, 'ollama/llama3.2')).toBeUndefined();
    expect(() => credentialProblem(cfg, {}, 'opnai/gpt-4.1')).toThrow(/Did you mean "openai"\?/);
  });

  it('names close matches for an unknown provider', () => {
    let err: unknown;
    try {
      createProvider('olama', { env: {} });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('Unknown provider "olama"');
    expect((err as Error).message).toContain('Did you mean "ollama"?');
  });
});

describe('cost', () => {
  const usage = { input_tokens: 1_000_000, output_tokens: 1_000_000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  it('is 0 for a local model, the configured price where given, the table for OpenAI', () => {
    expect(costFor('local/some-model', usage, config(), {})).toBe(0);
    expect(costFor('local/priced', usage, config({ models: { priced: { cost: { input: 0.5, output: 1.5 } } } }), {})).toBe(2);
    expect(costFor('openai/gpt-4.1-mini', usage, { provider: {} }, {})).toBeCloseTo(2);
    expect(costFor('openai/gpt-4.1-mini-2025-04-14', usage, { provider: {} }, {})).toBeCloseTo(2);
    expect(costFor('anthropic/claude-haiku-4-5', usage, { provider: {} }, {})).toBeCloseTo(6);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
