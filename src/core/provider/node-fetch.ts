// The `fetch`, `Headers`, `Response` and `FormData` the provider SDKs see in the CLI's bundle
// (scripts/build.mjs binds the SDK modules' free names to these exports; nothing global is
// replaced, so the library, src/sdk, and everything else keep Node's own). Any use of Node's
// global `fetch`, `Headers`, `Request`, `Response` or `FormData` loads its whole bundled HTTP
// client (undici: HTTP/1 and HTTP/2 clients, TLS, zlib, llhttp's WebAssembly), ~12 MB of RSS
// and ~20-30 ms per process that the SDKs would make every `run` pay. This is the part of
// fetch they use, on `node:http`/`node:https`:
// - a request with a string or byte body, headers from any iterable or record, keep-alive
//   connections (one agent per scheme, sockets unref'd while idle);
// - a streamed response: `body` is async iterable in Uint8Array chunks, as the SDKs read it;
//   `text()`, `json()`, `arrayBuffer()`, `clone()`; gzip, deflate and br bodies decoded;
// - abort through `signal`: a pending call and a body being read reject with its reason;
// - errors as fetch gives them, which the providers classify (src/core/provider/http-failure.ts):
//   a request that fails is `TypeError('fetch failed')`, a body that breaks mid-stream is
//   `TypeError('terminated')`, each with the socket's own error (code, message) as `cause`.
// No redirects are followed (the model APIs do not redirect; undici's default would follow).
import * as http from 'node:http';
import type { Readable } from 'node:stream';

type HeaderSource = Iterable<readonly [string, string]> | Record<string, string | readonly string[] | undefined>;

/** A header name is an HTTP token; a value has no CR, LF or NUL (RFC 9110, as fetch checks). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[\r\n\0]/;

/** WHATWG `Headers`: names case-insensitive, values of one name joined by ", ", sorted iteration. */
export class Headers implements Iterable<[string, string]> {
  readonly #values = new Map<string, string>();
  readonly #cookies: string[] = [];

  constructor(init?: HeaderSource | null) {
    if (init === undefined || init === null) return;
    if (typeof init !== 'object') throw new TypeError('Headers: expected an object, an array of [name, value] pairs or another Headers.');
    if (Symbol.iterator in init) {
      for (const pair of init as Iterable<readonly [string, string]>) {
        if (!Array.isArray(pair) || pair.length !== 2) throw new TypeError('Headers: each entry must be a [name, value] pair.');
        this.append(String(pair[0]), String(pair[1]));
      }
      return;
    }
    for (const [name, value] of Object.entries(init)) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const one of value) this.append(name, String(one));
      else this.append(name, String(value));
    }
  }

  append(name: string, value: string): void {
    const key = checkedName(name);
    const clean = checkedValue(name, value);
    if (key === 'set-cookie') this.#cookies.push(clean);
    const old = this.#values.get(key);
    this.#values.set(key, old === undefined ? clean : `${old}, ${clean}`);
  }

  set(name: string, value: string): void {
    const key = checkedName(name);
    const clean = checkedValue(name, value);
    if (key === 'set-cookie') this.#cookies.splice(0, this.#cookies.length, clean);
    this.#values.set(key, clean);
  }

  delete(name: string): void {
    const key = checkedName(name);
    if (key === 'set-cookie') this.#cookies.length = 0;
    this.#values.delete(key);
  }

  get(name: string): string | null {
    return this.#values.get(checkedName(name)) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(checkedName(name));
  }

  getSetCookie(): string[] {
    return [...this.#cookies];
  }

  forEach(callback: (value: string, name: string, headers: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this) callback.call(thisArg, value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.#values.keys()].sort()) {
      if (name === 'set-cookie') for (const cookie of this.#cookies) yield [name, cookie];
      else yield [name, this.#values.get(name)!];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}

function checkedName(name: string): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`Headers: "${text}" is not a valid header name.`);
  return text.toLowerCase();
}

function checkedValue(name: string, value: string): string {
  // Fetch strips leading and trailing HTTP whitespace, then refuses what could split a header.
  const text = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  if (BAD_VALUE.test(text)) throw new TypeError(`Headers: the value of "${name}" contains a line break or NUL.`);
  return text;
}

/**
 * What `instanceof FormData` in the SDKs asks. The program never sends one; a FormData a caller
 * made is Node's own (undici, loaded by making it), recognised by its tag so that asking does
 * not load undici.
 */
export class FormData {
  static [Symbol.hasInstance](value: unknown): boolean {
    return Object.prototype.toString.call(value) === '[object FormData]';
  }
}

export interface ResponseInit {
  status?: number;
  statusText?: string;
  headers?: HeaderSource | null;
}

type BodySource = AsyncIterable<Uint8Array | string>;

/** A response body read once, as the SDKs read it: `for await` over its Uint8Array chunks. */
class ResponseBody implements AsyncIterable<Uint8Array> {
  #used = false;
  readonly #source: BodySource;
  readonly #onCancel: (() => void) | undefined;

  constructor(source: BodySource, onCancel?: () => void) {
    this.#source = source;
    this.#onCancel = onCancel;
  }

  get locked(): boolean {
    return this.#used;
  }

  /** Stops reading and releases the connection, as a ReadableStream's `cancel()` does. */
  async cancel(): Promise<void> {
    this.#used = true;
    this.#onCancel?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    if (this.#used) throw new TypeError('Response body: it has already been read.');
    this.#used = true;
    let finished = false;
    try {
      for await (const chunk of this.#source) yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      finished = true;
    } finally {
      // Left early (a `break`, a `return()` from the SDK's cancel, an error): the rest is not wanted.
      if (!finished) this.#onCancel?.();
    }
  }
}

export class Response {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly url: string;
  readonly redirected = false;
  readonly type = 'basic';
  #body: ResponseBody | null;
  #bodyUsed = false;

  constructor(body?: string | Uint8Array | BodySource | null, init: ResponseInit = {}, url = '', onCancel?: () => void) {
    this.status = init.status ?? 200;
    if (!Number.isInteger(this.status) || this.status < 200 || this.status > 599) throw new RangeError(`Response: status ${this.status} is not between 200 and 599.`);
    this.statusText = init.statusText ?? '';
    this.headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    this.url = url;
    if (body === undefined || body === null) this.#body = null;
    else if (typeof body === 'string' || body instanceof Uint8Array) this.#body = new ResponseBody(oneChunk(body));
    else this.#body = new ResponseBody(body, onCancel);
  }

  get body(): ResponseBody | null {
    return this.#body;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get bodyUsed(): boolean {
    return this.#bodyUsed || (this.body?.locked ?? false);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.#bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  /** A second response over the same bytes: both bodies can be read, each once. */
  clone(): Response {
    if (this.bodyUsed) throw new TypeError('Response.clone: the body has already been read.');
    const init = { status: this.status, statusText: this.statusText, headers: new Headers(this.headers) };
    if (!this.body) return new Response(null, init, this.url);
    const original = this.body;
    const [first, second] = tee(original);
    this.#body = new ResponseBody(first, () => void original.cancel());
    return new Response(second, init, this.url);
  }

  async #bytes(): Promise<Buffer> {
    if (this.bodyUsed) throw new TypeError('Response: the body has already been read.');
    this.#bodyUsed = true;
    if (!this.body) return Buffer.alloc(0);
    const chunks: Uint8Array[] = [];
    for await (const chunk of this.body) chunks.push(chunk);
    return Buffer.concat(chunks);
  }
}

async function* oneChunk(body: string | Uint8Array): AsyncGenerator<Uint8Array> {
  yield typeof body === 'string' ? Buffer.from(body) : body;
}

/** Two readers of one body: chunks are kept for the slower one until it reads them. */
function tee(source: AsyncIterable<Uint8Array>): [AsyncIterable<Uint8Array>, AsyncIterable<Uint8Array>] {
  const iterator = source[Symbol.asyncIterator]();
  const queues: Array<Array<Promise<IteratorResult<Uint8Array>>>> = [[], []];
  const branch = (index: 0 | 1): AsyncIterable<Uint8Array> => ({
    async *[Symbol.asyncIterator]() {
      for (;;) {
        let next = queues[index]!.shift();
        if (!next) {
          next = iterator.next();
          queues[1 - index]!.push(next);
        }
        const result = await next;
        if (result.done) return;
        yield result.value;
      }
    },
  });
  return [branch(0), branch(1)];
}

export interface RequestInit {
  method?: string;
  headers?: HeaderSource | null;
  body?: string | Uint8Array | ArrayBuffer | null;
  signal?: AbortSignal | null;
}

type Transport = Pick<typeof http, 'request'> & { agent: http.Agent };
const transports = new Map<string, Promise<Transport>>();

/**
 * An idle connection is closed after 4 s (sooner when the server's Keep-Alive header says so),
 * as fetch does: reusing one the server has just dropped would fail the request with a reset.
 * Node applies the limit to idle sockets only; a reply silent for longer is not cut.
 */
const AGENT_OPTIONS = { keepAlive: true, timeout: 4_000 };

/** One keep-alive agent per scheme; `node:https` is loaded only by an https request. */
function transportFor(protocol: string): Promise<Transport> {
  let transport = transports.get(protocol);
  if (!transport) {
    transport =
      protocol === 'https:'
        ? import('node:https').then((https) => ({ request: https.request, agent: new https.Agent(AGENT_OPTIONS) }))
        : Promise.resolve({ request: http.request, agent: new http.Agent(AGENT_OPTIONS) });
    transports.set(protocol, transport);
  }
  return transport;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** `fetch(url, init)` over node:http(s); see the module comment for what it covers. */
export async function fetch(input: string | URL | { url: string }, init: RequestInit = {}): Promise<Response> {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`fetch: ${url.protocol} URLs are not supported (http: and https: only).`);
  const signal = init.signal ?? undefined;
  if (signal?.aborted) throw abortReason(signal);
  const headers = new Headers(init.headers);
  const body = requestBody(init.body);
  if (body !== undefined && !headers.has('content-length')) headers.set('content-length', String(body.byteLength));
  // No compression is asked for: a model's stream is small events that must arrive as sent,
  // and decoding them would load zlib and cost CPU on every chunk.
  if (!headers.has('accept')) headers.set('accept', '*/*');
  const method = (init.method ?? 'GET').toUpperCase();
  const transport = await transportFor(url.protocol);
  if (signal?.aborted) throw abortReason(signal);

  return new Promise<Response>((resolve, reject) => {
    const outgoing: Record<string, string | string[]> = {};
    for (const [name, value] of headers) {
      const old = outgoing[name];
      outgoing[name] = old === undefined ? value : Array.isArray(old) ? [...old, value] : [old, value];
    }
    const request = transport.request(url, { method, headers: outgoing, agent: transport.agent });
    let response: http.IncomingMessage | undefined;
    /** The socket's own error, which says more than the response's "aborted". */
    let socketError: Error | undefined;
    const onAbort = () => {
      const reason = abortReason(signal!);
      request.destroy();
      if (response) response.destroy(reason instanceof Error ? reason : undefined);
      else reject(reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const release = () => signal?.removeEventListener('abort', onAbort);

    request.on('error', (err) => {
      socketError = err;
      if (response) return;
      release();
      reject(new TypeError('fetch failed', { cause: err }));
    });
    request.on('response', (incoming) => {
      response = incoming;
      const responseHeaders = new Headers();
      const raw = incoming.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) {
        try {
          responseHeaders.append(raw[i]!, raw[i + 1]!);
        } catch {
          // Node's parser already refuses what would break a header; a name outside the
          // token grammar is dropped rather than failing the whole response.
        }
      }
      const noBody = method === 'HEAD' || incoming.statusCode === 204 || incoming.statusCode === 304;
      // The socket's error reaches the request after the response has failed its reader.
      const socketClosed = new Promise<Error | undefined>((resolve) => request.once('close', () => resolve(socketError)));
      const source = noBody ? null : readBody(incoming, socketClosed, signal);
      const cancel = () => {
        release();
        incoming.destroy();
      };
      // A break while nobody reads is seen by the next read (readBody); without a listener it
      // would be an uncaught 'error' event.
      incoming.on('error', () => {});
      incoming.once('end', release);
      incoming.once('close', release);
      try {
        resolve(new Response(source, { status: incoming.statusCode ?? 0, statusText: incoming.statusMessage ?? '', headers: responseHeaders }, url.href, cancel));
      } catch (err) {
        cancel();
        reject(new TypeError('fetch failed', { cause: err }));
      }
      if (noBody) incoming.resume();
    });
    request.end(body);
  });
}

function requestBody(body: RequestInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('fetch: a request body must be a string, an ArrayBuffer or a Uint8Array.');
}

/** The body's bytes, decoded per content-encoding; a break becomes fetch's "terminated". */
async function* readBody(incoming: http.IncomingMessage, socketClosed: Promise<Error | undefined>, signal: AbortSignal | undefined): AsyncGenerator<Uint8Array> {
  let stream: Readable = incoming;
  const encoding = (incoming.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip' || encoding === 'deflate' || encoding === 'br') {
    // Not asked for (see `fetch`), but a proxy may compress anyway; unzip reads gzip and zlib.
    const zlib = await import('node:zlib');
    const decoder = encoding === 'br' ? zlib.createBrotliDecompress() : zlib.createUnzip();
    incoming.on('error', (err) => decoder.destroy(err));
    stream = incoming.pipe(decoder);
  }
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } catch (err) {
    if (signal?.aborted) throw abortReason(signal);
    // A body that cannot be decoded leaves its connection open: close it, so it is known how it ended.
    incoming.destroy();
    // Node says "aborted" for a connection closed mid-body; fetch (undici) says what happened.
    const closed = !(err instanceof Error) || (err as { code?: unknown }).code === 'ERR_STREAM_PREMATURE_CLOSE' || err.message === 'aborted';
    throw new TypeError('terminated', { cause: (await socketClosed) ?? (closed ? new Error('other side closed') : err) });
  }
  // A stream that ends before its declared length or final chunk is a broken one.
  if (!incoming.complete) {
    if (signal?.aborted) throw abortReason(signal);
    incoming.destroy();
    throw new TypeError('terminated', { cause: (await socketClosed) ?? new Error('other side closed') });
  }
}
