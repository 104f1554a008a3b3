// webfetch URLs are normalised before the permission rules see them and before anything
// connects: user info is dropped, trailing dots go, and hosts are IDNA (ASCII). A deny rule
// for a host cannot be stepped around by spelling the host another way.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionGate, TreeApprovals, type PermissionQuestion } from '../../src/core/permission/gate.js';
import { DEFAULT_RULES, rulesFromConfig } from '../../src/core/permission/rules.js';
import type { PermissionConfig } from '../../src/core/permission/schema.js';
import { PermissionDeniedError } from '../../src/core/tools/types.js';
import { normaliseUrlPattern, normaliseWebUrl } from '../../src/core/tools/web-url.js';
import { webfetchTool } from '../../src/core/tools/webfetch.js';
import { makeContext, run } from './context.js';

let server: Server;
let port: number;
const hits: Array<{ url: string; authorization: string | undefined }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push({ url: req.url ?? '', authorization: req.headers.authorization });
    if (req.url === '/open/to-secret') {
      res.writeHead(302, { location: `http://someone:pw@localhost.:${port}/secret/page` });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`body of ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function gated(permission: PermissionConfig) {
  const ctx = makeContext();
  const questions: PermissionQuestion[] = [];
  const gate = new PermissionGate([[...DEFAULT_RULES, ...rulesFromConfig(permission)]], new TreeApprovals(), (q) => {
    questions.push(q);
    return Promise.resolve({ reply: 'once' });
  });
  ctx.ask = (request) => gate.check(request, 'webfetch', 'call_1');
  return { ctx, questions };
}

async function refusal(url: string, permission: PermissionConfig): Promise<unknown> {
  const { ctx } = gated(permission);
  return run(webfetchTool, { url }, ctx).catch((e: unknown) => e);
}

describe('webfetch URL normalisation', () => {
  it('denies other spellings of a denied host: user info, a trailing dot, upper case', async () => {
    const deny: PermissionConfig = { webfetch: { '*': 'allow', [`http://localhost:${port}/*`]: 'deny' } };
    hits.length = 0;
    for (const url of [
      `http://u@localhost:${port}/x`,
      `http://u:pw@localhost:${port}/x`,
      `http://localhost.:${port}/x`,
      `http://u:pw@LocalHost..:${port}/x`,
    ]) {
      const err = await refusal(url, deny);
      expect(err, url).toBeInstanceOf(PermissionDeniedError);
      expect((err as Error).message, url).toContain(`webfetch \`http://localhost:${port}/x\` is not allowed`);
    }
    expect(hits).toEqual([]);
  });

  it('matches IDNA hosts whichever way the rule or the URL spells them', async () => {
    for (const [rule, url] of [
      ['https://xn--bcher-kva.example/*', 'https://bücher.example/page'],
      ['https://Bücher.example./*', 'https://xn--bcher-kva.example/page'],
      ['https://bücher.example/*', 'https://u@BÜCHER.example./page'],
    ] as const) {
      const err = await refusal(url, { webfetch: { '*': 'allow', [rule]: 'deny' } });
      expect(err, `${rule} vs ${url}`).toBeInstanceOf(PermissionDeniedError);
      expect((err as Error).message).toContain('`https://xn--bcher-kva.example/page`');
    }
  });

  it('normalises each redirect hop before its rule is checked', async () => {
    hits.length = 0;
    const err = await refusal(`http://127.0.0.1:${port}/open/to-secret`, { webfetch: { '*': 'allow', [`http://localhost:${port}/secret/*`]: 'deny' } });
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect((err as Error).message).toContain(`\`http://localhost:${port}/secret/page\``);
    expect(hits.map((h) => h.url)).toEqual(['/open/to-secret']);
  });

  it('asks for and connects to the URL without its user info, sending no credentials', async () => {
    hits.length = 0;
    const { ctx, questions } = gated({ webfetch: 'allow' });
    const result = await run(webfetchTool, { url: `http://user:secret@127.0.0.1.:${port}/open/page` }, ctx);
    expect(result.output).toBe('body of /open/page');
    expect(result.metadata).toMatchObject({ url: `http://127.0.0.1:${port}/open/page` });
    expect(questions.map((q) => q.patterns)).toEqual([[`http://127.0.0.1:${port}/open/page`]]);
    expect(hits).toEqual([{ url: '/open/page', authorization: undefined }]);
  });
});

describe('normaliseWebUrl and normaliseUrlPattern', () => {
  it('give one spelling', () => {
    expect(normaliseWebUrl(new URL('http://u:p@Host.Example../a?b#c')).href).toBe('http://host.example/a?b#c');
    expect(normaliseWebUrl(new URL('https://ｅxample.com:443/')).href).toBe('https://example.com/');
    expect(() => normaliseWebUrl(new URL('http://./'))).toThrow(/has no host name/);
    expect(normaliseUrlPattern('HTTPS://U@Bücher.de.:443/*')).toBe('https://xn--bcher-kva.de/*');
    expect(normaliseUrlPattern('https://*.example.com/*')).toBe('https://*.example.com/*');
    expect(normaliseUrlPattern('*')).toBe('*');
    expect(normaliseUrlPattern('example.com')).toBe('example.com');
  });
});
