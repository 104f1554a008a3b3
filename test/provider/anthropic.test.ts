// The Anthropic provider through the real SDK against the fake Messages API: streaming,
// wire translation, retries, the idle watchdog, aborts and error messages.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, RunError, isAbortError } from '../../src/core/errors.js';
import type { Message } from '../../src/core/messages.js';
import { createProvider, type ModelRequest, type Provider, type StreamEvent, type ToolSpec } from '../../src/core/provider/index.js';
import { reply, startFakeServer, text, toolUse, type FakeServer } from '../support/fake-anthropic.js';

const EPHEMERAL = { type: 'ephemeral' };

let server: FakeServer;

beforeEach(async () => {
  server = await startFakeServer();
});

afterEach(async () => {
  await server.close();
});

function provider(opts: { maxRetries?: number; idleTimeoutMs?: number; retryBaseDelayMs?: number; requestTimeoutMs?: number } = {}): Provider {
  return createProvider('anthropic', { apiKey: 'test-key', baseURL: server.url, maxRetries: 3, retryBaseDelayMs: 1, env: {}, ...opts });
}

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    // Not a model the SDK flags as deprecated: that would print a warning per request.
    model: 'claude-haiku-4-5',
    system: 'You are terse.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    maxTokens: 1024,
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** Runs one request and keeps every stream event. */
async function run(p: Provider, req: ModelRequest = request(), onEvent?: (e: StreamEvent, all: StreamEvent[]) => void) {
  const events: StreamEvent[] = [];
  const response = await p.stream(req, (e) => {
    events.push(e);
    onEvent?.(e, events);
  });
  return { response, events };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (err: unknown) => err,
  );
}

const deltas = (events: StreamEvent[], type: 'text.delta' | 'thinking.delta') =>
  events.flatMap((e) => (e.type === type ? [e.text] : []));

const TOOLS: ToolSpec[] = [
  { name: 'read', description: 'Read a file', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } },
  { name: 'bash', description: 'Run a command', input_schema: { type: 'object', properties: { command: { type: 'string' } } } },
];

describe('streaming', () => {
  it('streams text deltas and returns the final message with usage and stop reason', async () => {
    server.enqueue(text('Hello there, this is a streamed answer.', { input_tokens: 42, output_tokens: 7, cache_creation_input_tokens: 5, cache_read_input_tokens: 3 }));
    const { response, events } = await run(provider());

    const textDeltas = deltas(events, 'text.delta');
    expect(textDeltas.length).toBeGreaterThan(1);
    expect(textDeltas.join('')).toBe('Hello there, this is a streamed answer.');
    expect(response.content).toEqual([{ type: 'text', text: 'Hello there, this is a streamed answer.' }]);
    expect(response.usage).toEqual({ input_tokens: 42, output_tokens: 7, cache_creation_input_tokens: 5, cache_read_input_tokens: 3 });
    expect(response.stopReason).toBe('end_turn');
    expect(response.model).toBe('claude-haiku-4-5');

    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0]!;
    expect(sent.body.model).toBe('claude-haiku-4-5');
    expect(sent.body.max_tokens).toBe(1024);
    expect(sent.body.stream).toBe(true);
    const auth = String(sent.headers['x-api-key'] ?? sent.headers.authorization);
    expect(auth).toContain('test-key');
  });

  it('assembles tool input from partial JSON and announces the tool when its block starts', async () => {
    const input = { file_path: 'src/deeply/nested/file.ts', limit: 20, flags: ['a', 'b'] };
    server.enqueue(reply({ type: 'text', text: 'Let me look.' }, { type: 'tool_use', name: 'read', input, id: 'toolu_read1' }));
    const { response, events } = await run(provider(), request({ tools: TOOLS }));

    expect(events.filter((e) => e.type === 'tool_use.started')).toEqual([{ type: 'tool_use.started', id: 'toolu_read1', name: 'read' }]);
    expect(events.findIndex((e) => e.type === 'tool_use.started')).toBeGreaterThan(events.findIndex((e) => e.type === 'text.delta'));
    expect(response.content).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', id: 'toolu_read1', name: 'read', input },
    ]);
    expect(response.stopReason).toBe('tool_use');
  });

  it('gives scripted tool calls generated ids when none is set', async () => {
    server.enqueue(toolUse('bash', { command: 'ls' }), toolUse('bash', { command: 'pwd' }));
    const first = await run(provider(), request({ tools: TOOLS }));
    const second = await run(provider(), request({ tools: TOOLS }));
    const idOf = (content: typeof first.response.content) => (content[0]?.type === 'tool_use' ? content[0].id : undefined);
    expect(idOf(first.response.content)).toMatch(/^toolu_\d+$/);
    expect(idOf(second.response.content)).toMatch(/^toolu_\d+$/);
    expect(idOf(first.response.content)).not.toBe(idOf(second.response.content));
  });

  it('reports max_tokens when tool JSON was cut off, so callers can refuse to run it', async () => {
    server.enqueue({
      type: 'message',
      content: [{ type: 'tool_use', name: 'bash', input: {}, partialJson: '{"command": "rm -' }],
      stop_reason: 'max_tokens',
    });
    const { response } = await run(provider(), request({ tools: TOOLS }));
    expect(response.stopReason).toBe('max_tokens');
    expect(response.content[0]).toMatchObject({ type: 'tool_use', name: 'bash' });
  });

  it('streams thinking and echoes it back with its signature on the next request', async () => {
    server.enqueue(
      reply({ type: 'thinking', thinking: 'Consider the options carefully.', signature: 'sig-abc' }, { type: 'text', text: 'Answer.' }),
      text('Continued.'),
    );
    const p = provider();
    const first = await run(p, request({ thinkingBudget: 2048, maxTokens: 4096 }));

    expect(deltas(first.events, 'thinking.delta').join('')).toBe('Consider the options carefully.');
    expect(first.response.content).toEqual([
      { type: 'thinking', thinking: 'Consider the options carefully.', signature: 'sig-abc' },
      { type: 'text', text: 'Answer.' },
    ]);
    expect(server.requests[0]!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });

    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: first.response.content },
      { role: 'user', content: [{ type: 'text', text: 'go on' }] },
    ];
    await run(p, request({ thinkingBudget: 2048, maxTokens: 4096, messages }));
    const echoed = server.requests[1]!.body.messages[1]!.content as unknown[];
    expect(echoed[0]).toEqual({ type: 'thinking', thinking: 'Consider the options carefully.', signature: 'sig-abc' });
    expect(echoed[1]).toEqual({ type: 'text', text: 'Answer.' });
  });
});

describe('wire format', () => {
  it('marks cache breakpoints on the system prompt, the last tool, the newest block and the previous user message, and sends no sampling knobs', async () => {
    server.enqueue(text('done'));
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'inspect the repo' }] },
      {
        role: 'assistant',
        content: [
          { type: 'redacted_thinking', data: 'opaque-blob' },
          { type: 'tool_use', id: 'toolu_a', name: 'read', input: { file_path: 'a.ts' } },
          { type: 'tool_use', id: 'toolu_b', name: 'bash', input: { command: 'false' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: 'export const a = 1;' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: 'exit code 1', is_error: true },
        ],
      },
    ];
    await run(provider(), request({ system: 'System prompt here.', tools: TOOLS, messages }));
    const body = server.requests[0]!.body;

    expect(body.system).toEqual([{ type: 'text', text: 'System prompt here.', cache_control: EPHEMERAL }]);
    expect(body.tools?.map((t) => t['cache_control'])).toEqual([undefined, EPHEMERAL]);
    expect(body.tools?.map((t) => t.name)).toEqual(['read', 'bash']);
    expect(body.tools?.[0]).toMatchObject({ description: 'Read a file', input_schema: TOOLS[0]!.input_schema });

    expect(body.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'inspect the repo', cache_control: EPHEMERAL }] });
    expect(body.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'redacted_thinking', data: 'opaque-blob' },
        { type: 'tool_use', id: 'toolu_a', name: 'read', input: { file_path: 'a.ts' } },
        { type: 'tool_use', id: 'toolu_b', name: 'bash', input: { command: 'false' } },
      ],
    });
    expect(body.messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_a', content: 'export const a = 1;' },
        { type: 'tool_result', tool_use_id: 'toolu_b', content: 'exit code 1', is_error: true, cache_control: EPHEMERAL },
      ],
    });

    for (const knob of ['temperature', 'top_p', 'top_k', 'thinking']) expect(body).not.toHaveProperty(knob);
  });
});

describe('retries', () => {
  it('retries an overloaded response before the stream, honouring retry-after, and says why', async () => {
    server.enqueue({ type: 'http_error', status: 529, errorType: 'overloaded_error', message: 'Overloaded', retryAfter: 0.01 }, text('ok after 529'));
    const { response, events } = await run(provider({ maxRetries: 2 }));
    expect(response.content).toEqual([{ type: 'text', text: 'ok after 529' }]);
    expect(server.requests).toHaveLength(2);
    expect(events.filter((e) => e.type === 'retrying')).toEqual([
      {
        type: 'retrying',
        attempt: 1,
        maxAttempts: 3,
        delayMs: 10,
        reason: 'Anthropic API error 529 (overloaded_error): Overloaded',
        summary: 'overloaded',
        midStream: false,
      },
    ]);
  });

  it('retries a 429 rate limit before the stream, honouring retry-after', async () => {
    server.enqueue({ type: 'http_error', status: 429, errorType: 'rate_limit_error', message: 'Slow down', retryAfter: 0.01 }, text('ok after 429'));
    const { response } = await run(provider({ maxRetries: 2 }));
    expect(response.content).toEqual([{ type: 'text', text: 'ok after 429' }]);
    expect(server.requests).toHaveLength(2);
  });

  it('with maxRetries 0, a 529 fails the request at once', async () => {
    server.enqueue({ type: 'http_error', status: 529, errorType: 'overloaded_error', message: 'Overloaded', retryAfter: 0.01 }, text('unused'));
    const err = await failure(run(provider({ maxRetries: 0 })));
    expect(err).toBeInstanceOf(RunError);
    expect((err as Error).message).toBe('Anthropic API error 529 (overloaded_error): Overloaded');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a stream that fails part-way and tells the consumer to discard partial output', async () => {
    server.enqueue({ type: 'stream_error', afterEvents: 3 }, text('recovered answer'));
    const { response, events } = await run(provider());

    const retryAt = events.findIndex((e) => e.type === 'retrying');
    expect(retryAt).toBeGreaterThan(0);
    expect(events[retryAt]).toMatchObject({ type: 'retrying', attempt: 1 });
    const retry = events[retryAt] as Extract<StreamEvent, { type: 'retrying' }>;
    expect(retry.reason).toContain('overloaded_error');
    expect(retry).toMatchObject({ summary: 'overloaded', midStream: true });
    expect(retry.delayMs).toBeGreaterThanOrEqual(0);
    // Partial text arrived before the failure; the retried stream is complete on its own.
    expect(deltas(events.slice(0, retryAt), 'text.delta').length).toBeGreaterThan(0);
    expect(deltas(events.slice(retryAt), 'text.delta').join('')).toBe('recovered answer');
    expect(response.content).toEqual([{ type: 'text', text: 'recovered answer' }]);
    expect(server.requests).toHaveLength(2);
  });

  it('gives up after a bounded number of attempts with the API error', async () => {
    server.setHandler(() => ({ type: 'stream_error', afterEvents: 2, errorType: 'overloaded_error', message: 'Overloaded' }));
    const events: StreamEvent[] = [];
    const err = await failure(provider().stream(request(), (e) => events.push(e)));
    expect(err).toBeInstanceOf(RunError);
    expect((err as Error).message).toBe('Anthropic API error (overloaded_error): Overloaded (gave up after 4 attempts)');
    expect(server.requests).toHaveLength(4);
    expect(events.filter((e) => e.type === 'retrying').map((e) => (e.type === 'retrying' ? e.attempt : 0))).toEqual([1, 2, 3]);
  });

  it('does not retry a mid-stream error that is not transient', async () => {
    server.enqueue({ type: 'stream_error', afterEvents: 2, errorType: 'invalid_request_error', message: 'bad block' }, text('unused'));
    const err = await failure(run(provider()));
    expect((err as Error).message).toBe('Anthropic API error (invalid_request_error): bad block');
    expect(server.requests).toHaveLength(1);
  });

  it('abandons a stalled stream after the idle timeout and retries it', async () => {
    server.enqueue({ type: 'stall', afterEvents: 3 }, text('after the stall'));
    const { response, events } = await run(provider({ idleTimeoutMs: 200 }));
    const retry = events.find((e) => e.type === 'retrying');
    expect(retry).toMatchObject({ type: 'retrying', attempt: 1 });
    expect(retry?.type === 'retrying' && retry.reason).toMatch(/no data .* 200 ms/);
    expect(response.content).toEqual([{ type: 'text', text: 'after the stall' }]);
    expect(server.requests).toHaveLength(2);
  });

  it('resets the idle timer on every event: a slow but steady stream is never abandoned', async () => {
    // 6 text blocks make 34 SSE events; 40 ms apart that is over 1.2 s in all, several
    // times the 300 ms idle timeout, while no single gap comes near it.
    const idleTimeoutMs = 300;
    const blocks = Array.from({ length: 6 }, (_, i) => ({ type: 'text' as const, text: `part ${i} of a slow answer. ` }));
    server.enqueue({ ...reply(...blocks), chunkDelayMs: 40 }, text('a retry must not happen'));
    const started = performance.now();
    const { response, events } = await run(provider({ idleTimeoutMs }));
    expect(performance.now() - started).toBeGreaterThan(idleTimeoutMs);
    expect(events.filter((e) => e.type === 'retrying')).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(response.content).toEqual(blocks);
  });

  it('also abandons a request whose headers never come', async () => {
    server.enqueue({ ...text('too late'), delayMs: 5_000 }, text('second try'));
    const { response, events } = await run(provider({ idleTimeoutMs: 200 }));
    expect(events.filter((e) => e.type === 'retrying')).toHaveLength(1);
    expect(response.content).toEqual([{ type: 'text', text: 'second try' }]);
  });

  it('does not retry when the consumer itself throws', async () => {
    server.enqueue(text('some text'), text('unused'));
    const err = await failure(
      provider().stream(request(), (e) => {
        if (e.type === 'text.delta') throw new Error('consumer bug');
      }),
    );
    expect((err as Error).message).toBe('consumer bug');
    expect(server.requests).toHaveLength(1);
  });
});

describe('aborts', () => {
  it('rejects with an abort error and never retries when the caller aborts mid-stream', async () => {
    server.enqueue({ type: 'stall', afterEvents: 3 }, text('must not be requested'));
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    const err = await failure(
      provider({ idleTimeoutMs: 60_000 }).stream(request({ signal: controller.signal }), (e) => {
        events.push(e);
        if (e.type === 'text.delta') controller.abort();
      }),
    );
    expect(isAbortError(err)).toBe(true);
    expect(events.some((e) => e.type === 'retrying')).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('rejects during the backoff between retries without another attempt', async () => {
    server.enqueue({ type: 'stream_error', afterEvents: 2 }, text('must not be requested'));
    const controller = new AbortController();
    const err = await failure(
      provider({ retryBaseDelayMs: 60_000 }).stream(request({ signal: controller.signal }), (e) => {
        if (e.type === 'retrying') controller.abort();
      }),
    );
    expect(isAbortError(err)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const err = await failure(run(provider(), request({ signal: controller.signal })));
    expect(isAbortError(err)).toBe(true);
    expect(server.requests).toHaveLength(0);
  });
});

describe('errors and configuration', () => {
  it('turns an API refusal into a RunError naming status, type and message', async () => {
    server.enqueue({ type: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'prompt is too long' });
    const err = await failure(run(provider({ maxRetries: 2 })));
    expect(err).toBeInstanceOf(RunError);
    expect((err as RunError).exitCode).toBe(1);
    expect((err as Error).message).toBe('Anthropic API error 400 (invalid_request_error): prompt is too long');
    expect(server.requests).toHaveLength(1);
  });

  it('asks for ANTHROPIC_API_KEY when no key is configured, without sending anything', async () => {
    const p = createProvider('anthropic', { baseURL: server.url, env: {} });
    const err = await failure(run(p));
    expect(err).toBeInstanceOf(RunError);
    expect((err as Error).message).toContain('ANTHROPIC_API_KEY');
    expect(server.requests).toHaveLength(0);
  });

  it('takes the key and base URL from the environment', async () => {
    server.enqueue(text('from env'));
    const p = createProvider('anthropic', { maxRetries: 0, env: { ANTHROPIC_API_KEY: 'env-key', ANTHROPIC_BASE_URL: server.url } });
    const { response } = await run(p);
    expect(response.content).toEqual([{ type: 'text', text: 'from env' }]);
    const headers = server.requests[0]!.headers;
    expect(String(headers['x-api-key'] ?? headers.authorization)).toContain('env-key');
  });

  it('sends ANTHROPIC_AUTH_TOKEN as a bearer token when there is no API key, and prefers a key when both are set', async () => {
    server.enqueue(text('with a token'), text('with a key'));
    const env = { ANTHROPIC_AUTH_TOKEN: 'token-123', ANTHROPIC_BASE_URL: server.url };
    const { response } = await run(createProvider('anthropic', { maxRetries: 0, env }));
    expect(response.content).toEqual([{ type: 'text', text: 'with a token' }]);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer token-123');

    await run(createProvider('anthropic', { maxRetries: 0, env: { ...env, ANTHROPIC_API_KEY: 'key-456' } }));
    const headers = server.requests[1]!.headers;
    expect(String(headers['x-api-key'] ?? headers.authorization)).toContain('key-456');
    expect(JSON.stringify(headers)).not.toContain('token-123');
  });

  it('says which address could not be reached', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const baseURL = `http://127.0.0.1:${port}`;
    const p = createProvider('anthropic', { apiKey: 'k', baseURL, maxRetries: 0, env: {} });
    const err = await failure(run(p));
    expect(err).toBeInstanceOf(RunError);
    expect((err as Error).message).toMatch(new RegExp(`^Cannot reach the Anthropic API at ${baseURL}: .*ECONNREFUSED`));
  });

  it('rejects unknown providers with a ConfigError', () => {
    expect(() => createProvider('openia', { env: {} })).toThrow(ConfigError);
    expect(() => createProvider('openia', { env: {} })).toThrow(/^Unknown provider "openia": expected one of anthropic, openai, ollama, .*Did you mean "openai"\?$/);
  });

  it('loads the SDK lazily rather than at import time, and only its Messages API', () => {
    // Startup speed depends on this: a static value import would load the SDK with the CLI.
    const source = readFileSync(join(import.meta.dirname, '../../src/core/provider/anthropic.ts'), 'utf8');
    const valueImports = source.split('\n').filter((line) => /^import\s+(?!type\b).*['"](@anthropic-ai\/sdk|\.\/anthropic-sdk\.js)['"]/.test(line));
    expect(valueImports).toEqual([]);
    expect(source).toMatch(/import\(\s*'\.\/anthropic-sdk\.js'\s*\)/);
    // The package's main entry attaches every API the SDK has; the subpaths do not.
    const sdk = readFileSync(join(import.meta.dirname, '../../src/core/provider/anthropic-sdk.ts'), 'utf8');
    expect(sdk).not.toMatch(/from '@anthropic-ai\/sdk'/);
  });
});
