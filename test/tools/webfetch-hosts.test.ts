// Two webfetch guards, against real servers: a redirect from https down to plain http is
// refused before connecting to it, and a host name (not an address) that resolves to a
// private or loopback address asks even when a rule allows the URL.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionGate, TreeApprovals, type PermissionQuestion } from '../../src/core/permission/gate.js';
import { DEFAULT_RULES, rulesFromConfig } from '../../src/core/permission/rules.js';
import { nonPublicKind } from '../../src/core/tools/net-address.js';
import { PermissionDeniedError, ToolError } from '../../src/core/tools/types.js';
import { webfetchTool } from '../../src/core/tools/webfetch.js';
import { makeContext, makeTempDir, run } from './context.js';

let plain: Server;
let secure: HttpsServer;
let plainBase: string;
let secureBase: string;
const plainHits: string[] = [];

beforeAll(async () => {
  plain = createServer((req, res) => {
    plainHits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('plain body');
  });
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  plainBase = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  // A throwaway self-signed certificate for 127.0.0.1.
  const dir = makeTempDir('oci-tls-');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  secure = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
    if (req.url === '/down') res.writeHead(302, { location: `${plainBase}/after-downgrade` });
    else res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(req.url === '/down' ? '' : 'secure body');
  });
  await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
  secureBase = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => plain.close(resolve));
  await new Promise((resolve) => secure.close(resolve));
});

function gated(approve: boolean) {
  const ctx = makeContext();
  const questions: PermissionQuestion[] = [];
  const gate = new PermissionGate([[...DEFAULT_RULES, ...rulesFromConfig({ webfetch: 'allow' })]], new TreeApprovals(), (q) => {
    questions.push(q);
    return Promise.resolve(approve ? { reply: 'once' } : { reply: 'reject', message: `refused ${q.subject}` });
  });
  ctx.ask = (request) => gate.check(request, 'webfetch', 'call_1');
  return { ctx, questions };
}

describe('webfetch: https to http', () => {
  it('refuses a redirect that drops encryption, without connecting to the http URL', async () => {
    // The self-signed certificate is trusted for this test only.
    const previous = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    try {
      const { ctx } = gated(true);
      expect((await run(webfetchTool, { url: `${secureBase}/page` }, ctx)).output).toBe('secure body');
      plainHits.length = 0;
      const err = await run(webfetchTool, { url: `${secureBase}/down` }, ctx).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ToolError);
      expect((err as Error).message).toBe(
        `${secureBase}/down redirected from https to plain http (${plainBase}/after-downgrade); webfetch does not follow a redirect that drops encryption.`,
      );
      expect(plainHits).toEqual([]);
    } finally {
      if (previous === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = previous;
    }
  });
});

/** A name from /etc/hosts (not localhost, which is caught by name) for a loopback or private address. */
function privateHostName(): { name: string; address: string } | undefined {
  let hosts: string;
  try {
    hosts = readFileSync('/etc/hosts', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of hosts.split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (!address || !nonPublicKind(address) || !address.includes('.')) continue;
    const name = names.find((n) => !/(^|\.)localhost\.?$/i.test(n) && !/^ip6-/.test(n));
    if (name) return { name, address };
  }
  return undefined;
}

const named = privateHostName();

describe.runIf(named !== undefined)('webfetch: a name that resolves to a private address', () => {
  it('asks even though a rule allows the URL, and connects nowhere when refused', async () => {
    const { name, address } = named!;
    plainHits.length = 0;
    const { ctx, questions } = gated(false);
    const url = `http://${name}:${new URL(plainBase).port}/by-name`;
    const err = await run(webfetchTool, { url }, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect(questions).toHaveLength(1);
    expect(questions[0]!.mustAsk).toBe(`${name.toLowerCase()} resolves to ${address}, a ${nonPublicKind(address)} address; local and private network addresses always ask`);
    expect(plainHits).toEqual([]);
  });
});
