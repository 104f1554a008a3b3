// The containers of one program instance across its hosts (DESIGN §25). Contract:
// - `acquire(session, workspace)` starts a container for one session (a sub-agent, or the main
//   session with `for: "all"`) on the host with the
//   fewest containers of this program, skipping full hosts (`max_per_host`) and unreachable ones
//   (each told once through `notice`); when none can take it, it throws one error naming every
//   host and why — it never falls back to running on this machine;
// - `release` removes a child's container; `close` removes all of them (the program's exit);
// - children that start together (three or more) on one host and workspace share one base image of it
//   (base-image.ts; mounted on a Podman host, committed on others): the tree is uploaded once, not once per child; a lone child has its
//   workspace copied in as before; a host where a base cannot be made is told once and its
//   children are copied in one by one;
// - `removeLeftovers` deletes containers and base images a killed instance of this program left
//   on the hosts (owner on this machine, owner process gone).
import { hostname } from 'node:os';
import type Docker from 'dockerode';
import { BaseImages, LABEL_ROLE, makeBase, WorkspaceOnMount, type BaseImage } from './base-image.js';
import type { RunnerConfig } from './config.js';
import { ContainerRunner } from './container-runner.js';
import { servesLibpod } from './libpod.js';
import {
  connect,
  describeHostError,
  LABEL_INSTANCE,
  LABEL_OWNER_HOST,
  LABEL_OWNER_PID,
  LABEL_PROGRAM,
  LABEL_SESSION,
  runnerHosts,
  withDeadline,
} from './docker-hosts.js';

const PING_MS = 5_000;
/**
 * Children asking at once for one workspace from which they share a base image: making one costs
 * about what two uploads do (one upload, then a commit), so it pays from the third child on.
 */
const SHARE_FROM = 3;

export interface FleetOptions {
  config: RunnerConfig;
  env: NodeJS.ProcessEnv;
  /** One line for the user: a host skipped, leftovers removed. */
  notice(line: string): void;
}

/** Whether `err` says the configured image is not on the host: Docker's API says 404 "no such image", Podman's own "<image>: image not known". */
function imageMissing(err: unknown, image: string): boolean {
  const error = err as { statusCode?: number; json?: { message?: string }; message?: string };
  const message = String(error.json?.message ?? error.message);
  return (error.statusCode === 404 && /image|no such/i.test(message)) || (/image not known/i.test(message) && message.includes(image));
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class ContainerFleet {
  readonly hosts: string[];
  private readonly instance = `${hostname()}:${process.pid}:${Date.now()}`;
  private readonly clients = new Map<string, Docker>();
  private readonly running = new Map<string, ContainerRunner>();
  /** Containers being removed: a child that ended gives its place up at once, not when its host has removed it. */
  private readonly releasing = new Set<string>();
  /** Containers being started, per host, so children starting together spread out. */
  private readonly starting = new Map<string, number>();
  private readonly told = new Set<string>();
  /** Children asking for a container now, per workspace: `SHARE_FROM` or more at once share a base. */
  private readonly asking = new Map<string, number>();
  private readonly bases = new BaseImages();
  /** Each child's base, given back when its container goes. */
  private readonly baseOf = new Map<string, { host: string; docker: Docker; workspace: string; base: BaseImage }>();
  /** Hosts where a base could not be made (told once): their children are copied in one by one. */
  private readonly noBase = new Set<string>();
  /** Host and workspace pairs (`host\0workspace`) whose workspace lies on a mount of the containers there: no base can hold it. */
  private readonly noBaseFor = new Set<string>();
  private baseCount = 0;
  /** Whether each host serves Podman's API (asked once, when its first base is made). */
  private readonly libpod = new Map<string, Promise<boolean>>();

  constructor(private readonly options: FleetOptions) {
    this.hosts = runnerHosts(options.config, options.env);
  }

  private async client(url: string): Promise<Docker> {
    let docker = this.clients.get(url);
    if (!docker) {
      docker = await connect(url, this.options.env, this.options.config);
      this.clients.set(url, docker);
    }
    return docker;
  }

  /** How many containers of this program each reachable host runs, or why it cannot be used. */
  private async survey(): Promise<Array<{ url: string; docker?: Docker; count: number; why?: string }>> {
    return Promise.all(
      this.hosts.map(async (url) => {
        try {
          const docker = await this.client(url);
          await withDeadline(docker.ping(), PING_MS, url);
          const listed = await withDeadline(docker.listContainers({ filters: { label: [LABEL_PROGRAM] } }), PING_MS, url);
          // A base's loader lives for a moment and runs nothing of a child's: it takes no place.
          const staying = listed.filter((container) => !this.releasing.has(container.Id) && container.Labels?.[LABEL_ROLE] !== 'base');
          return { url, docker, count: staying.length + (this.starting.get(url) ?? 0) };
        } catch (err) {
          return { url, count: 0, why: describeHostError(err, url) };
        }
      }),
    );
  }

  /** `who` names the session in the error: "this sub-agent" (default) or "the main session". */
  async acquire(sessionId: string, workspace: string, who = 'this sub-agent'): Promise<ContainerRunner> {
    this.asking.set(workspace, (this.asking.get(workspace) ?? 0) + 1);
    try {
      return await this.acquireOn(sessionId, workspace, who);
    } finally {
      const left = (this.asking.get(workspace) ?? 1) - 1;
      if (left > 0) this.asking.set(workspace, left);
      else this.asking.delete(workspace);
    }
  }

  private ownerLabels(): Record<string, string> {
    return {
      [LABEL_PROGRAM]: 'opencode-ink',
      [LABEL_INSTANCE]: this.instance,
      [LABEL_OWNER_HOST]: hostname(),
      [LABEL_OWNER_PID]: String(process.pid),
    };
  }

  /**
   * The batch's base on this host when other children ask for the same workspace now, or one is
   * still held by children started earlier; undefined for a lone child.
   */
  private async baseFor(url: string, docker: Docker, workspace: string): Promise<BaseImage | undefined> {
    if (this.noBase.has(url) || this.noBaseFor.has(`${url}\0${workspace}`) || ((this.asking.get(workspace) ?? 0) < SHARE_FROM && !this.bases.has(url, workspace))) return undefined;
    const image = this.options.config.image!;
    let libpod = this.libpod.get(url);
    if (!libpod) this.libpod.set(url, (libpod = withDeadline(servesLibpod(docker), PING_MS, url).catch(() => false)));
    const podman = libpod;
    const base = await this.bases.take(url, docker, workspace, async () =>
      makeBase({ docker, image, workspace, labels: this.ownerLabels(), tag: `${process.pid}-${Date.now().toString(36)}-${++this.baseCount}`, libpod: await podman }).catch((err: unknown) => {
        // A missing image is each child's own error to tell (it names the image); it says nothing of bases here.
        if ((err as { statusCode?: number }).statusCode === 404) throw err;
        if (err instanceof WorkspaceOnMount) {
          this.noBaseFor.add(`${url}\0${workspace}`);
          throw err;
        }
        const why = describeHostError(err, url);
        if (!this.noBase.has(url)) {
          this.noBase.add(url);
          this.options.notice(`Container host ${url}: no shared base image for sub-agents started together (${why}); each copies its workspace in on its own.`);
        }
        throw err;
      }),
    );
    // One of the batch could not mount it (mountFailed): the others are not offered it again.
    if (base?.mounted && !(await this.libpod.get(url))) {
      void this.bases.drop(url, docker, workspace, base);
      return undefined;
    }
    return base;
  }

  /** The host's Podman could not mount a workspace image: told once; its next bases are committed. */
  private mountFailed(url: string, err: unknown): void {
    this.libpod.set(url, Promise.resolve(false));
    const key = `mount\0${url}`;
    if (this.told.has(key)) return;
    this.told.add(key);
    this.options.notice(`Container host ${url}: could not mount the workspace's image into a container (${describeHostError(err, url)}); its sub-agents get the workspace copied in, and later batches a committed base.`);
  }

  private async acquireOn(sessionId: string, workspace: string, who: string): Promise<ContainerRunner> {
    const { config } = this.options;
    const image = config.image!;
    const survey = await this.survey();
    const reasons: string[] = [];
    for (const host of survey) {
      if (host.why) {
        reasons.push(`${host.url}: ${host.why}`);
        if (!this.told.has(host.url)) {
          this.told.add(host.url);
          this.options.notice(`Container host ${host.url} skipped: ${host.why}.`);
        }
      }
    }
    const usable = survey.filter((host) => host.docker).sort((a, b) => a.count - b.count);
    for (const host of usable) {
      if (host.count >= config.max_per_host) {
        reasons.push(`${host.url}: full (${host.count} of max_per_host ${config.max_per_host})`);
        continue;
      }
      this.starting.set(host.url, (this.starting.get(host.url) ?? 0) + 1);
      let base: BaseImage | undefined;
      try {
        for (let shared = true; ; shared = false) {
          base = shared ? await this.baseFor(host.url, host.docker!, workspace) : undefined;
          try {
            const runner = await ContainerRunner.create({
              docker: host.docker!,
              host: host.url,
              image: base && !base.mounted ? base.image : image,
              base,
              workspace,
              network: config.network,
              cpus: config.cpus,
              memoryMb: config.memory_mb,
              name: `opencode-ink-${sessionId.toLowerCase().replace(/[^a-z0-9_.-]/g, '-')}-${Date.now().toString(36)}`,
              // The role is set for every child: one started from a base would otherwise inherit the loader's.
              labels: { ...this.ownerLabels(), [LABEL_SESSION]: sessionId, [LABEL_ROLE]: 'session' },
            });
            this.running.set(sessionId, runner);
            if (base) this.baseOf.set(sessionId, { host: host.url, docker: host.docker!, workspace, base });
            base = undefined;
            return runner;
          } catch (err) {
            if (!base?.mounted || imageMissing(err, image)) throw err;
            // A Podman that cannot mount the workspace's image (its storage or version): this child
            // gets its workspace copied in, and the host's later batches a committed base.
            this.mountFailed(host.url, err);
            void this.bases.drop(host.url, host.docker!, workspace, base);
            base = undefined;
          }
        }
      } catch (err) {
        reasons.push(`${host.url}: ${imageMissing(err, image) ? `the image ${image} is not there (pull or load it on that host)` : describeHostError(err, host.url)}`);
      } finally {
        this.starting.set(host.url, (this.starting.get(host.url) ?? 1) - 1);
        if (base) void this.bases.drop(host.url, host.docker!, workspace, base);
      }
    }
    throw new Error(`No container host could take ${who}: ${reasons.join('; ')}.`);
  }

  async release(sessionId: string): Promise<void> {
    const runner = this.running.get(sessionId);
    this.running.delete(sessionId);
    if (!runner) return;
    this.releasing.add(runner.id);
    try {
      await runner.remove().catch(() => undefined);
    } finally {
      this.releasing.delete(runner.id);
      // After the container is gone: the host refuses to remove an image a container still uses.
      const held = this.baseOf.get(sessionId);
      this.baseOf.delete(sessionId);
      if (held) await this.bases.drop(held.host, held.docker, held.workspace, held.base);
    }
  }

  async close(): Promise<void> {
    const all = [...this.running.keys()];
    await Promise.all(all.map((id) => this.release(id)));
    await this.bases.close();
  }

  /** Removes containers and base images of instances of this program on this machine whose process is gone; how many of each. */
  async removeLeftovers(): Promise<{ containers: number; images: number }> {
    let containers = 0;
    let images = 0;
    const deadOwner = (labels: Record<string, string> | undefined): boolean => {
      const pid = Number(labels?.[LABEL_OWNER_PID]);
      return labels?.[LABEL_INSTANCE] !== this.instance && Number.isInteger(pid) && pid > 0 && !processAlive(pid);
    };
    await Promise.all(
      this.hosts.map(async (url) => {
        try {
          const docker = await this.client(url);
          const mine = { label: [`${LABEL_OWNER_HOST}=${hostname()}`] };
          const listed = await withDeadline(docker.listContainers({ all: true, filters: mine }), PING_MS, url);
          for (const container of listed) {
            if (!deadOwner(container.Labels)) continue;
            await docker
              .getContainer(container.Id)
              .remove({ force: true })
              .then(() => containers++)
              .catch(() => undefined);
          }
          // Base images after the containers that were made from them (the host refuses an image in use).
          const bases = await withDeadline(docker.listImages({ filters: mine }), PING_MS, url);
          for (const image of bases) {
            if (image.Labels?.[LABEL_ROLE] !== 'base' || !deadOwner(image.Labels)) continue;
            await docker
              .getImage(image.Id)
              .remove()
              .then(() => images++)
              .catch(() => undefined);
          }
        } catch {
          // An unreachable host is told when a child needs it.
        }
      }),
    );
    return { containers, images };
  }
}
