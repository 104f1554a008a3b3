// `opencode-ink runners [--json]`: the container hosts sub-agents' commands may run on (DESIGN
// §25): for each host, reachable or why not, whether the image is there, and the containers and
// base images of this program on it. Only this command and a child that needs a container contact a host.
import { probeHost, runnerHosts } from '../../core/runner/docker-hosts.js';
import type { OpenedProject } from '../../core/project-context.js';

export async function runnersCommand(ctx: OpenedProject, opts: { json: boolean }): Promise<string> {
  const runner = ctx.config.runner;
  const probes = await Promise.all(runnerHosts(runner, process.env).map((url) => probeHost(url, runner.image, process.env, undefined, runner)));
  if (opts.json) return JSON.stringify({ kind: runner.kind, image: runner.image ?? null, hosts: probes }, null, 2);
  const lines = [
    runner.kind === 'docker'
      ? `Runner: docker — each sub-agent's commands run in a container of its own from ${runner.image}.`
      : `Runner: host — commands run on this machine${runner.image ? `; agents with runner: docker use containers from ${runner.image}` : ''}.`,
  ];
  for (const probe of probes) {
    if (!probe.reachable) {
      lines.push(`${probe.url}: unreachable — ${probe.reason}`);
      continue;
    }
    const image = probe.imagePresent === undefined ? '' : probe.imagePresent ? ', image present' : `, image ${runner.image} missing (pull or load it there)`;
    const bases = probe.bases.length ? `, ${probe.bases.length} base image${probe.bases.length === 1 ? '' : 's'}` : '';
    lines.push(`${probe.url}: reachable${image}, ${probe.containers.length} container${probe.containers.length === 1 ? '' : 's'} of opencode-ink${bases}`);
    for (const container of probe.containers) {
      const what = container.role === 'base' ? ', making a base image' : container.session ? `, session ${container.session}` : '';
      lines.push(`  ${container.name} (${container.id}) ${container.state}${what}`);
    }
    for (const base of probe.bases) lines.push(`  base image ${base.name || '(untagged)'} (${base.id})`);
  }
  return lines.join('\n');
}
