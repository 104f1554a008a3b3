// The containers of one program instance across its hosts (DESIGN §25). Contract:
// - `acquire(session, workspace)` starts a container for one session (a sub-agent, or the main
//   session with `for: "all"`) on the host with the
//   fewest containers of this program, skipping full hosts (`max_per_host`) and unreachable ones
//   (each told once through `notice`); when none can take it, it throws one error naming every
//   host and why — it never falls back to running on this machine;
// - `release` removes a child's container; `close` removes all of them (the program's exit);
// - `removeLeftovers` deletes containers a killed instance of this program left on the hosts
//   (owner on this machine, owner process gone).
import { hostname } from 'node:os';
import type Docker from 'dockerode';
import type { RunnerConfig } from './config.js';
import { ContainerRunner } from './container-runner.js';
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

export interface FleetOptions {
  config: RunnerConfig;
  env: NodeJS.ProcessEnv;
  /** One line for the user: a host skipped, leftovers removed. */
  notice(line: string): void;
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
          const staying = listed.filter((container) => !this.releasing.has(container.Id));
          return { url, docker, count: staying.length + (this.starting.get(url) ?? 0) };
        } catch (err) {
          return { url, count: 0, why: describeHostError(err, url) };
        }
      }),
    );
  }

  /** `who` names the session in the error: "this sub-agent" (default) or "the main session". */
  async acquire(sessionId: string, workspace: string, who = 'this sub-agent'): Promise<ContainerRunner> {
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
      try {
        const runner = await ContainerRunner.create({
          docker: host.docker!,
          host: host.url,
          image,
          workspace,
          network: config.network,
          cpus: config.cpus,
          memoryMb: config.memory_mb,
          name: `opencode-ink-${sessionId.toLowerCase().replace(/[^a-z0-9_.-]/g, '-')}-${Date.now().toString(36)}`,
          labels: {
            [LABEL_PROGRAM]: 'opencode-ink',
            [LABEL_INSTANCE]: this.instance,
            [LABEL_OWNER_HOST]: hostname(),
            [LABEL_OWNER_PID]: String(process.pid),
            [LABEL_SESSION]: sessionId,
          },
        });
        this.running.set(sessionId, runner);
        return runner;
      } catch (err) {
        const error = err as { statusCode?: number; json?: { message?: string } };
        const why =
          error.statusCode === 404 && /image|no such/i.test(String(error.json?.message ?? (err as Error).message))
            ? `the image ${image} is not there (pull or load it on that host)`
            : describeHostError(err, host.url);
        reasons.push(`${host.url}: ${why}`);
      } finally {
        this.starting.set(host.url, (this.starting.get(host.url) ?? 1) - 1);
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
    }
  }

  async close(): Promise<void> {
    const all = [...this.running.keys()];
    await Promise.all(all.map((id) => this.release(id)));
  }

  /** Removes containers of instances of this program on this machine whose process is gone; how many. */
  async removeLeftovers(): Promise<number> {
    let removed = 0;
    await Promise.all(
      this.hosts.map(async (url) => {
        try {
          const docker = await this.client(url);
          const listed = await withDeadline(docker.listContainers({ all: true, filters: { label: [`${LABEL_OWNER_HOST}=${hostname()}`] } }), PING_MS, url);
          for (const container of listed) {
            const pid = Number(container.Labels[LABEL_OWNER_PID]);
            if (container.Labels[LABEL_INSTANCE] === this.instance || !Number.isInteger(pid) || pid <= 0 || processAlive(pid)) continue;
            await docker
              .getContainer(container.Id)
              .remove({ force: true })
              .then(() => removed++)
              .catch(() => undefined);
          }
        } catch {
          // An unreachable host is told when a child needs it.
        }
      }),
    );
    return removed;
  }
}
