// A fake OpenAI-compatible Chat Completions server on 127.0.0.1 for tests: records every
// request and answers with scripted replies in the exact streaming framing the `openai` SDK
// parses: `data: {chunk}` lines, tool call arguments split across chunks by `index`, a last
// usage chunk with empty `choices` (when `stream_options.include_usage` asks), `data: [DONE]`.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RequestLog, closeServer } from './fake-server-common.js';

export interface OpenAIRecordedRequest {
  body: {
    model: string;
    messages: Array<{ role: string; content?: unknown; tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>; tool_call_id?: string }>;
    tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: Record<string, unknown> } }>;
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    [k: string]: unknown;
  };
  headers: Record<string, string | string[] | undefined>;
  url: string;
}

export interface ScriptedCall {
  name: string;
  arguments: unknown;
  id?: string;
  /** How many chunks the JSON arguments are split into (default 3). */
  pieces?: number;
}

export type OpenAIReply =
  | {
      type: 'message';
      text?: string;
      reasoning?: string;
      /** Which delta field carries the reasoning (servers differ). */
      reasoningField?: 'reasoning_content' | 'reasoning';
      calls?: ScriptedCall[];
      finish_reason?: string;
      usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number };
      /** Wait between chunks. */
      chunkDelayMs?: number;
      /** Start every call first, then send their argument pieces in turn (A1 B1 A2 B2 …), as some servers do. */
      interleaveCalls?: boolean;
    }
  | { type: 'http_error'; status: number; message?: string; retryAfter?: number }
  /** Sends `chunks` chunks of a long text, then never ends. */
  | { type: 'stall'; chunks?: number }
  /** Sends two chunks of a text, then an `error` object as the next `data:` line (as vLLM and OpenRouter do). */
  | { type: 'stream_error'; message?: string }
  /** Sends `chunks` chunks of a text, then closes the stream cleanly without a finish reason or [DONE]. */
  | { type: 'cut'; chunks?: number };

export interface FakeOpenAIServer {
  /** The base URL to configure, with `/v1`. */
  url: string;
  requests: OpenAIRecordedRequest[];
  enqueue(...replies: OpenAIReply[]): void;
  waitForRequests(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export const say = (text: string, usage?: { prompt_tokens: number; completion_tokens: number }): OpenAIReply => ({
  type: 'message',
  text,
  ...(usage ? { usage } : {}),
});
export const call = (...calls: ScriptedCall[]): OpenAIReply => ({ type: 'message', calls });

let ids = 0;

/** The exact chunks of one scripted reply, as the SDK receives them. */
export function replyChunks(reply: Extract<OpenAIReply, { type: 'message' }>, model: string, includeUsage: boolean): unknown[] {
  const id = `chatcmpl-${++ids}`;
  const base = { id, object: 'chat.completion.chunk', created: 1_700_000_000, model };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const out: unknown[] = [chunk({ role: 'assistant', content: '' })];
  if (reply.reasoning) {
    const field = reply.reasoningField ?? 'reasoning_content';
    for (const piece of splitText(reply.reasoning, 2)) out.push(chunk({ [field]: piece }));
  }
  if (reply.text) for (const piece of splitText(reply.text, 3)) out.push(chunk({ content: piece }));
  const calls = (reply.calls ?? []).map((c, index) => ({
    start: chunk({ tool_calls: [{ index, id: c.id ?? `call_${++ids}`, type: 'function', function: { name: c.name, arguments: '' } }] }),
    pieces: splitText(JSON.stringify(c.arguments), c.pieces ?? 3).map((piece) => chunk({ tool_calls: [{ index, function: { arguments: piece } }] })),
  }));
  if (reply.interleaveCalls) {
    for (const c of calls) out.push(c.start);
    for (let i = 0; calls.some((c) => i < c.pieces.length); i++) for (const c of calls) if (i < c.pieces.length) out.push(c.pieces[i]);
  } else {
    for (const c of calls) out.push(c.start, ...c.pieces);
  }
  out.push(chunk({}, reply.finish_reason ?? (reply.calls?.length ? 'tool_calls' : 'stop')));
  if (includeUsage) {
    const u = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
    out.push({
      ...base,
      choices: [],
      usage: {
        prompt_tokens: u.prompt_tokens,
        completion_tokens: u.completion_tokens,
        total_tokens: u.prompt_tokens + u.completion_tokens,
        ...('cached_tokens' in u ? { prompt_tokens_details: { cached_tokens: u.cached_tokens } } : {}),
      },
    });
  }
  return out;
}

function splitText(text: string, pieces: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / pieces));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startFakeOpenAI(): Promise<FakeOpenAIServer> {
  const log = new RequestLog<OpenAIRecordedRequest>();
  const requests = log.requests;
  const queue: OpenAIReply[] = [];

  const respond = async (res: ServerResponse, recorded: OpenAIRecordedRequest): Promise<void> => {
    const scripted = queue.shift() ?? { type: 'http_error', status: 400, message: 'no scripted reply' };
    const write = (data: unknown) => {
      if (!res.destroyed) res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    };
    switch (scripted.type) {
      case 'http_error':
        res.writeHead(scripted.status, {
          'content-type': 'application/json',
          ...(scripted.retryAfter !== undefined ? { 'retry-after': String(scripted.retryAfter) } : {}),
        });
        res.end(JSON.stringify({ error: { message: scripted.message ?? 'scripted error', type: 'invalid_request_error', param: null, code: null } }));
        return;
      case 'message': {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const includeUsage = recorded.body.stream_options?.include_usage === true;
        for (const c of replyChunks(scripted, recorded.body.model, includeUsage)) {
          write(c);
          if (scripted.chunkDelayMs) await sleep(scripted.chunkDelayMs);
        }
        write('[DONE]');
        res.end();
        return;
      }
      case 'stream_error': {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunks = replyChunks({ type: 'message', text: 'partial output that will be lost' }, recorded.body.model, false);
        for (const c of chunks.slice(0, 2)) write(c);
        write({ error: { message: scripted.message ?? 'scripted stream error', type: 'server_error', code: 500 } });
        write('[DONE]');
        res.end();
        return;
      }
      case 'cut': {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunks = replyChunks({ type: 'message', text: 'this stream is cut short' }, recorded.body.model, false);
        for (const c of chunks.slice(0, scripted.chunks ?? 2)) write(c);
        res.end();
        return;
      }
      case 'stall': {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunks = replyChunks({ type: 'message', text: 'this stream stalls and stalls' }, recorded.body.model, false);
        for (const c of chunks.slice(0, scripted.chunks ?? 2)) write(c);
        // Never ends: the client's watchdog, its cancellation or close() must deal with it.
        return;
      }
    }
  };

  const server = createServer((req, res) => {
    const chunksIn: Buffer[] = [];
    req.on('data', (c: Buffer) => chunksIn.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
        return;
      }
      let body: OpenAIRecordedRequest['body'];
      try {
        body = JSON.parse(Buffer.concat(chunksIn).toString('utf8')) as OpenAIRecordedRequest['body'];
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'body is not JSON' } }));
        return;
      }
      const recorded: OpenAIRecordedRequest = { body, headers: req.headers, url: req.url };
      log.record(recorded);
      respond(res, recorded).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(err) } }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    waitForRequests: (n, timeoutMs) => log.waitFor(n, timeoutMs),
    close: () => closeServer(server),
  };
}
