// One shared starting point for the containers of a batch of sub-agents (DESIGN §25). Contract:
// - `BaseImages.take(host, workspace, make)` gives a base image holding `workspace` and the tree
//   it was made from, shared by every child on that host and path while one of them still runs:
//   ten children started together upload the tree once and start from one image layer instead
//   of each unpacking thousands of files into its own container;
// - `makeBase` makes one. On a Podman host (libpod.ts) the workspace is imported as an image of
//   its own in one write, `mounted` at the workspace path into each child (a writable overlay per
//   child): no container, no commit. Elsewhere a short-lived loader container (labelled as this
//   program's, role `base`) gets the workspace by one upload at the same absolute path, is
//   committed to an image the children run (its labels kept, so the next start's sweep of a dead
//   owner finds it), and is removed (`close` waits for that);
// - the image is removed when the last child that took it gives it back (`drop`), or at `close`;
//   what a dead instance left is removed by the fleet's sweep (fleet.ts). A child starting from
//   a base copies in only what changed on this machine since the base's tree was read, so an
//   older base is never wrong, only larger to catch up with;
// - a workspace on a mount of the container (under `/dev/shm`, say) makes no committed base
//   (`WorkspaceOnMount`): a commit would leave it out. A mounted base has no such limit.
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { LABEL_ROLE } from './docker-hosts.js';
import { importWorkspaceImage } from './libpod.js';
import { readEntries, scanTree, type LocalTree } from './local-tree.js';
import { packTar } from './tar.js';

export { LABEL_ROLE };
/** The repository name base images are committed under (a tag per base). */
const BASE_REPOSITORY = 'localhost/opencode-ink-base';

/** One entry of a container's workspace as its `stat` shows it (container-runner.ts). */
export interface ListedEntry {
  ctime: number;
  mtime: number;
  rawMode: number;
  size: number;
}

/** A container's workspace listing and the container's clock (whole seconds) when it was taken. */
export interface ContainerListing {
  entries: Map<string, ListedEntry>;
  now: number;
}

export interface BaseImage {
  /** Image id: the one a child's container runs, or (`mounted`) the one mounted at its workspace. */
  image: string;
  /** The image holds only the workspace's files, to be mounted at the workspace path over the configured image (Podman). */
  mounted?: boolean;
  /** The workspace as this machine held it when the base was read. */
  tree: LocalTree;
  /**
   * The workspace as a fresh container from this image lists it, taken once by the first child
   * before anything of its own is copied in: every container from the image sees the same files
   * of the image's layer, so the others need not walk thousands of files again.
   */
  listing?: Promise<ContainerListing>;
  /** Settles when the loader the base was made in is removed. */
  loaderGone?: Promise<unknown>;
  /** When (this machine's clock, ms) the image was made: its files' change times are no later. */
  madeAt?: number;
}

interface Entry {
  ready: Promise<BaseImage | undefined>;
  users: number;
}

export interface BaseSpec {
  docker: Docker;
  image: string;
  workspace: string;
  labels: Record<string, string>;
  tag: string;
  /** The host serves Podman's API (libpod.ts): the base is imported and mounted, not committed. */
  libpod?: boolean;
}

/**
 * The workspace lies on a mount of the container (under `/dev/shm`, say), which a commit leaves
 * out: its children get it copied in one by one. Says nothing of the host.
 */
export class WorkspaceOnMount extends Error {}

/** The mount points a container's `/proc/mounts` lists, with its octal escapes (a space is `\040`) decoded. */
export function mountPoints(procMounts: string): string[] {
  return procMounts
    .split('\n')
    .map((line) => line.split(' ')[1])
    .filter((point): point is string => Boolean(point))
    .map((point) => point.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))));
}

/** Runs `argv` in `container` to its end; its exit code, stdout and stderr. */
async function execIn(docker: Docker, container: Docker.Container, argv: string[]): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  const exec = await container.exec({ Cmd: argv, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  const out = new PassThrough();
  const err = new PassThrough();
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  out.on('data', (chunk: Buffer) => stdout.push(chunk));
  err.on('data', (chunk: Buffer) => stderr.push(chunk));
  docker.modem.demuxStream(stream, out, err);
  await new Promise<void>((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
  const info = await exec.inspect();
  return { exitCode: info.ExitCode ?? null, stdout: Buffer.concat(stdout).toString(), stderr: Buffer.concat(stderr).toString().trim() };
}

/**
 * Makes a base image of `workspace` on one host. The loader starts while the tree is read and
 * packed here; it is removed whatever happens: before this throws, or in the background
 * (`loaderGone`) once the image is made.
 */
export async function makeBase(spec: BaseSpec): Promise<BaseImage> {
  const labels = { ...spec.labels, [LABEL_ROLE]: 'base' };
  if (spec.libpod) return importBase(spec, labels);
  const loaderReady = (async () => {
    const loader = await spec.docker.createContainer({
      name: `opencode-ink-base-${spec.tag}`,
      Image: spec.image,
      Entrypoint: ['/bin/sh'],
      Cmd: ['-c', 'trap "exit 0" TERM INT; while :; do sleep 3600 & wait $!; done'],
      Labels: labels,
      Env: [],
      HostConfig: { NetworkMode: 'none' },
    });
    try {
      await loader.start();
      const made = await execIn(spec.docker, loader, ['/bin/sh', '-c', 'mkdir -p -- "$1" && cat /proc/mounts', 'sh', spec.workspace]);
      if (made.exitCode !== 0) throw new Error(`could not make ${spec.workspace} in the container: ${made.stderr || `exit ${made.exitCode}`}`);
      const mount = mountPoints(made.stdout).find((point) => point !== '/' && (spec.workspace === point || spec.workspace.startsWith(`${point}/`)));
      if (mount) throw new WorkspaceOnMount(`${spec.workspace} lies on the container's mount ${mount}, which an image does not keep`);
    } catch (err) {
      await loader.remove({ force: true }).catch(() => undefined);
      throw err;
    }
    return loader;
  })();
  const packed = (async () => {
    const tree = await scanTree(spec.workspace);
    const archive = packTar(await readEntries(spec.workspace, tree, [...tree.keys()].sort()));
    return { tree, archive };
  })();
  // Both run at once; a failure of one still waits for the other, so no loader is left behind.
  const [loaderResult, packResult] = await Promise.allSettled([loaderReady, packed]);
  if (loaderResult.status === 'rejected') throw loaderResult.reason;
  const loader = loaderResult.value;
  try {
    if (packResult.status === 'rejected') throw packResult.reason;
    await loader.putArchive(packResult.value.archive, { path: spec.workspace });
    const committed = (await loader.commit({ repo: BASE_REPOSITORY, tag: spec.tag, pause: false })) as { Id?: string; id?: string };
    const image = committed.Id ?? committed.id;
    if (!image) throw new Error('the host did not name the committed image');
    // The children need not wait for the loader to go (a second or more on a busy host); `close` does.
    return { image, tree: packResult.value.tree, madeAt: Date.now(), loaderGone: loader.remove({ force: true }).catch(() => undefined) };
  } catch (err) {
    await loader.remove({ force: true }).catch(() => undefined);
    throw err;
  }
}

/** The workspace imported as an image of its own (one write), to be mounted into each child. */
async function importBase(spec: BaseSpec, labels: Record<string, string>): Promise<BaseImage> {
  // A missing image is each child's own error to tell (a 404 here says so), before anything is imported.
  const [, tree] = await Promise.all([spec.docker.getImage(spec.image).inspect(), scanTree(spec.workspace)]);
  // The image's root is the workspace folder itself: made as `mkdir` makes it in a lone child's container.
  const root = { name: '.', type: 'dir' as const, mode: 0o755, mtime: Math.floor(Date.now() / 1000) };
  const archive = packTar([root, ...(await readEntries(spec.workspace, tree, [...tree.keys()].sort()))]);
  const image = await importWorkspaceImage(spec.docker, archive, labels);
  return { image, tree, madeAt: Date.now(), mounted: true };
}

/** Removes a base image; one another process (or a child still being removed) holds is left for the sweep. */
export async function removeBase(docker: Docker, image: string): Promise<void> {
  await docker
    .getImage(image)
    .remove()
    .catch(() => undefined);
}

export class BaseImages {
  private readonly entries = new Map<string, Entry>();
  private readonly removals = new Set<Promise<void>>();
  private closed = false;

  /** Whether a base for `workspace` on `host` is made or being made (a child starting now may share it). */
  has(host: string, workspace: string): boolean {
    return this.entries.has(`${host}\0${workspace}`);
  }

  /**
   * The base for `workspace` on `host`, made by `make` when none is there; undefined when it
   * could not be made (the child then gets its workspace copied in on its own). Every base
   * given must be given back once with `drop`.
   */
  async take(host: string, docker: Docker, workspace: string, make: () => Promise<BaseImage>): Promise<BaseImage | undefined> {
    const key = `${host}\0${workspace}`;
    let entry = this.entries.get(key);
    if (!entry) {
      const made: Entry = { users: 0, ready: make().catch(() => undefined) };
      entry = made;
      this.entries.set(key, made);
      // A base made after `close` (or that no one waits for any more) is removed at once.
      void made.ready.then((base) => {
        if (base?.loaderGone) this.track(base.loaderGone.then(() => undefined));
        if (base && (this.closed || made.users === 0)) void this.forget(key, made, docker, base);
      });
    }
    entry.users++;
    const base = await entry.ready;
    if (!base || this.closed) {
      void this.drop(host, docker, workspace, base);
      return undefined;
    }
    return base;
  }

  /** Gives back a base `take` gave (or the undefined it gave); the last user's drop removes the image. */
  drop(host: string, docker: Docker, workspace: string, base: BaseImage | undefined): Promise<void> {
    const key = `${host}\0${workspace}`;
    const entry = this.entries.get(key);
    if (!entry) return Promise.resolve();
    entry.users--;
    if (entry.users > 0) return Promise.resolve();
    if (base) return this.forget(key, entry, docker, base);
    if (this.entries.get(key) === entry) this.entries.delete(key);
    return Promise.resolve();
  }

  private forget(key: string, entry: Entry, docker: Docker, base: BaseImage): Promise<void> {
    if (this.entries.get(key) === entry) this.entries.delete(key);
    return this.track(removeBase(docker, base.image));
  }

  private track(work: Promise<void>): Promise<void> {
    const tracked = work.finally(() => this.removals.delete(tracked));
    this.removals.add(tracked);
    return tracked;
  }

  /** Removes every base still held; later takes give none. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.removals]);
  }
}
