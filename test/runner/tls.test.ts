// A tcp:// container host over TLS (DESIGN §25), as a Docker daemon with --tlsverify serves it:
// a Node TLS endpoint on 127.0.0.1 that demands a client certificate and forwards to the Podman
// this test starts, with a CA and certificates made here by openssl. Reached with runner.tls or
// with the docker CLI's DOCKER_TLS_VERIFY / DOCKER_CERT_PATH; a wrong CA, a missing client
// certificate and an unreadable file each come back as one sentence.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { connect as connectUnix, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runnerConfigSchema } from '../../src/core/runner/config.js';
import { probeHost, tlsFor } from '../../src/core/runner/docker-hosts.js';
import { ContainerFleet } from '../../src/core/runner/fleet.js';
import { startPodman, type PodmanService } from '../support/podman.js';

let podman: PodmanService | undefined;
let server: Server | undefined;
let skip: string | undefined;
let dir = '';
let url = '';
const sockets = new Set<Socket>();

function openssl(...args: string[]): void {
  const done = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`openssl ${args[0]} failed: ${done.stderr}`);
}

/** A CA named `name`, and a certificate it signs for `subject` (with the extensions given). */
function makeCa(name: string): void {
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', `/CN=${name}`, '-keyout', `${name}-key.pem`, '-out', `${name}.pem`);
}

function makeCert(ca: string, name: string, extensions: string): void {
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', `/CN=${name}`, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`);
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl('x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}-key.pem`, '-CAcreateserial', '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.pem`);
}

beforeAll(async () => {
  if (spawnSync('openssl', ['version']).status !== 0) return void (skip = 'openssl is not installed');
  const started = await startPodman();
  if (typeof started === 'string') return void (skip = started);
  podman = started;
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'oc-tls-')));
  makeCa('ca');
  makeCa('other-ca');
  makeCert('ca', 'server', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  makeCert('ca', 'client', 'extendedKeyUsage=clientAuth\n');
  const socketPath = podman.url.slice('unix://'.length);
  server = createServer(
    { key: readFileSync(join(dir, 'server-key.pem')), cert: readFileSync(join(dir, 'server.pem')), ca: readFileSync(join(dir, 'ca.pem')), requestCert: true, rejectUnauthorized: true },
    (tls) => {
      const upstream = connectUnix(socketPath);
      sockets.add(tls).add(upstream);
      tls.pipe(upstream).pipe(tls);
      const end = () => {
        tls.destroy();
        upstream.destroy();
      };
      tls.once('error', end).once('close', end);
      upstream.once('error', end).once('close', end);
    },
  );
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = `tcp://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}, 120_000);

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  if (server) await new Promise((resolve) => server!.close(resolve));
  await podman?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const files = (names: { ca: string; cert?: string; key?: string }) => ({
  ca: join(dir, names.ca),
  ...(names.cert ? { cert: join(dir, names.cert) } : {}),
  ...(names.key ? { key: join(dir, names.key) } : {}),
});

describe('a tcp:// container host over TLS', () => {
  it('runs a sub-agent’s commands there with runner.tls, files synced both ways', async (ctx) => {
    if (skip) {
      console.log(`Skipping the TLS host test: ${skip}`);
      return ctx.skip();
    }
    const config = runnerConfigSchema().parse({ kind: 'docker', hosts: [url], image: podman!.image, tls: files({ ca: 'ca.pem', cert: 'client.pem', key: 'client-key.pem' }) });
    const fleet = new ContainerFleet({ config, env: { HOME: dir }, notice: () => {} });
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'oc-ws-')));
    writeFileSync(join(workspace, 'in.txt'), 'over tls\n');
    try {
      const runner = await fleet.acquire('ses_tls', workspace);
      const running = await runner.run('cat in.txt; echo back > out.txt', { cwd: workspace, env: {}, signal: new AbortController().signal });
      let text = '';
      running.output?.on('data', (chunk: Buffer) => (text += chunk.toString()));
      expect((await running.exited).exitCode).toBe(0);
      expect(text).toBe('over tls\n');
      expect(readFileSync(join(workspace, 'out.txt'), 'utf8')).toBe('back\n');
    } finally {
      await fleet.close();
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('reads DOCKER_TLS_VERIFY and DOCKER_CERT_PATH as the docker CLI does', async (ctx) => {
    if (skip) return ctx.skip();
    const certs = join(dir, 'docker-certs');
    mkdirSync(certs, { recursive: true });
    for (const [from, to] of [['ca.pem', 'ca.pem'], ['client.pem', 'cert.pem'], ['client-key.pem', 'key.pem']] as const) writeFileSync(join(certs, to), readFileSync(join(dir, from)));
    const probe = await probeHost(url, podman!.image, { HOME: dir, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: certs });
    expect(probe).toMatchObject({ reachable: true, imagePresent: true });
  });

  it('says in one sentence why a host cannot be reached: an untrusted certificate, no client certificate, a file that is not there', async (ctx) => {
    if (skip) return ctx.skip();
    const wrongCa = await probeHost(url, undefined, { HOME: dir }, 5_000, { tls: files({ ca: 'other-ca.pem', cert: 'client.pem', key: 'client-key.pem' }) });
    expect(wrongCa.reachable).toBe(false);
    expect(wrongCa.reason).toMatch(/^its TLS certificate is not trusted \(\w+\): set runner\.tls\.ca/);
    const noClient = await probeHost(url, undefined, { HOME: dir }, 5_000, { tls: files({ ca: 'ca.pem' }) });
    expect(noClient.reachable).toBe(false);
    expect(noClient.reason).toMatch(/^the host refused this client over TLS: it wants a client certificate/);
    const missing = await probeHost(url, undefined, { HOME: dir }, 5_000, { tls: files({ ca: 'nope.pem' }) });
    expect(missing.reason).toBe(`runner.tls.ca names ${join(dir, 'nope.pem')}, which cannot be read (no such file)`);
    const plain = await probeHost(url, undefined, { HOME: dir }, 5_000);
    expect(plain.reachable).toBe(false);
  });
});

describe('when TLS is used', () => {
  it('follows runner.tls, then DOCKER_TLS_VERIFY, then https:// or port 2376; http:// is always plain', () => {
    const home = mkdtempSync(join(tmpdir(), 'oc-tls-home-'));
    try {
      expect(tlsFor({ scheme: 'tcp', port: 2375 }, {}, { HOME: home })).toBeUndefined();
      expect(tlsFor({ scheme: 'http', port: 2376 }, {}, { HOME: home, DOCKER_TLS_VERIFY: '1' })).toBeUndefined();
      expect(tlsFor({ scheme: 'tcp', port: 2376 }, {}, { HOME: home })).toEqual({});
      expect(tlsFor({ scheme: 'https', port: 443 }, {}, { HOME: home })).toEqual({});
      expect(() => tlsFor({ scheme: 'tcp', port: 2375 }, {}, { HOME: home, DOCKER_TLS_VERIFY: '1' })).toThrow(
        `the docker CLI's folder (ca.pem) names ${join(home, '.docker', 'ca.pem')}, which cannot be read (no such file)`,
      );
      mkdirSync(join(home, '.docker'));
      writeFileSync(join(home, '.docker', 'ca.pem'), 'CA');
      writeFileSync(join(home, '.docker', 'cert.pem'), 'CERT');
      expect(() => tlsFor({ scheme: 'tcp', port: 2376 }, {}, { HOME: home })).toThrow(/has cert\.pem but no key\.pem: a client certificate needs both/);
      writeFileSync(join(home, '.docker', 'key.pem'), 'KEY');
      expect(tlsFor({ scheme: 'tcp', port: 2376 }, {}, { HOME: home })).toEqual({ ca: Buffer.from('CA'), cert: Buffer.from('CERT'), key: Buffer.from('KEY') });
      expect(tlsFor({ scheme: 'tcp', port: 2375 }, { tls: { ca: '~/.docker/ca.pem' } }, { HOME: home })).toEqual({ ca: Buffer.from('CA') });
      expect(runnerConfigSchema().safeParse({ tls: { ca: '/ca.pem', cert: '/cert.pem' } }).error?.issues[0]?.message).toMatch(/needs both "cert" and "key"/);
      expect(runnerConfigSchema().safeParse({ tls: { ca: 'ca.pem' } }).error?.issues[0]?.message).toMatch(/must be an absolute path/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
