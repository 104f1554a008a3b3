// The stall and retry policy (provider/retry.ts) through the real SDK against the fake
// Messages API: each failure gets its own message, the overall deadline holds across
// retries, and cancelling works at every point. Short configured timeouts, no sleeps.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config/schema.js';
import { isAbortError } from '../../src/core/errors.js';
import { createProvider, type ModelRequest, type Provider, type StreamEvent } from '../../src/core/provider/index.js';
import { reply, startFakeServer, text, type FakeServer } from '../support/fake-anthropic.js';

let server: FakeServer;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(async () => {
  await server.close();
});

interface Knobs {
  maxRetries?: number;
  idleTimeoutMs?: number;
  retryBaseDelayMs?: number;
  requestTimeoutMs?: number;
}

function provider(knobs: Knobs = {}): Provider {
  return createProvider('anthropic', { apiKey: 'test-key', baseURL: server.url, maxRetries: 3, retryBaseDelayMs: 1, env: {}, ...knobs });
}

function request(signal: AbortSignal = new AbortController().signal): ModelRequest {
  return {
    model: 'claude-haiku-4-5',
    system: '',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    maxTokens: 64,
    signal,
  };
}

async function outcome(p: Provider, signal?: AbortSignal, onEvent?: (e: StreamEvent) => void) {
  const events: StreamEvent[] = [];
  try {
    const response = await p.stream(request(signal), (e) => {
      events.push(e);
      onEvent?.(e);
    });
    return { response, events, error: undefined };
  } catch (error) {
    return { response: undefined, events, error: error as Error };
  }
}

const reasons = (events: StreamEvent[]) => events.flatMap((e) => (e.type === 'retrying' ? [e.reason] : []));

describe('each failure says what it was', () => {
  it('a stream that stalls after its headers: "no data for N", then gives up after the retries', async () => {
    server.setHandler(() => ({ type: 'stall', afterEvents: 2 }));
    const { error, events } = await outcome(provider({ idleTimeoutMs: 100, maxRetries: 1 }));
    expect(error?.message).toBe('Anthropic API stopped responding: no data for 100 ms (gave up after 2 attempts)');
    expect(reasons(events)).toEqual(['Anthropic API stopped responding: no data for 100 ms']);
  });

  it('a 500 then success, under an idle timeout shorter than the backoff, is a retried HTTP error and not a stall', async () => {
    server.enqueue({ type: 'http_error', status: 500, errorType: 'api_error', message: 'Internal server error' }, text('recovered'));
    const { response, events, error } = await outcome(provider({ idleTimeoutMs: 100, retryBaseDelayMs: 250 }));
    expect(error).toBeUndefined();
    expect(response?.content).toEqual([{ type: 'text', text: 'recovered' }]);
    expect(reasons(events)).toEqual(['Anthropic API error 500 (api_error): Internal server error']);
  });

  it('a 500 every time ends with the status and the API message, and the attempts made', async () => {
    server.setHandler(() => ({ type: 'http_error', status: 503, errorType: 'api_error', message: 'Service unavailable' }));
    const { error } = await outcome(provider({ idleTimeoutMs: 100, maxRetries: 2 }));
    expect(error?.message).toBe('Anthropic API error 503 (api_error): Service unavailable (gave up after 3 attempts)');
    expect(server.requests).toHaveLength(3);
  });

  it('a connection reset mid-stream is retried from scratch and named as a reset', async () => {
    let seen!: () => void;
    const firstText = new Promise<void>((resolve) => (seen = resolve));
    server.enqueue({ type: 'reset', afterEvents: 3, when: firstText }, text('after the reset'));
    const { response, events } = await outcome(provider({ idleTimeoutMs: 5_000 }), undefined, (e) => {
      if (e.type === 'text.delta') seen();
    });
    expect(reasons(events)).toEqual([`The connection to the Anthropic API at ${server.url} was reset mid-response: read ECONNRESET`]);
    expect(response?.content).toEqual([{ type: 'text', text: 'after the reset' }]);
    // Text before the retry came from the broken stream; the caller was told to drop it.
    const retryAt = events.findIndex((e) => e.type === 'retrying');
    expect(events.slice(0, retryAt).some((e) => e.type === 'text.delta')).toBe(true);
  });

  it('a connection reset before any response is a reset too, not a stall', async () => {
    server.enqueue({ type: 'reset' });
    const { error } = await outcome(provider({ idleTimeoutMs: 100, maxRetries: 0 }));
    expect(error?.message).toBe(`The connection to the Anthropic API at ${server.url} was reset: read ECONNRESET`);
  });

  it('a refusal that retrying cannot fix fails at once', async () => {
    server.setHandler(() => ({ type: 'http_error', status: 401, errorType: 'authentication_error', message: 'invalid x-api-key' }));
    const { error } = await outcome(provider());
    expect(error?.message).toBe('Anthropic API error 401 (authentication_error): invalid x-api-key');
    expect(server.requests).toHaveLength(1);
  });
});

describe('the overall deadline', () => {
  it('ends a request whose retry never answers, naming the setting and the last error', async () => {
    server.enqueue({ type: 'http_error', status: 500, errorType: 'api_error', message: 'boom' }, { ...text('far too late'), delayMs: 30_000 });
    const { error } = await outcome(provider({ idleTimeoutMs: 60_000, requestTimeoutMs: 300 }));
    expect(error?.message).toBe(
      'Anthropic API request timed out: no usable response within 300 ms (provider.anthropic.requestTimeoutMs); last error after 2 attempts: Anthropic API error 500 (api_error): boom',
    );
  });

  it('counts stalls across retries: repeated stalls fail within the deadline, not after every retry', async () => {
    server.setHandler(() => ({ type: 'stall', afterEvents: 2 }));
    const { error } = await outcome(provider({ idleTimeoutMs: 200, requestTimeoutMs: 350, maxRetries: 10 }));
    expect(error?.message).toBe(
      'Anthropic API request timed out: no usable response within 350 ms (provider.anthropic.requestTimeoutMs); last error after 2 attempts: Anthropic API stopped responding: no data for 200 ms',
    );
  });

  it('gives up at once when the wait the API asks for would pass the deadline', async () => {
    server.enqueue({ type: 'http_error', status: 429, errorType: 'rate_limit_error', message: 'Slow down', retryAfter: 600 }, text('unused'));
    const { error, events } = await outcome(provider({ requestTimeoutMs: 5_000 }));
    expect(error?.message).toBe(
      'Anthropic API request timed out: no usable response within 5 s (provider.anthropic.requestTimeoutMs); last error after 1 attempt: Anthropic API error 429 (rate_limit_error): Slow down',
    );
    expect(reasons(events)).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('never cuts off a response that keeps streaming, however long it takes in all', async () => {
    const blocks = Array.from({ length: 6 }, (_, i) => ({ type: 'text' as const, text: `part ${i}. ` }));
    // 34 events 20 ms apart: well over the 300 ms budget in all, never silent for long.
    server.enqueue({ ...reply(...blocks), chunkDelayMs: 20 });
    const { response, error } = await outcome(provider({ idleTimeoutMs: 200, requestTimeoutMs: 300 }));
    expect(error).toBeUndefined();
    expect(response?.content).toEqual(blocks);
  });
});

describe('cancelling mid-retry', () => {
  it('during the backoff wait', async () => {
    server.setHandler(() => ({ type: 'http_error', status: 500, errorType: 'api_error', message: 'boom' }));
    const controller = new AbortController();
    const { error } = await outcome(provider({ retryBaseDelayMs: 60_000 }), controller.signal, (e) => {
      if (e.type === 'retrying') controller.abort();
    });
    expect(isAbortError(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('during a stalled stream of a retried attempt', async () => {
    server.enqueue({ type: 'http_error', status: 500, errorType: 'api_error', message: 'boom' }, { type: 'stall', afterEvents: 3 });
    const controller = new AbortController();
    let retried = false;
    const { error } = await outcome(provider({ idleTimeoutMs: 60_000 }), controller.signal, (e) => {
      if (e.type === 'retrying') retried = true;
      if (e.type === 'text.delta' && retried) controller.abort();
    });
    expect(isAbortError(error)).toBe(true);
    expect(server.requests).toHaveLength(2);
  });

  it('while waiting for headers that never come', async () => {
    server.enqueue({ ...text('never'), delayMs: 30_000 });
    const controller = new AbortController();
    const pending = outcome(provider({ idleTimeoutMs: 60_000 }), controller.signal);
    await server.waitForRequests(1);
    controller.abort();
    const { error } = await pending;
    expect(isAbortError(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });
});

describe('configuration', () => {
  it('accepts provider.anthropic.requestTimeoutMs and refuses nonsense', () => {
    expect(ConfigSchema.parse({ provider: { anthropic: { requestTimeoutMs: 90_000 } } }).provider.anthropic).toEqual({ requestTimeoutMs: 90_000 });
    expect(ConfigSchema.safeParse({ provider: { anthropic: { requestTimeoutMs: 5 } } }).success).toBe(false);
  });
});
