// The engine's side of container runners (DESIGN §25). Contract: nothing is loaded and no host
// is contacted until a session needs a container (or `runner.kind` is "docker", when the start
// removes what a killed earlier instance left on the hosts, in the background); `startContainer`
// gives a child (or a main session, with `for: "all"`) its container or throws one sentence;
// `stopContainer` removes it; `close` removes every container this engine started (the program's exit).
import type { LiveSession } from '../agent/live-session.js';
import type { RunnerConfig } from '../runner/config.js';
import type { ContainerFleet } from '../runner/fleet.js';
import type { RemoteCommandRunner } from '../sandbox/index.js';

export class ChildContainers {
  private fleet: Promise<ContainerFleet> | undefined;

  constructor(
    private readonly config: RunnerConfig,
    private readonly env: NodeJS.ProcessEnv,
    private readonly notice: (line: string) => void,
  ) {
    if (config.kind === 'docker') {
      void this.load()
        .then((fleet) => fleet.removeLeftovers())
        .then(({ containers, images }) => {
          const what = [
            ...(containers > 0 ? [`${containers} container${containers === 1 ? '' : 's'}`] : []),
            ...(images > 0 ? [`${images} base image${images === 1 ? '' : 's'}`] : []),
          ];
          if (what.length) this.notice(`Removed ${what.join(' and ')} left by an earlier run that did not exit cleanly.`);
        })
        .catch(() => undefined);
    }
  }

  private load(): Promise<ContainerFleet> {
    this.fleet ??= import('../runner/fleet.js').then(({ ContainerFleet }) => new ContainerFleet({ config: this.config, env: this.env, notice: this.notice }));
    return this.fleet;
  }

  async startContainer(child: LiveSession): Promise<RemoteCommandRunner> {
    if (!this.config.image) throw new Error(`Agent "${child.agentName}" runs its commands in a container (runner: docker), but runner.image is not set in the config.`);
    const fleet = await this.load();
    return fleet.acquire(child.id, child.cwd, child.parent ? 'this sub-agent' : 'the main session');
  }

  async stopContainer(child: LiveSession): Promise<void> {
    if (!this.fleet) return;
    await (await this.fleet).release(child.id).catch(() => undefined);
  }

  async close(): Promise<void> {
    if (!this.fleet) return;
    await (await this.fleet).close().catch(() => undefined);
  }
}
