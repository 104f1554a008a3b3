// The built binary's model requests go through src/core/provider/node-fetch.ts (the build binds
// the SDKs' `fetch` and `Headers` to it): what the server receives, a stream broken mid-reply
// named and retried as before, https with the certificate checked, and the OpenAI-compatible
// provider on it too, without Node's fetch (undici) ever loading.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CoreEvent } from '../../src/core/events.js';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { validStreamLines } from '../support/events.js';
import { text } from '../support/fake-anthropic.js';
import { say, startFakeOpenAI } from '../support/fake-openai.js';
import { REPO_ROOT } from '../support/repo-root.js';

let ctx: CliProject;
beforeEach(async () => {
  ctx = await startCliProject();
});
afterEach(() => ctx.close());

/** The run's env, recording the Node built-in modules it loaded into a file. */
function tracing(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; builtins: () => string[] } {
  const file = join(ctx.dir, 'builtins.txt');
  return {
    env: { ...env, NODE_OPTIONS: `--import=${join(REPO_ROOT, 'test', 'support', 'trace-builtins.mjs')}`, OPENCODE_INK_TRACE_BUILTINS: file },
    builtins: () =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('NativeModule '))
        .map((line) => line.slice('NativeModule '.length)),
  };
}

describe("the binary's model requests", () => {
  it("carry the SDK's headers and the whole body to the Anthropic API", async () => {
    ctx.server.enqueue(text('ok'));
    const prompt = `say ok ${'é'.repeat(20_000)}`;
    const result = await runCli(['run', prompt], { cwd: ctx.project, env: ctx.env });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('ok\n');
    const request = ctx.server.requests[0]!;
    expect(request.headers.authorization).toBe('Bearer x');
    expect(request.headers['anthropic-version']).toBeTruthy();
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.stringify(request.body.messages)).toContain(prompt);
  });

  it('name a connection reset mid-stream as a reset and retry it', async () => {
    ctx.server.enqueue({ type: 'reset', afterEvents: 3 }, text('after the reset'));
    const result = await runCli(['run', '--format', 'json', 'hello'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(0);
    const events = validStreamLines(result.stdout).filter((e): e is CoreEvent => e.type !== 'protocol');
    const retries = events.flatMap((e) => (e.type === 'request.retrying' ? [e] : []));
    expect(retries.map((e) => e.reason)).toEqual(['connection reset mid-response']);
    // What the socket saw: on loopback the reset right after the data often arrives as an end.
    expect(retries[0]!.message).toMatch(new RegExp(`^The connection to the Anthropic API at ${ctx.server.url} was reset mid-response: (read ECONNRESET|other side closed)$`));
    const retryAt = events.findIndex((e) => e.type === 'request.retrying');
    const after = events.slice(retryAt).flatMap((e) => (e.type === 'text.delta' ? [e.text] : []));
    expect(after.join('')).toBe('after the reset');
    expect(ctx.server.requests).toHaveLength(2);
  });

  it('reach an OpenAI-compatible server without loading Node\'s fetch', async () => {
    const local = await startFakeOpenAI();
    try {
      mkdirSync(join(ctx.dir, 'config'), { recursive: true });
      writeFileSync(join(ctx.dir, 'config', 'config.json'), JSON.stringify({ provider: { local: { type: 'openai-compatible', baseURL: local.url, apiKey: 'sk-local' } } }));
      local.enqueue(say('hello from local'));
      const trace = tracing({ ...ctx.env, ANTHROPIC_API_KEY: '' });
      const result = await runCli(['run', '-m', 'local/m1', 'say hello'], { cwd: ctx.project, env: trace.env });
      expect(result.stderr).toBe('');
      expect(result.stdout).toBe('hello from local\n');
      expect(local.requests[0]!.headers.authorization).toBe('Bearer sk-local');
      const builtins = trace.builtins();
      expect(builtins).toContain('http');
      expect(builtins).not.toContain('internal/deps/undici/undici');
    } finally {
      await local.close();
    }
  });

  it('reach the API over https, refusing a certificate nobody vouches for', async () => {
    const cert = join(ctx.dir, 'cert.pem');
    const key = join(ctx.dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    // TLS in front of the fake server, as a real API's endpoint is.
    const upstream = new URL(ctx.server.url);
    const sockets: Socket[] = [];
    const front = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (socket) => {
      const plain = connect(Number(upstream.port), upstream.hostname);
      sockets.push(socket, plain);
      socket.on('error', () => plain.destroy());
      plain.on('error', () => socket.destroy());
      socket.pipe(plain).pipe(socket);
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    try {
      mkdirSync(ctx.env.OPENCODE_INK_CONFIG_DIR!, { recursive: true });
      writeFileSync(join(ctx.env.OPENCODE_INK_CONFIG_DIR!, 'config.json'), JSON.stringify({ provider: { anthropic: { maxRetries: 0 } } }));
      const env = { ...ctx.env, ANTHROPIC_BASE_URL: `https://127.0.0.1:${(front.address() as AddressInfo).port}` };
      const refused = await runCli(['run', 'hello'], { cwd: ctx.project, env });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/Cannot reach the Anthropic API at https:\/\/127\.0\.0\.1:\d+: self-signed certificate/);
      expect(ctx.server.requests).toHaveLength(0);

      ctx.server.enqueue(text('over tls'));
      const trusted = await runCli(['run', 'hello'], { cwd: ctx.project, env: { ...env, NODE_EXTRA_CA_CERTS: cert } });
      expect(trusted.stderr).toBe('');
      expect(trusted.stdout).toBe('over tls\n');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => front.close(resolve));
    }
  });
});
