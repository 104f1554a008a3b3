// webfetch against real local HTTP servers, with the real permission gate and rules: every
// redirect hop is checked before it is connected to, and addresses off the public internet
// ask even when a rule allows them.
import { gzipSync } from 'node:zlib';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionGate, TreeApprovals, type PermissionQuestion } from '../../src/core/permission/gate.js';
import { DEFAULT_RULES, rulesFromConfig } from '../../src/core/permission/rules.js';
import type { PermissionConfig } from '../../src/core/permission/schema.js';
import { nonPublicKind } from '../../src/core/tools/net-address.js';
import { PermissionDeniedError, ToolError } from '../../src/core/tools/types.js';
import { webfetchTool } from '../../src/core/tools/webfetch.js';
import { reply, toolResults } from '../support/fake-anthropic.js';
import { startHarness } from '../support/harness.js';
import { makeContext, run } from './context.js';

let server: Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const redirect = (to: string) => {
      res.writeHead(302, { location: to });
      res.end();
    };
    if (req.url === '/public/start') return redirect('/public/next');
    if (req.url === '/public/next') return redirect(`${base}/public/page`);
    if (req.url === '/public/to-secret') return redirect('/secret/page');
    if (req.url === '/public/to-file') return redirect('file:///etc/passwd');
    if (req.url?.startsWith('/loop/')) return redirect(`/loop/${Number(req.url.slice(6)) + 1}`);
    if (req.url === '/public/gzip') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.end(gzipSync('compressed hello'));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`body of ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** A tool context whose asks go through a real gate with these rules and an asker that approves or refuses. */
function gated(permission: PermissionConfig, approve: boolean) {
  const ctx = makeContext();
  const questions: PermissionQuestion[] = [];
  const gate = new PermissionGate([[...DEFAULT_RULES, ...rulesFromConfig(permission)]], new TreeApprovals(), (q) => {
    questions.push(q);
    return Promise.resolve(approve ? { reply: 'once' } : { reply: 'reject', message: `refused ${q.subject}` });
  });
  ctx.ask = (request) => gate.check(request, 'webfetch', 'call_1');
  return { ctx, questions };
}

const ALLOW_PUBLIC: PermissionConfig = { webfetch: { '*': 'allow', 'http://127.0.0.1:*/secret/*': 'deny' } };

describe('webfetch redirects', () => {
  it('follows redirects, asking for each hop, and reports the final URL', async () => {
    hits.length = 0;
    const { ctx, questions } = gated(ALLOW_PUBLIC, true);
    const result = await run(webfetchTool, { url: `${base}/public/start` }, ctx);
    expect(result.output).toBe('body of /public/page');
    expect(result.metadata).toMatchObject({ url: `${base}/public/start`, final_url: `${base}/public/page` });
    // Allowed by a rule, yet loopback: every hop still asks, naming why and where it came from.
    expect(questions.map((q) => q.patterns[0])).toEqual([`${base}/public/start`, `${base}/public/next`, `${base}/public/page`]);
    expect(questions[1]!.subject).toBe(`${base}/public/next (redirected from ${base}/public/start) — 127.0.0.1 is a loopback address; local and private network addresses always ask`);
  });

  it('refuses a redirect from an allowed URL to a denied one before connecting to it', async () => {
    hits.length = 0;
    const { ctx } = gated(ALLOW_PUBLIC, true);
    const err = await run(webfetchTool, { url: `${base}/public/to-secret` }, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect((err as Error).message).toMatch(/denied by the configured rules: webfetch `http:\/\/127\.0\.0\.1:\d+\/secret\/page`/);
    expect(hits).toEqual(['/public/to-secret']);
  });

  it('asks for a loopback URL even when a rule allows everything, and stops when the user refuses', async () => {
    hits.length = 0;
    const { ctx, questions } = gated({ webfetch: 'allow' }, false);
    const err = await run(webfetchTool, { url: `${base}/public/page` }, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect(questions).toHaveLength(1);
    expect(questions[0]!.mustAsk).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(hits).toEqual([]);
  });

  it('asks for localhost by name, without needing DNS to say so', async () => {
    const port = new URL(base).port;
    const { ctx, questions } = gated({ webfetch: 'allow' }, true);
    const result = await run(webfetchTool, { url: `http://localhost:${port}/public/page` }, ctx).catch((e: unknown) => e);
    expect(questions[0]!.subject).toMatch(/localhost is a loopback address/);
    // Where localhost resolves to ::1 only, the server on 127.0.0.1 is unreachable; the ask is what matters.
    if (!(result instanceof Error)) expect((result as { output: string }).output).toBe('body of /public/page');
  });

  it('refuses a redirect to another scheme, and stops after 5 hops', async () => {
    const { ctx } = gated({ webfetch: 'allow' }, true);
    await expect(run(webfetchTool, { url: `${base}/public/to-file` }, ctx)).rejects.toThrow(/follows redirects to http:\/\/ and https:\/\/ URLs only/);
    hits.length = 0;
    const loop = await run(webfetchTool, { url: `${base}/loop/0` }, ctx).catch((e: unknown) => e);
    expect(loop).toBeInstanceOf(ToolError);
    expect((loop as Error).message).toMatch(/Too many redirects.*5 hops/);
    expect(hits).toHaveLength(6);
  });

  it('decompresses gzip bodies', async () => {
    const { ctx } = gated({ webfetch: 'allow' }, true);
    expect((await run(webfetchTool, { url: `${base}/public/gzip` }, ctx)).output).toBe('compressed hello');
  });
});

describe('webfetch in a run', () => {
  it('refuses a loopback URL in `run` without --yes even when a rule allows it, saying why', async () => {
    const h = await startHarness({ config: { permission: { webfetch: 'allow' } } });
    try {
      h.server.enqueue(reply({ type: 'tool_use', name: 'webfetch', input: { url: `${base}/public/page` }, id: 'toolu_wf' }), { type: 'message', content: [{ type: 'text', text: 'ok' }] });
      hits.length = 0;
      const root = h.engine.createSession();
      await h.engine.prompt(root.id, 'fetch it');
      const [result] = toolResults(h.server.requests[1]!);
      expect(result!.is_error).toBe(true);
      expect(String(result!.content)).toMatch(/127\.0\.0\.1 is a loopback address.*needs approval.*--yes/);
      expect(hits).toEqual([]);
    } finally {
      await h.close();
    }
  });
});

describe('nonPublicKind', () => {
  it('names loopback, private, link-local, unique-local and unspecified addresses, IPv4-mapped too', () => {
    const cases: Array<[string, string | undefined]> = [
      ['127.0.0.1', 'loopback'],
      ['127.255.1.2', 'loopback'],
      ['::1', 'loopback'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'link-local'],
      ['fe80::1', 'link-local'],
      ['fd12:3456::1', 'unique-local'],
      ['fc00::1', 'unique-local'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['172.32.0.1', undefined],
      ['8.8.8.8', undefined],
      ['2606:4700::1111', undefined],
      ['example.com', undefined],
    ];
    for (const [address, kind] of cases) expect(nonPublicKind(address), address).toBe(kind);
  });
});
