// A fake Anthropic Messages API on 127.0.0.1 for tests: records every request and answers
// with scripted replies in the exact streaming (SSE) framing the SDK parses: `event:`
// lines, `message_delta` carrying usage, a closing `message_stop`.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeEvent, type SseEvent } from '../../src/demo/sse.js';
import { RequestLog, closeServer } from './fake-server-common.js';

export interface RecordedRequest {
  body: {
    model: string;
    system?: unknown;
    messages: Array<{ role: string; content: unknown }>;
    tools?: Array<{ name: string; description?: string; input_schema?: unknown; [k: string]: unknown }>;
    max_tokens: number;
    [k: string]: unknown;
  };
  headers: Record<string, string | string[] | undefined>;
  receivedAt: number;
  finishedAt?: number;
}

export type ScriptedBlock =
  | { type: 'text'; text: string; citations?: unknown[] }
  /** A server-side tool call (web search), streamed like a tool_use block. */
  | { type: 'server_tool_use'; name: string; input: unknown; id: string }
  /** A server tool's result block, sent whole in its content_block_start. */
  | { type: 'web_search_tool_result'; tool_use_id: string; content: unknown }
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'tool_use'; name: string; input: unknown; id?: string; partialJson?: string };

export interface ScriptedUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

export type ScriptedReply =
  | {
      type: 'message';
      content: ScriptedBlock[];
      stop_reason?: string;
      usage?: ScriptedUsage;
      /** Wait before sending headers. */
      delayMs?: number;
      /** Wait between SSE events. */
      chunkDelayMs?: number;
      model?: string;
    }
  | { type: 'http_error'; status: number; errorType?: string; message?: string; retryAfter?: number }
  | { type: 'stream_error'; afterEvents?: number; errorType?: string; message?: string }
  | { type: 'stall'; afterEvents?: number }
  /**
   * The connection is reset (TCP RST): before any headers when `afterEvents` is absent, else
   * after that many SSE events — and, when `when` is given, only once it settles, so a test
   * can wait until the client has seen those events.
   */
  | { type: 'reset'; afterEvents?: number; when?: Promise<unknown> };

export type MessageReply = Extract<ScriptedReply, { type: 'message' }>;

export type ReplyHandler = (req: RecordedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>;

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  enqueue(...replies: ScriptedReply[]): void;
  setHandler(handler: ReplyHandler): void;
  waitForRequests(n: number, timeoutMs?: number): Promise<void>;
  /**
   * Answers 400 `prompt is too long` to any request estimated (chars/4 of its system, tools
   * and messages) above `tokens`, as the API does past a model's window; replies then report
   * that estimate as their input tokens unless the script says otherwise. Undefined turns it off.
   */
  setContextWindow(tokens: number | undefined): void;
  close(): Promise<void>;
}

/** The fake's size of a request: chars/4 of what the model reads. */
export function estimatedTokens(req: RecordedRequest): number {
  const { system, tools, messages } = req.body;
  return Math.ceil(JSON.stringify({ system, tools, messages }).length / 4);
}

let toolIds = 0;

export const text = (s: string, usage?: ScriptedUsage): MessageReply => ({ type: 'message', content: [{ type: 'text', text: s }], ...(usage ? { usage } : {}) });
export const toolUse = (name: string, input: unknown, id?: string): MessageReply => ({
  type: 'message',
  content: [{ type: 'tool_use', name, input, ...(id ? { id } : {}) }],
});
export const reply = (...content: ScriptedBlock[]): MessageReply => ({ type: 'message', content });

type ContentParts = Array<{ type: string; text?: string; content?: unknown; tool_use_id?: string; is_error?: boolean }>;

function partsOf(message: { content: unknown } | undefined): ContentParts {
  if (!message) return [];
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  return Array.isArray(message.content) ? (message.content as ContentParts) : [];
}

/** Text of the newest user message. */
export function lastUserText(req: RecordedRequest): string {
  const users = req.body.messages.filter((m) => m.role === 'user');
  return partsOf(users[users.length - 1])
    .filter((p) => p.type === 'text')
    .map((p) => p.text ?? '')
    .join('');
}

/** The tool_result blocks of the newest user message. */
export function toolResults(req: RecordedRequest): Array<{ type: 'tool_result'; tool_use_id: string; content: unknown; is_error?: boolean }> {
  const last = req.body.messages[req.body.messages.length - 1];
  return partsOf(last).filter((p) => p.type === 'tool_result') as Array<{ type: 'tool_result'; tool_use_id: string; content: unknown; is_error?: boolean }>;
}

export function systemText(req: RecordedRequest): string {
  const system = req.body.system;
  if (typeof system === 'string') return system;
  if (Array.isArray(system)) return (system as Array<{ text?: string }>).map((b) => b.text ?? '').join('\n');
  return '';
}

export function toolNames(req: RecordedRequest): string[] {
  return (req.body.tools ?? []).map((t) => t.name);
}

type Frame = SseEvent;

function chunks(s: string, n: number): string[] {
  if (!s) return [''];
  const size = Math.max(1, Math.ceil(s.length / n));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

/** The SSE frames of a whole streamed message. */
function messageFrames(r: Extract<ScriptedReply, { type: 'message' }>, model: string): Frame[] {
  const usage = r.usage ?? {};
  const hasTool = r.content.some((b) => b.type === 'tool_use');
  const frames: Frame[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: `msg_fake_${Math.random().toString(36).slice(2, 10)}`,
          type: 'message',
          role: 'assistant',
          model: r.model ?? model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: usage.input_tokens ?? 10,
            output_tokens: 1,
            cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
            cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
          },
        },
      },
    },
  ];
  r.content.forEach((block, index) => {
    const delta = (d: unknown) => frames.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: d } });
    if (block.type === 'text') {
      frames.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } });
      for (const c of chunks(block.text, 3)) delta({ type: 'text_delta', text: c });
      for (const citation of block.citations ?? []) delta({ type: 'citations_delta', citation });
    } else if (block.type === 'server_tool_use') {
      frames.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'server_tool_use', id: block.id, name: block.name, input: {} } } });
      for (const c of chunks(JSON.stringify(block.input), 2)) delta({ type: 'input_json_delta', partial_json: c });
    } else if (block.type === 'web_search_tool_result') {
      frames.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: block } });
    } else if (block.type === 'thinking') {
      frames.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } },
      });
      for (const c of chunks(block.thinking, 2)) delta({ type: 'thinking_delta', thinking: c });
      delta({ type: 'signature_delta', signature: block.signature ?? `sig_${index}` });
    } else {
      const id = block.id ?? `toolu_${++toolIds}`;
      frames.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name: block.name, input: {} } } });
      const json = block.partialJson ?? JSON.stringify(block.input);
      for (const c of chunks(json, 3)) delta({ type: 'input_json_delta', partial_json: c });
    }
    frames.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
    if (index === 0) frames.push({ event: 'ping', data: { type: 'ping' } });
  });
  frames.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: r.stop_reason ?? (hasTool ? 'tool_use' : 'end_turn'), stop_sequence: null },
      usage: { output_tokens: usage.output_tokens ?? 5 },
    },
  });
  frames.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return frames;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startFakeServer(): Promise<FakeServer> {
  const log = new RequestLog<RecordedRequest>();
  const requests = log.requests;
  const queue: ScriptedReply[] = [];
  let handler: ReplyHandler | undefined;

  const send = async (res: ServerResponse, frames: Frame[], delayMs = 0): Promise<void> => {
    for (const f of frames) {
      if (res.destroyed) return;
      res.write(encodeEvent(f));
      if (delayMs) await sleep(delayMs);
    }
  };

  let contextWindow: number | undefined;

  const respond = async (res: ServerResponse, recorded: RecordedRequest, index: number): Promise<void> => {
    const size = estimatedTokens(recorded);
    let scripted: ScriptedReply;
    if (contextWindow !== undefined && size > contextWindow) {
      scripted = { type: 'http_error', status: 400, errorType: 'invalid_request_error', message: `prompt is too long: ${size} tokens > ${contextWindow} maximum` };
    } else {
      scripted = handler
        ? await handler(recorded, index)
        : (queue.shift() ?? { type: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'no scripted reply' });
      if (contextWindow !== undefined && scripted.type === 'message' && scripted.usage?.input_tokens === undefined) {
        scripted = { ...scripted, usage: { ...scripted.usage, input_tokens: size } };
      }
    }
    switch (scripted.type) {
      case 'http_error':
        res.writeHead(scripted.status, {
          'content-type': 'application/json',
          ...(scripted.retryAfter !== undefined ? { 'retry-after': String(scripted.retryAfter) } : {}),
        });
        res.end(JSON.stringify({ type: 'error', error: { type: scripted.errorType ?? 'api_error', message: scripted.message ?? 'scripted error' } }));
        return;
      case 'message':
        if (scripted.delayMs) await sleep(scripted.delayMs);
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        await send(res, messageFrames(scripted, recorded.body.model), scripted.chunkDelayMs);
        res.end();
        return;
      case 'stream_error': {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        await send(res, messageFrames({ type: 'message', content: [{ type: 'text', text: 'partial output that will be lost' }] }, recorded.body.model).slice(0, scripted.afterEvents ?? 3));
        await send(res, [{ event: 'error', data: { type: 'error', error: { type: scripted.errorType ?? 'overloaded_error', message: scripted.message ?? 'Overloaded' } } }]);
        res.end();
        return;
      }
      case 'reset':
        if (scripted.afterEvents !== undefined) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          await send(res, messageFrames({ type: 'message', content: [{ type: 'text', text: 'this stream is cut off' }] }, recorded.body.model).slice(0, scripted.afterEvents));
          await scripted.when;
        }
        res.socket?.resetAndDestroy();
        return;
      case 'stall':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        await send(res, messageFrames({ type: 'message', content: [{ type: 'text', text: 'this stream stalls' }] }, recorded.body.model).slice(0, scripted.afterEvents ?? 2));
        // Never ends: the client's idle watchdog (or close()) must deal with it.
        return;
    }
  };

  const server = createServer((req, res) => {
    const chunksIn: Buffer[] = [];
    req.on('data', (c: Buffer) => chunksIn.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
        res.writeHead(404).end();
        return;
      }
      const auth = req.headers['x-api-key'] ?? req.headers.authorization;
      if (!auth) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'missing key' } }));
        return;
      }
      let body: RecordedRequest['body'];
      try {
        body = JSON.parse(Buffer.concat(chunksIn).toString('utf8')) as RecordedRequest['body'];
      } catch {
        // Throwing here would crash the whole test process instead of failing one test.
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'body is not JSON' } }));
        return;
      }
      const recorded: RecordedRequest = {
        body,
        headers: req.headers,
        receivedAt: performance.timeOrigin + performance.now(),
      };
      log.record(recorded);
      const index = requests.length - 1;
      res.on('close', () => {
        recorded.finishedAt = performance.timeOrigin + performance.now();
      });
      respond(res, recorded, index).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(err) } }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    setContextWindow: (tokens) => {
      contextWindow = tokens;
    },
    setHandler: (h) => {
      handler = h;
    },
    waitForRequests: (n, timeoutMs) => log.waitFor(n, timeoutMs),
    close: () => closeServer(server),
  };
}
