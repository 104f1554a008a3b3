// One HTTP(S) GET for webfetch where every URL it connects to has been cleared first.
//
// Contract
// - Every URL is normalised first (web-url.ts): the rules and the connection see one spelling.
// - Redirects are followed by hand, at most MAX_REDIRECTS hops; each new URL goes through the
//   same permission request (`webfetch`, the URL) as the first, before anything connects to it.
//   A redirect to anything but http(s), or from https down to http, is refused.
// - Addresses off the public internet (loopback, private, link-local, unique-local, unspecified;
//   `localhost`) always ask, even when a rule allows the URL, and the request says why. An IP
//   literal or `localhost` is known before asking; a name is resolved after the first ask (so
//   an unapproved URL never even reaches DNS) and asks again if it resolves to such an address.
// - The connection goes to the addresses that were checked (a pinned lookup), so a second DNS
//   answer cannot swap in a private address (DNS rebinding).
// - Bodies are decompressed (gzip, deflate, br) and read up to a byte cap.
import type { LookupAddress } from 'node:dns';
import type { IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { nonPublicKind } from './net-address.js';
import { ToolError, type ToolContext } from './types.js';
import { normaliseWebUrl } from './web-url.js';

export const MAX_REDIRECTS = 5;

export interface FetchedResponse {
  status: number;
  statusText: string;
  contentType: string;
  /** The (decompressed) body, up to `maxBytes`. */
  read(maxBytes: number): Promise<{ bytes: Uint8Array; truncated: boolean }>;
  /** Drops the body unread. */
  discard(): void;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

interface Network {
  dns: typeof import('node:dns');
  http: typeof import('node:http');
  https: typeof import('node:https');
  zlib: typeof import('node:zlib');
}

let network: Promise<Network> | undefined;

/**
 * Node's DNS, HTTP, TLS and zlib modules, imported at the first fetch: every start loads this
 * module (webfetch is a built-in tool), and a run that fetches nothing need not load them.
 */
function networkModules(): Promise<Network> {
  network ??= Promise.all([import('node:dns'), import('node:http'), import('node:https'), import('node:zlib')]).then(([dns, http, https, zlib]) => ({ dns, http, https, zlib }));
  return network;
}

export async function fetchChecked(
  start: URL,
  ctx: ToolContext,
  signal: AbortSignal,
  opts: { accept: string },
): Promise<{ response: FetchedResponse; url: string }> {
  const headers = {
    'user-agent': 'opencode-ink (+https://github.com/)',
    accept: opts.accept,
    'accept-language': 'en-US,en;q=0.9',
    'accept-encoding': 'gzip, deflate, br',
  };
  const net = await networkModules();
  let current = start;
  let from: string | undefined;
  for (let hop = 0; ; hop++) {
    const addresses = await clear(net, current, from, ctx, signal);
    const res = await get(net, current, addresses, signal, headers);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.statusCode ?? 0) || !location) return { response: wrap(net, res), url: current.href };
    res.resume();
    if (hop >= MAX_REDIRECTS) throw new ToolError(`Too many redirects: ${start.href} still redirected after ${MAX_REDIRECTS} hops.`);
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new ToolError(`${current.href} redirected to an invalid URL: ${location}`);
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      throw new ToolError(`${current.href} redirected to ${next.href}; webfetch follows redirects to http:// and https:// URLs only.`);
    }
    if (current.protocol === 'https:' && next.protocol === 'http:') {
      throw new ToolError(`${current.href} redirected from https to plain http (${next.href}); webfetch does not follow a redirect that drops encryption.`);
    }
    from = current.href;
    current = normaliseWebUrl(next);
  }
}

/** Asks for one URL (twice when its name turns out to resolve off the public internet); returns the addresses to connect to. */
async function clear(net: Network, url: URL, from: string | undefined, ctx: ToolContext, signal: AbortSignal): Promise<LookupAddress[]> {
  const href = url.href;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const via = from ? ` (redirected from ${from})` : '';
  const literal = isLocalhost(host) ? 'loopback' : nonPublicKind(host);
  if (literal) {
    const why = `${host} is a ${literal} address; local and private network addresses always ask`;
    await ctx.ask({ permission: 'webfetch', patterns: [href], subject: `${href}${via} — ${why}`, mustAsk: why });
  } else {
    await ctx.ask({ permission: 'webfetch', patterns: [href], subject: `${href}${via}` });
  }
  const addresses = await resolve(net, host, signal);
  if (!literal) {
    const inside = addresses.find((a) => nonPublicKind(a.address));
    if (inside) {
      const why = `${host} resolves to ${inside.address}, a ${nonPublicKind(inside.address)} address; local and private network addresses always ask`;
      await ctx.ask({ permission: 'webfetch', patterns: [href], subject: `${href}${via} — ${why}`, mustAsk: why });
    }
  }
  return addresses;
}

function isLocalhost(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

function resolve(net: Network, host: string, signal: AbortSignal): Promise<LookupAddress[]> {
  return new Promise((done, fail) => {
    const onAbort = () => fail(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    net.dns.lookup(host, { all: true, verbatim: true }, (err, addresses) => {
      signal.removeEventListener('abort', onAbort);
      if (err || addresses.length === 0) fail(new ToolError(`Cannot resolve the host ${host}${err?.code ? ` (${err.code})` : ''}.`));
      else done(addresses);
    });
  });
}

/** Connects only to the addresses that were checked, whatever DNS would answer now. */
function pinned(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) {
      callback(null, addresses);
      return;
    }
    const pick = addresses.find((a) => !options.family || a.family === options.family) ?? addresses[0]!;
    callback(null, pick.address, pick.family);
  };
}

function get(net: Network, url: URL, addresses: LookupAddress[], signal: AbortSignal, headers: Record<string, string>): Promise<IncomingMessage> {
  const client = url.protocol === 'https:' ? net.https : net.http;
  return new Promise((done, fail) => {
    // No shared agent: a pooled socket must not outlive the check that cleared it.
    const req = client.request(url, { method: 'GET', headers, signal, agent: false, lookup: pinned(addresses) }, done);
    req.on('error', fail);
    req.end();
  });
}

function decoded(zlib: Network['zlib'], res: IncomingMessage): Readable {
  const encoding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : undefined;
  if (!decoder) return res;
  res.on('error', (err) => decoder.destroy(err));
  return res.pipe(decoder);
}

function wrap(net: Network, res: IncomingMessage): FetchedResponse {
  return {
    status: res.statusCode ?? 0,
    statusText: res.statusMessage ?? '',
    contentType: String(res.headers['content-type'] ?? ''),
    discard: () => {
      res.resume();
    },
    async read(maxBytes) {
      const body = decoded(net.zlib, res);
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      for await (const chunk of body as AsyncIterable<Buffer>) {
        if (size + chunk.length > maxBytes) {
          chunks.push(chunk.subarray(0, maxBytes - size));
          size = maxBytes;
          truncated = true;
          break;
        }
        chunks.push(chunk);
        size += chunk.length;
      }
      if (truncated) {
        body.destroy();
        res.destroy();
      }
      return { bytes: Buffer.concat(chunks), truncated };
    },
  };
}
