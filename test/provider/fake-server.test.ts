// The fake Messages API itself: other suites trust its framing, recording and scripting.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  lastUserText,
  startFakeServer,
  systemText,
  text,
  toolNames,
  toolResults,
  type FakeServer,
  type RecordedRequest,
} from '../support/fake-anthropic.js';

let server: FakeServer;

beforeEach(async () => {
  server = await startFakeServer();
});

afterEach(async () => {
  await server.close();
});

function post(body: unknown, headers: Record<string, string> = { 'x-api-key': 'k' }): Promise<Response> {
  return fetch(`${server.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

const BODY = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }] };

describe('fake Anthropic server', () => {
  it('listens on 127.0.0.1 without a /v1 suffix', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers an empty queue with a 400 invalid_request_error', async () => {
    const res = await post(BODY);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'no scripted reply' } });
    expect(server.requests).toHaveLength(1);
  });

  it('rejects requests without credentials and accepts a bearer token', async () => {
    server.enqueue(text('a'));
    expect((await post(BODY, {})).status).toBe(401);
    const res = await post(BODY, { authorization: 'Bearer k' });
    expect(res.status).toBe(200);
    await res.text();
    expect(server.requests).toHaveLength(1);
  });

  it('frames every SSE event with an event line and a data line, ending in message_stop', async () => {
    server.enqueue(text('abcdef', { input_tokens: 3, output_tokens: 4 }));
    const raw = await (await post(BODY)).text();
    const events = raw.trimEnd().split('\n\n');
    for (const e of events) expect(e).toMatch(/^event: [a-z_]+\ndata: \{.*\}$/);
    const types = events.map((e) => /^event: (\S+)/.exec(e)![1]);
    expect(types[0]).toBe('message_start');
    expect(types).toContain('ping');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(types.filter((t) => t === 'content_block_delta').length).toBeGreaterThan(1);
    const delta = JSON.parse(events.at(-2)!.split('\ndata: ')[1]!) as { delta: { stop_reason: string }; usage: { output_tokens: number } };
    expect(delta).toMatchObject({ delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } });
  });

  it('lets a handler take precedence over the queue and sees the request already recorded', async () => {
    server.enqueue(text('from the queue'));
    const seen: number[] = [];
    server.setHandler((req, index) => {
      seen.push(server.requests.indexOf(req), index);
      return { type: 'http_error', status: 418, errorType: 'teapot', message: 'short and stout' };
    });
    const res = await post(BODY);
    expect(res.status).toBe(418);
    expect(await res.json()).toEqual({ type: 'error', error: { type: 'teapot', message: 'short and stout' } });
    expect(seen).toEqual([0, 0]);
  });

  it('waits for requests and times out with a clear error', async () => {
    const waiting = server.waitForRequests(2, 5_000);
    server.enqueue(text('one'), text('two'));
    await (await post(BODY)).text();
    await (await post(BODY)).text();
    await expect(waiting).resolves.toBeUndefined();
    await expect(server.waitForRequests(3, 50)).rejects.toThrow('Only 2 of 3 requests');
    expect(server.requests.every((r) => typeof r.finishedAt === 'number' && r.finishedAt >= r.receivedAt)).toBe(true);
  });

  it('reads requests through the helpers', () => {
    const req: RecordedRequest = {
      body: {
        model: 'm',
        max_tokens: 1,
        system: [{ type: 'text', text: 'sys one' }, { type: 'text', text: 'sys two' }],
        tools: [{ name: 'read' }, { name: 'bash' }],
        messages: [
          { role: 'user', content: 'first' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: {} }] },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't1', content: 'data', is_error: true },
              { type: 'text', text: 'and then' },
            ],
          },
        ],
      },
      headers: {},
      receivedAt: 0,
    };
    expect(lastUserText(req)).toBe('and then');
    expect(systemText(req)).toBe('sys one\nsys two');
    expect(toolNames(req)).toEqual(['read', 'bash']);
    expect(toolResults(req)).toEqual([{ type: 'tool_result', tool_use_id: 't1', content: 'data', is_error: true }]);
  });
});
