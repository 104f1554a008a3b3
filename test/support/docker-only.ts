// A host that serves only the Docker Engine API, as Docker does: a proxy on a socket of its own in
// front of a Podman service that answers Podman's own API (`/libpod/…`, versioned or not) with
// Docker's 404 and passes everything else through, upgraded exec streams included. The runner's
// paths for Docker hosts are tested on it. `filteredHost` answers whatever requests a test
// chooses with an error of its choosing (a Podman that fails one call).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface DockerOnlyHost {
  /** `unix://…/docker-only.sock` */
  url: string;
  /** How many requests it refused. */
  refused(): number;
  close(): Promise<void>;
}

const LIBPOD_PATH = /^\/(v[\d.]+\/)?libpod\//;

/** An error answer: its status and JSON body. */
export interface Refusal {
  status: number;
  body: Record<string, unknown>;
}

export function dockerOnlyHost(podmanUrl: string): Promise<DockerOnlyHost> {
  return filteredHost(podmanUrl, (_method, url) => (LIBPOD_PATH.test(url) ? { status: 404, body: { message: 'page not found' } } : undefined));
}

/** A proxy to `podmanUrl` that answers a request `refuse` returns a refusal for with it, and passes on the rest. */
export async function filteredHost(podmanUrl: string, refuse: (method: string, url: string) => Refusal | undefined): Promise<DockerOnlyHost> {
  const upstream = podmanUrl.replace(/^unix:\/\//, '');
  const dir = mkdtempSync(join(tmpdir(), 'oc-docker-only-'));
  const socketPath = join(dir, 'docker-only.sock');
  let refused = 0;
  const open = new Set<Socket>();
  const server = createServer((req, res) => {
    const refusal = refuse(req.method ?? 'GET', req.url ?? '');
    if (refusal) {
      refused++;
      // The request's body is read first, as a server does, then the answer sent.
      req.resume();
      req.on('end', () => res.writeHead(refusal.status, { 'content-type': 'application/json' }).end(JSON.stringify(refusal.body)));
      return;
    }
    const forwarded = request({ socketPath: upstream, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  // An exec's attach asks to upgrade the connection: pass its raw bytes both ways.
  server.on('upgrade', (req, client: Socket, head: Buffer) => {
    const podman = connect(upstream);
    open.add(podman).add(client);
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    podman.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length) podman.write(head);
    podman.pipe(client).pipe(podman);
    const end = () => {
      podman.destroy();
      client.destroy();
      open.delete(podman);
      open.delete(client);
    };
    podman.on('error', end).on('close', end);
    client.on('error', end).on('close', end);
  });
  server.on('connection', (socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    url: `unix://${socketPath}`,
    refused: () => refused,
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
