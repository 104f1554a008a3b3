// The fetch the provider SDKs get in the CLI bundle (src/core/provider/node-fetch.ts), against
// a real HTTP server: what a request carries, a body read as it streams, abort, keep-alive,
// and the errors the providers classify (a refused connection, a reset or closed one
// mid-body) in the shapes Node's own fetch gives them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { fetch, FormData, Headers, Response } from '../../src/core/provider/node-fetch.js';
import { waitFor } from '../support/wait.js';

interface Seen {
  method: string;
  headers: IncomingMessage['headers'];
  body: string;
  remotePort: number | undefined;
}

let server: Server | undefined;
const sockets = new Set<Socket>();

afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A server whose handler gets each request with its whole body read. */
async function serve(handler: (seen: Seen, res: ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler({ method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString(), remotePort: req.socket.remotePort }, res));
  });
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function firstChunk(response: Response): Promise<{ text: string; rest: AsyncIterator<Uint8Array> }> {
  const rest = response.body![Symbol.asyncIterator]();
  const next = await rest.next();
  return { text: Buffer.from(next.value as Uint8Array).toString(), rest };
}

describe('fetch over node:http', () => {
  it('sends the method, headers from any source and the body with its length', async () => {
    const seen: Seen[] = [];
    const url = await serve((s, res) => {
      seen.push(s);
      res.end('{}');
    });
    const body = `{"text":"${'é'.repeat(100_000)}"}`;
    const response = await fetch(`${url}/v1/messages?beta=true`, { method: 'post', headers: new Headers([['X-Api-Key', 'k'], ['anthropic-beta', 'a'], ['Anthropic-Beta', 'b']]), body });
    expect(await response.json()).toEqual({});
    await fetch(new URL(url), { headers: { 'x-one': 'two' } }).then((r) => r.text());
    expect(seen[0]).toMatchObject({ method: 'POST', body });
    expect(seen[0]!.headers).toMatchObject({ 'x-api-key': 'k', 'anthropic-beta': 'a, b', 'content-length': String(Buffer.byteLength(body)) });
    expect(seen[1]).toMatchObject({ method: 'GET', body: '' });
    expect(seen[1]!.headers['x-one']).toBe('two');
  });

  it('gives the body as it arrives, before the response has ended', async () => {
    let res!: ServerResponse;
    const url = await serve((_, r) => {
      res = r;
      r.writeHead(200, { 'content-type': 'text/event-stream' });
      r.write('event: one\n\n');
    });
    const response = await fetch(url, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    expect(response.ok).toBe(true);
    expect(response.headers.get('Content-Type')).toBe('text/event-stream');
    const { text, rest } = await firstChunk(response);
    expect(text).toBe('event: one\n\n');
    res.end('event: two\n\n');
    expect(Buffer.from((await rest.next()).value as Uint8Array).toString()).toBe('event: two\n\n');
    expect((await rest.next()).done).toBe(true);
  });

  it('reuses the connection for the next request', async () => {
    const ports: Array<number | undefined> = [];
    const url = await serve((s, res) => {
      ports.push(s.remotePort);
      res.end('ok');
    });
    expect(await (await fetch(url)).text()).toBe('ok');
    expect(await (await fetch(url)).text()).toBe('ok');
    expect(ports).toHaveLength(2);
    expect(ports[1]).toBe(ports[0]);
  });

  it('keeps a reply silent for longer than the idle limit, then closes the idle connection', { timeout: 20_000 }, async () => {
    let closedAt: number | undefined;
    const url = await serve((_, res) => {
      res.socket!.once('close', () => (closedAt = Date.now()));
      res.writeHead(200);
      res.write('thinking…');
      // Longer than the 4 s an idle connection is kept: a model may think that long.
      setTimeout(() => res.end(' done'), 4_500);
    });
    // Only the client's limit closes it: Node's server would after 5 s of its own.
    server!.keepAliveTimeout = 60_000;
    const response = await fetch(url);
    expect(await response.text()).toBe('thinking… done');
    const endedAt = Date.now();
    const closed = await waitFor(() => closedAt, 'the idle connection to close', { timeoutMs: 10_000 });
    expect(closed - endedAt).toBeGreaterThan(3_000);
  });

  it('rejects a pending request with the abort reason and drops its connection', async () => {
    let closed!: () => void;
    const gone = new Promise<void>((resolve) => (closed = resolve));
    const url = await serve((_, res) => res.on('close', closed));
    const controller = new AbortController();
    const pending = fetch(url, { method: 'POST', body: '{}', signal: controller.signal });
    await new Promise<void>((resolve) => server!.once('request', () => resolve()));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await gone;
    // Aborted before it starts: no request at all.
    await expect(fetch(url, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('fails a body being read with the abort reason', async () => {
    const url = await serve((_, res) => {
      res.writeHead(200);
      res.write('data: 1\n\n');
    });
    const controller = new AbortController();
    const response = await fetch(url, { signal: controller.signal });
    const { rest } = await firstChunk(response);
    const reading = rest.next();
    controller.abort();
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
  });

  it("says a refused connection as fetch does: TypeError 'fetch failed' caused by the socket's error", async () => {
    const url = await serve(() => {});
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    const err = (await fetch(url).catch((e: unknown) => e)) as TypeError & { cause: Error & { code?: string } };
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('fetch failed');
    expect(err.cause.code).toBe('ECONNREFUSED');
  });

  it("says a connection reset mid-body as fetch does: TypeError 'terminated' caused by the reset", async () => {
    let res!: ServerResponse;
    const url = await serve((_, r) => {
      res = r;
      r.writeHead(200, { 'content-type': 'text/event-stream' });
      r.write('data: 1\n\n');
    });
    const response = await fetch(url);
    const { rest } = await firstChunk(response);
    res.socket!.resetAndDestroy();
    const err = (await rest.next().catch((e: unknown) => e)) as TypeError & { cause: Error & { code?: string } };
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('terminated');
    expect(err.cause).toMatchObject({ code: 'ECONNRESET', message: 'read ECONNRESET' });
  });

  it("says a connection closed mid-body as fetch does: 'terminated', the other side closed", async () => {
    const url = await serve((_, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('only part');
      res.socket!.end();
    });
    const response = await fetch(url);
    const err = (await response.text().catch((e: unknown) => e)) as TypeError & { cause: Error };
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('terminated');
    expect(err.cause.message).toBe('other side closed');
  });

  it('decodes a compressed body, and keeps error statuses as responses', async () => {
    const url = await serve((s, res) => {
      if (s.method === 'GET') {
        res.writeHead(200, { 'content-encoding': 'gzip' });
        res.end(gzipSync('{"type":"error","message":"zipped"}'));
      } else {
        res.writeHead(529, { 'retry-after': '2', 'set-cookie': ['a=1', 'b=2'] });
        res.end('overloaded');
      }
    });
    expect(await (await fetch(url)).json()).toEqual({ type: 'error', message: 'zipped' });
    const failed = await fetch(url, { method: 'POST' });
    expect(failed.ok).toBe(false);
    expect(failed.status).toBe(529);
    expect(failed.headers.get('retry-after')).toBe('2');
    expect(failed.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    const copy = failed.clone();
    expect(await failed.text()).toBe('overloaded');
    expect(await copy.text()).toBe('overloaded');
    await expect(failed.text()).rejects.toThrow(TypeError);
  });

  it('refuses URLs other than http(s) and bodies it cannot send', async () => {
    await expect(fetch('file:///etc/passwd')).rejects.toThrow('file: URLs are not supported');
    await expect(fetch('http://127.0.0.1:1/', { method: 'POST', body: {} as unknown as string })).rejects.toThrow('a request body must be');
  });
});

describe('Headers', () => {
  it('matches names case-insensitively, joins repeated values and iterates sorted', () => {
    const headers = new Headers({ 'X-B': '1', 'x-a': ' padded ' });
    headers.append('x-b', '2');
    expect(headers.get('x-b')).toBe('1, 2');
    expect(headers.get('X-A')).toBe('padded');
    expect([...headers]).toEqual([
      ['x-a', 'padded'],
      ['x-b', '1, 2'],
    ]);
    headers.delete('X-B');
    expect(headers.has('x-b')).toBe(false);
    expect(new Headers(headers).get('x-a')).toBe('padded');
    expect(Object.prototype.toString.call(headers)).toBe('[object Headers]');
  });

  it('refuses a name outside the token grammar and a value that could split a header', () => {
    expect(() => new Headers({ 'bad name': 'x' })).toThrow(TypeError);
    expect(() => new Headers().set('x-a', 'one\r\nInjected: yes')).toThrow('line break');
    expect(() => new Headers([['only-name']] as unknown as Array<[string, string]>)).toThrow('[name, value] pair');
  });
});

describe('FormData', () => {
  it('recognises a FormData by its tag without being one', () => {
    expect({ [Symbol.toStringTag]: 'FormData' } instanceof FormData).toBe(true);
    expect(new URLSearchParams('x=1') instanceof FormData).toBe(false);
  });
});

describe('Response', () => {
  it('is made from a string as the SDKs make one', async () => {
    const response = new Response('{"a":1}', { status: 201, headers: { 'content-type': 'application/json' } });
    expect(response.ok).toBe(true);
    expect(response.bodyUsed).toBe(false);
    expect(await response.json()).toEqual({ a: 1 });
    expect(response.bodyUsed).toBe(true);
    expect(() => new Response(null, { status: 99 })).toThrow(RangeError);
  });
});
