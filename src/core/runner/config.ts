// The `runner` key (DESIGN §25): where commands run. Contract:
// - `kind: "host"` (default) runs commands on this machine or in its sandbox, as before;
//   `kind: "docker"` runs each sub-agent's commands in a container of its own on one of `hosts`
//   (Docker Engine API endpoints: `unix://`, `tcp://`, `ssh://`), from `image`; with
//   `for: "all"` the main session's commands too, in one container for the project itself;
// - every host is checked here, so a malformed URL stops the start with one sentence naming
//   the key, never a failure later in a child;
// - an agent's `runner:` (front matter or config) chooses per agent; nothing a model passes to
//   `task` can move a child out of its parent's container (`effectiveRunnerKind`).
import * as z from 'zod';

export const RunnerKindSchema = z.enum(['host', 'docker']);
export type RunnerKind = z.infer<typeof RunnerKindSchema>;

/** One Docker Engine API endpoint, as `hosts` names it. */
export type DockerHostUrl =
  | { scheme: 'unix'; url: string; socketPath: string }
  | { scheme: 'tcp' | 'http' | 'https'; url: string; host: string; port: number }
  | { scheme: 'ssh'; url: string; host: string; port: number; username: string | undefined };

/** Parses a host URL; when it is not one this program can reach, what is wrong with it ("is not a host URL: …"). */
export function parseDockerHost(raw: string): DockerHostUrl | string {
  const text = raw.trim();
  const scheme = /^([a-z]+):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (!scheme) return 'is not a host URL: expected unix:///path/to/docker.sock, tcp://host:port or ssh://user@host';
  if (scheme === 'unix') {
    const socketPath = text.slice('unix://'.length);
    if (!socketPath.startsWith('/')) return 'needs an absolute socket path after unix:// (unix:///run/podman/podman.sock)';
    return { scheme: 'unix', url: text, socketPath };
  }
  if (scheme !== 'tcp' && scheme !== 'http' && scheme !== 'https' && scheme !== 'ssh') {
    return `has an unknown scheme "${scheme}://": expected unix://, tcp:// or ssh://`;
  }
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return 'is not a valid URL';
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) return 'names no host';
  if ((parsed.pathname && parsed.pathname !== '/') || parsed.search || parsed.hash) return 'must not have a path, query or fragment after the host';
  if (scheme === 'ssh') {
    if (parsed.password) return 'must not carry a password: use an ssh key (ssh-agent or ~/.ssh)';
    return { scheme: 'ssh', url: text, host, port: parsed.port ? Number(parsed.port) : 22, username: parsed.username ? decodeURIComponent(parsed.username) : undefined };
  }
  if (parsed.username || parsed.password) return 'must not carry a user name or password';
  const port = parsed.port ? Number(parsed.port) : scheme === 'https' ? 2376 : scheme === 'tcp' ? 2375 : 80;
  return { scheme, url: text, host, port };
}

function buildRunnerConfigSchema() {
  /** A file named in the config: absolute, or under the home folder. */
  const absolutePath = z.string().refine((path) => path.startsWith('/') || path.startsWith('~/'), 'must be an absolute path or start with ~/ (for example "~/.docker/ca.pem")');
  return z
    .strictObject({
      kind: RunnerKindSchema.default('host'),
      /** Docker Engine API endpoints; defaults to DOCKER_HOST, else the local Docker or Podman socket. */
      hosts: z.array(z.string().min(1)).optional(),
      /** The image each container starts from: any image with /bin/sh, tar, find and stat. */
      image: z.string().min(1).optional(),
      /** `subagents`: sub-agents' commands run in containers, the main session's on the host; `all`: the main session's too. */
      for: z.enum(['subagents', 'all']).default('subagents'),
      /** `false`: the container has no network at all (network mode `none`). */
      network: z.boolean().default(false),
      cpus: z.number().positive().max(1024).optional(),
      memory_mb: z.number().int().min(6).optional(),
      max_per_host: z.number().int().positive().max(1000).default(8),
      /**
       * TLS for tcp:// hosts (as `docker --tlsverify`): the CA that signed the hosts' certificates
       * and this client's certificate and key; default: DOCKER_TLS_VERIFY / DOCKER_CERT_PATH.
       */
      tls: z
        .strictObject({ ca: absolutePath, cert: absolutePath.optional(), key: absolutePath.optional() })
        .refine((tls) => (tls.cert === undefined) === (tls.key === undefined), 'needs both "cert" and "key" (this client\'s certificate and its key), or neither')
        .optional(),
      /** Where ssh:// hosts' keys are on record; defaults to ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts. */
      known_hosts: absolutePath.optional(),
    })
    .superRefine((value, ctx) => {
      for (const [index, host] of (value.hosts ?? []).entries()) {
        const parsed = parseDockerHost(host);
        if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', path: ['hosts', index], message: parsed });
      }
      if (value.kind === 'docker' && !value.image) {
        ctx.addIssue({ code: 'custom', path: ['image'], message: 'must name the image containers start from when runner.kind is "docker" (for example "node:20-bookworm")' });
      }
    });
}

let runnerSchema: ReturnType<typeof buildRunnerConfigSchema> | undefined;

/**
 * The `runner` section's schema, built on first use: a start whose config has no `runner` key
 * takes its defaults from the build (config/sections.ts) and never builds it.
 */
export function runnerConfigSchema(): ReturnType<typeof buildRunnerConfigSchema> {
  runnerSchema ??= buildRunnerConfigSchema();
  return runnerSchema;
}

export type RunnerConfig = z.output<ReturnType<typeof buildRunnerConfigSchema>>;

/**
 * Where a session's commands run. A child of a session in a container stays in one (an agent's
 * `runner: host` cannot widen it); otherwise the agent's own choice, else the config's: sub-agents
 * in containers, and the main session too with `for: "all"`.
 */
export function effectiveRunnerKind(config: RunnerConfig, options: { isChild: boolean; parentKind: RunnerKind | undefined; agentRunner: RunnerKind | undefined }): RunnerKind {
  if (options.parentKind === 'docker') return 'docker';
  if (options.agentRunner) return options.agentRunner;
  return config.kind === 'docker' && (options.isChild || config.for === 'all') ? 'docker' : 'host';
}
