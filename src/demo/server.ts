// A Messages API endpoint on 127.0.0.1 that streams the demo script. The demo talks to it
// through the real SDK and provider, so everything after the HTTP socket is the product's
// normal path.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { demoReply } from './script.js';
import { encodeEvent, replyEvents } from './sse.js';

export interface DemoServer {
  url: string;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `No route ${req.method} ${req.url}` } }));
    return;
  }
  const body = JSON.parse(await readBody(req)) as { model: string; messages: Array<{ role: string; content: unknown }> };
  const reply = demoReply(body);
  if (reply.delayMs) await sleep(reply.delayMs);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const inputTokens = Math.ceil(JSON.stringify(body.messages).length / 4) + 1200;
  for (const event of replyEvents(reply, body.model, inputTokens)) {
    if (res.destroyed) return;
    res.write(encodeEvent(event));
    if (reply.chunkDelayMs && event.event === 'content_block_delta') await sleep(reply.chunkDelayMs);
  }
  res.end();
}

export async function startDemoServer(): Promise<DemoServer> {
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(err) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
