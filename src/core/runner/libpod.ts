// Podman's own API, used where a host serves it (DESIGN §25). Contract:
// - `servesLibpod(docker)` tells whether the host is Podman 4 or later (its `/v4.0.0/libpod/version`
//   answers); a Docker Engine, or an older Podman, answers no, and the caller keeps to the Docker API;
// - `importWorkspaceImage` makes an image of one archive in one write (no container, no commit),
//   with this program's labels: the image holds the workspace's files at its root;
// - `createOverWorkspaceImage` creates a container from `image` with such an image mounted
//   writable at the workspace path: each container writes to an overlay of its own, the image
//   stays as it was for its siblings, and the overlay goes with the container.
// Both speak Podman's API through dockerode's own connection (unix, tcp, ssh alike).
import type Docker from 'dockerode';

/** The libpod API version this program asks for; Podman 4.0 and later serve it. */
const LIBPOD = '/v4.0.0/libpod';

function dial(docker: Docker, options: { path: string; method: 'GET' | 'POST'; body?: object; query?: object; file?: Buffer }): Promise<unknown> {
  return new Promise((resolve, reject) => {
    docker.modem.dial(
      {
        path: options.path,
        method: options.method,
        ...(options.query ? { options: { _query: options.query } } : options.body ? { options: { _body: options.body } } : {}),
        ...(options.file ? { file: options.file } : {}),
        statusCodes: { 200: true, 201: true, 204: true, 400: 'bad parameter', 404: 'no such image or container', 409: 'conflict', 500: 'server error' },
      },
      (err, data) => (err ? reject(err) : resolve(data)),
    );
  });
}

/** Whether the host serves Podman's API, version 4 or later; any failure (a Docker Engine's 404 included) is a no. */
export async function servesLibpod(docker: Docker): Promise<boolean> {
  try {
    const answer = (await dial(docker, { path: `${LIBPOD}/version`, method: 'GET' })) as { Components?: Array<{ Name?: string; Version?: string }> } | null;
    const engine = answer?.Components?.find((component) => component.Name === 'Podman Engine');
    return Number(engine?.Version?.split('.')[0]) >= 4;
  } catch {
    return false;
  }
}

/** `LABEL` instructions for an import: each value in double quotes, which Podman strips without reading escapes. */
function labelChanges(labels: Record<string, string>): string[] {
  return Object.entries(labels).map(([key, value]) => `LABEL ${key}="${value}"`);
}

/** Imports `archive` as an image of its own, labelled; its id (Podman ignores a tag asked for here: the id is what names it). */
export async function importWorkspaceImage(docker: Docker, archive: Buffer, labels: Record<string, string>): Promise<string> {
  const answer = (await dial(docker, { path: '/images/create?', method: 'POST', query: { fromSrc: '-', changes: labelChanges(labels) }, file: archive })) as { id?: string; status?: string; error?: string } | null;
  if (answer?.error) throw new Error(answer.error);
  const id = answer?.id ?? answer?.status;
  if (!id || !/^sha256:[0-9a-f]{64}$/.test(id)) throw new Error('the host did not name the imported image');
  return id;
}

export interface OverWorkspaceSpec {
  name: string;
  /** The image the container runs. */
  image: string;
  entrypoint: string[];
  command: string[];
  labels: Record<string, string>;
  network: boolean;
  cpus?: number | undefined;
  memoryMb?: number | undefined;
  /** The image holding the workspace, and where it is mounted. */
  workspaceImage: string;
  workspace: string;
}

/** Creates (does not start) a container with the workspace image mounted writable at the workspace path; its id. */
export async function createOverWorkspaceImage(docker: Docker, spec: OverWorkspaceSpec): Promise<string> {
  const limits = {
    // CPU as the Docker API's NanoCpus is: a quota per 100 ms period.
    ...(spec.cpus ? { cpu: { quota: Math.round(spec.cpus * 100_000), period: 100_000 } } : {}),
    ...(spec.memoryMb ? { memory: { limit: spec.memoryMb * 1024 * 1024 } } : {}),
  };
  const created = (await dial(docker, {
    path: `${LIBPOD}/containers/create`,
    method: 'POST',
    body: {
      name: spec.name,
      image: spec.image,
      entrypoint: spec.entrypoint,
      command: spec.command,
      labels: spec.labels,
      netns: { nsmode: spec.network ? 'bridge' : 'none' },
      ...(Object.keys(limits).length ? { resource_limits: limits } : {}),
      // Podman's field names here have no JSON tags of their own: `ReadWrite`, not the CLI's `rw`.
      image_volumes: [{ Source: spec.workspaceImage, Destination: spec.workspace, ReadWrite: true }],
    },
  })) as { Id?: string } | null;
  if (!created?.Id) throw new Error('the host did not name the created container');
  return created.Id;
}
