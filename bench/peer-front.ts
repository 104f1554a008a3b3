// A front door for the fan-out scenario's fake Messages API (bench/fanout-scenario.ts) that any
// program can be pointed at with ANTHROPIC_BASE_URL. Model requests (`POST /v1/messages`, any
// query string, e.g. Claude Code's `?beta=true`) are passed through to the fake server, which
// records and answers them; every other request a program makes (a reachability `HEAD /`,
// `count_tokens`, quota or telemetry calls its switches did not turn off) is recorded here and
// answered the way the real API would, so no program waits on or retries a request the fake
// does not know, and the bench can say what each program asked for beside its model calls.
// Both programs of a comparison go through this front, so its hop costs both the same.
import { Agent, createServer, request, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from '../test/support/fake-server-common.js';

export interface SideRequest {
  method: string;
  /** The path without its query string. */
  path: string;
  receivedAt: number;
}

export interface PeerFront {
  url: string;
  /** Every request that was not a model request, in arrival order. */
  sideRequests: SideRequest[];
  close(): Promise<void>;
}

const MESSAGES_PATH = '/v1/messages';
const COUNT_TOKENS_PATH = '/v1/messages/count_tokens';
/** Headers about one connection, not the request: never passed on. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-connection'];

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function answerJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Starts the front on 127.0.0.1, forwarding model requests to the fake server at `fakeUrl`. */
export async function startPeerFront(fakeUrl: string): Promise<PeerFront> {
  const target = new URL(fakeUrl);
  // One kept-alive pool without a cap: ten children's streams are in flight at once.
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const sideRequests: SideRequest[] = [];

  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    const headers: OutgoingHttpHeaders = { ...req.headers, host: target.host, 'content-length': String(body.length) };
    // The body is read whole and re-sent with its length: the client's framing does not apply.
    for (const hop of HOP_BY_HOP) delete headers[hop];
    const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (err) => {
      if (!res.headersSent) answerJson(res, 502, { type: 'error', error: { type: 'api_error', message: `fake server unreachable: ${err.message}` } });
      else res.destroy(err);
    });
    upstream.end(body);
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'POST' && path === MESSAGES_PATH) {
      forward(req, res).catch((err: unknown) => res.destroy(err instanceof Error ? err : new Error(String(err))));
      return;
    }
    sideRequests.push({ method: req.method ?? '?', path, receivedAt: performance.timeOrigin + performance.now() });
    readBody(req)
      .then((body) => {
        if (req.method === 'POST' && path === COUNT_TOKENS_PATH) {
          // The fake's own size measure (chars / 4), as its context-window check uses.
          answerJson(res, 200, { input_tokens: Math.ceil(body.length / 4) });
        } else if ((req.method === 'HEAD' || req.method === 'GET') && path === '/') {
          res.writeHead(200).end();
        } else {
          answerJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: `${req.method} ${path} is not served by this fake API` } });
        }
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sideRequests,
    close: async () => {
      agent.destroy();
      await closeServer(server);
    },
  };
}
