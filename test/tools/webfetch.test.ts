import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from '../../src/core/tools/types.js';
import { htmlToText, webfetchTool } from '../../src/core/tools/webfetch.js';
import { makeContext, removeDir, run } from './context.js';

const PAGE = `<!doctype html><html><head><title>T</title><style>body { color: red }</style>
<script>console.log("tracking")</script></head>
<body><h1>Main Title</h1><p>Some <strong>bold</strong> text &amp; a <a href="/next">link</a>.</p>
<ul><li>one</li><li>two</li></ul></body></html>`;

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/page') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    } else if (req.url === '/data.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"a":1}');
    } else if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('z'.repeat(6 * 1024 * 1024));
    } else if (req.url === '/image') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from([137, 80, 78, 71]));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('nope');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function context() {
  const ctx = makeContext();
  removeDir(ctx.cwd);
  return ctx;
}

describe('webfetch', () => {
  it('converts HTML to markdown without scripts or styles, after asking', async () => {
    const ctx = context();
    const result = await run(webfetchTool, { url: `${base}/page` }, ctx);
    expect(result.output).toContain('# Main Title');
    expect(result.output).toContain('Some **bold** text & a [link](/next).');
    expect(result.output).toMatch(/^-\s+one$/m);
    expect(result.output).not.toContain('tracking');
    expect(result.output).not.toContain('color: red');
    // 127.0.0.1 is loopback: the request always goes to the user and says why.
    const why = '127.0.0.1 is a loopback address; local and private network addresses always ask';
    expect(ctx.asks).toEqual([{ permission: 'webfetch', patterns: [`${base}/page`], subject: `${base}/page — ${why}`, mustAsk: why }]);
  });

  it('returns text or raw html on request, and other text types as is', async () => {
    const ctx = context();
    const text = await run(webfetchTool, { url: `${base}/page`, format: 'text' }, ctx);
    expect(text.output).toContain('Main Title');
    expect(text.output).toContain('Some bold text & a link.');
    expect(text.output).toMatch(/^one\ntwo$/m);
    expect(text.output).not.toMatch(/<|tracking/);
    const html = await run(webfetchTool, { url: `${base}/page`, format: 'html' }, ctx);
    expect(html.output).toBe(PAGE);
    const json = await run(webfetchTool, { url: `${base}/data.json` }, ctx);
    expect(json.output).toBe('{"a":1}');
  });

  it('fails with the status on non-2xx responses and refuses binaries', async () => {
    const ctx = context();
    const err = await run(webfetchTool, { url: `${base}/missing` }, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as Error).message).toContain('404');
    await expect(run(webfetchTool, { url: `${base}/image` }, ctx)).rejects.toThrow(/binary/);
  });

  it('stops reading past 5 MB', async () => {
    const ctx = context();
    const result = await run(webfetchTool, { url: `${base}/big` }, ctx);
    expect(result.metadata).toMatchObject({ bytes: 5 * 1024 * 1024, truncated: true });
    expect(result.output).toContain('[Content truncated');
  });

  it('rejects non-http URLs without asking', async () => {
    const ctx = context();
    await expect(run(webfetchTool, { url: 'file:///etc/passwd' }, ctx)).rejects.toThrow(/http/);
    await expect(run(webfetchTool, { url: 'ftp://example.com/x' }, ctx)).rejects.toBeInstanceOf(ToolError);
    await expect(run(webfetchTool, { url: 'not a url' }, ctx)).rejects.toThrow(/Invalid URL/);
    expect(ctx.asks).toEqual([]);
  });

  it('strips tags and decodes entities for text', () => {
    expect(htmlToText('<p>a&lt;b &#65;&#x42;</p><script>x()</script><div>c</div>')).toBe('a<b AB\nc');
  });
});
