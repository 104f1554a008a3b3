// Reaching Docker Engine API endpoints (DESIGN §25). Contract:
// - `runnerHosts(config, env)` is the list to use: `runner.hosts`, else `DOCKER_HOST`, else the
//   local Docker or Podman socket that exists;
// - `connect(url)` gives a dockerode client (loaded on first use: a start without containers
//   never loads it); an ssh:// host's key must be on record in known_hosts (known-hosts.ts), or
//   the connection is refused and `describeHostError` says why; a tcp:// host is reached over
//   TLS (`tlsFor`) with `runner.tls`, or as the docker CLI does with DOCKER_TLS_VERIFY and
//   DOCKER_CERT_PATH, or on port 2376 / https://, its certificate always verified; a file that
//   cannot be read is one sentence naming the key and the file; `probe` tells within a deadline whether the host answers, the image is there,
//   and this program's containers on it — or why not, in words a user can act on.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { parseDockerHost, type DockerHostUrl, type RunnerConfig } from './config.js';
import { hostKeyCheck, knownHostsFiles } from './known-hosts.js';

/** Labels every container of this program carries. */
export const LABEL_PROGRAM = 'opencode-ink.program';
export const LABEL_INSTANCE = 'opencode-ink.instance';
export const LABEL_OWNER_HOST = 'opencode-ink.owner-host';
export const LABEL_OWNER_PID = 'opencode-ink.owner-pid';
export const LABEL_SESSION = 'opencode-ink.session';
/** `base` on a base image and its loader (base-image.ts), `session` on a session's container. */
export const LABEL_ROLE = 'opencode-ink.role';

const PROBE_MS = 5_000;

export function runnerHosts(config: RunnerConfig, env: NodeJS.ProcessEnv): string[] {
  if (config.hosts?.length) return config.hosts;
  if (env.DOCKER_HOST) return [env.DOCKER_HOST];
  const candidates = ['/var/run/docker.sock', env.XDG_RUNTIME_DIR ? `${env.XDG_RUNTIME_DIR}/podman/podman.sock` : '', '/run/podman/podman.sock'].filter(Boolean);
  const found = candidates.find((path) => existsSync(path));
  return [`unix://${found ?? candidates[0]}`];
}

/** What `connect` takes from the `runner` config. */
export type ConnectSettings = Pick<RunnerConfig, 'known_hosts' | 'tls'>;

/** What a TLS connection to a tcp:// host presents and trusts; no `ca`: the system's CAs. */
export interface TlsFiles {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

function readNamed(path: string, what: string, env: NodeJS.ProcessEnv): Buffer {
  const full = path.startsWith('~/') ? join(env.HOME || homedir(), path.slice(2)) : path;
  try {
    return readFileSync(full);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a folder' : (code ?? String(err));
    throw new Error(`${what} names ${full}, which cannot be read (${why})`);
  }
}

/** DOCKER_CERT_PATH's (or ~/.docker's) files, as the docker CLI reads them; the pair only when both are there. */
function certPathFiles(env: NodeJS.ProcessEnv, required: boolean): TlsFiles {
  const dir = env.DOCKER_CERT_PATH || join(env.HOME || homedir(), '.docker');
  const what = env.DOCKER_CERT_PATH ? 'DOCKER_CERT_PATH' : 'the docker CLI\'s folder';
  const has = (name: string) => existsSync(join(dir, name));
  const files: TlsFiles = {};
  if (has('ca.pem') || required) files.ca = readNamed(join(dir, 'ca.pem'), `${what} (ca.pem)`, env);
  if (has('cert.pem') !== has('key.pem')) throw new Error(`${what} ${dir} has ${has('cert.pem') ? 'cert.pem but no key.pem' : 'key.pem but no cert.pem'}: a client certificate needs both`);
  if (has('cert.pem')) {
    files.cert = readNamed(join(dir, 'cert.pem'), `${what} (cert.pem)`, env);
    files.key = readNamed(join(dir, 'key.pem'), `${what} (key.pem)`, env);
  }
  return files;
}

/**
 * TLS for a tcp:// or https:// host, or undefined for plain HTTP: `runner.tls` when set; else
 * DOCKER_TLS_VERIFY (its CA from DOCKER_CERT_PATH, required); else https:// or port 2376 (the
 * Docker convention), with DOCKER_CERT_PATH's files when there. `http://` is always plain.
 * Throws one sentence when a named file cannot be read.
 */
export function tlsFor(host: { scheme: 'tcp' | 'http' | 'https'; port: number }, settings: ConnectSettings, env: NodeJS.ProcessEnv): TlsFiles | undefined {
  if (host.scheme === 'http') return undefined;
  if (settings.tls) {
    return {
      ca: readNamed(settings.tls.ca, 'runner.tls.ca', env),
      ...(settings.tls.cert ? { cert: readNamed(settings.tls.cert, 'runner.tls.cert', env) } : {}),
      ...(settings.tls.key ? { key: readNamed(settings.tls.key, 'runner.tls.key', env) } : {}),
    };
  }
  if (env.DOCKER_TLS_VERIFY && env.DOCKER_TLS_VERIFY !== '0') return certPathFiles(env, true);
  if (host.scheme === 'https' || host.port === 2376) return certPathFiles(env, false);
  return undefined;
}

/** Why the last connection to an ssh:// host was refused for its key, by host URL. */
const hostKeyRefusals = new Map<string, string>();

/** A client for `url`; `env` gives the ssh agent socket and the home folder holding ssh keys and known_hosts. */
export async function connect(url: string, env: NodeJS.ProcessEnv = process.env, settings: ConnectSettings = {}): Promise<Docker> {
  const parsed: DockerHostUrl | string = parseDockerHost(url);
  if (typeof parsed === 'string') throw new Error(`${url} ${parsed}`);
  const { default: DockerClient } = await import('dockerode');
  switch (parsed.scheme) {
    case 'unix':
      return new DockerClient({ socketPath: parsed.socketPath });
    case 'ssh': {
      const check = hostKeyCheck(parsed.host, parsed.port, knownHostsFiles(settings.known_hosts, env));
      return new DockerClient({
        protocol: 'ssh',
        host: parsed.host,
        port: parsed.port,
        ...(parsed.username ? { username: parsed.username } : {}),
        sshOptions: {
          ...sshCredentials(env),
          algorithms: { serverHostKey: check.algorithms },
          hostVerifier: (key: Buffer) => {
            const accepted = check.verify(key);
            if (accepted) hostKeyRefusals.delete(url);
            else hostKeyRefusals.set(url, check.refusal!);
            return accepted;
          },
        },
      });
    }
    default: {
      const tls = tlsFor(parsed, settings, env);
      return new DockerClient({ protocol: tls ? 'https' : 'http', host: parsed.host, port: parsed.port, ...tls });
    }
  }
}

/** The ssh agent when one runs, else the user's default unencrypted key (as `ssh` would try it). */
function sshCredentials(env: NodeJS.ProcessEnv): { agent?: string; privateKey?: Buffer } {
  if (env.SSH_AUTH_SOCK) return { agent: env.SSH_AUTH_SOCK };
  const home = env.HOME || homedir();
  for (const name of ['id_ed25519', 'id_ecdsa', 'id_rsa']) {
    const path = join(home, '.ssh', name);
    if (existsSync(path)) return { privateKey: readFileSync(path) };
  }
  return {};
}

/** Resolves `work` or rejects with "no answer within N s" past the deadline. */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** A host's failure in a few words: `permission denied on /run/podman/podman.sock`, `nothing listens at …`. */
export function describeHostError(err: unknown, url?: string): string {
  const error = err as { code?: string; message?: string; statusCode?: number; address?: string };
  const refusal = url === undefined ? undefined : hostKeyRefusals.get(url);
  if (refusal && /Host denied/.test(error.message ?? '')) return refusal.replace(/\.$/, '');
  const tlsTrouble = describeTlsError(error.code, error.message ?? '');
  if (tlsTrouble) return tlsTrouble;
  const where = error.address ? ` on ${error.address}` : '';
  switch (error.code) {
    case 'EACCES':
      return `permission denied${where} (is this user in the docker group, or is the socket root-only?)`;
    case 'ENOENT':
      return `no socket${where} (is the Docker or Podman service running?)`;
    case 'ECONNREFUSED':
      return `connection refused${where}`;
    case 'ENOTFOUND':
      return 'the host name does not resolve';
    default:
      return (error.message ?? String(err)).split('\n')[0]!.replace(/^Error: /, '');
  }
}

/** A TLS failure in words a user can act on, or undefined when it is not one. */
function describeTlsError(code: string | undefined, message: string): string | undefined {
  if (/certificate required|bad certificate|unknown ca/i.test(message)) {
    return 'the host refused this client over TLS: it wants a client certificate it trusts (runner.tls.cert and runner.tls.key, or cert.pem and key.pem in DOCKER_CERT_PATH)';
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `its TLS certificate is for another name (${message.split('\n')[0]})`;
  if (code && /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code)) {
    return `its TLS certificate is not trusted (${code}): set runner.tls.ca (or DOCKER_CERT_PATH's ca.pem) to the CA that signed it`;
  }
  return undefined;
}

export interface HostProbe {
  url: string;
  reachable: boolean;
  /** Why it cannot be used; set when unreachable. */
  reason?: string;
  imagePresent?: boolean;
  /** Containers of this program (any instance) on the host; `role: "base"` for a base image's loader. */
  containers: Array<{ id: string; name: string; state: string; session?: string; instance?: string; role?: string }>;
  /** Base images of this program (base-image.ts) on the host: children of a batch start from them. */
  bases: Array<{ id: string; name: string; instance?: string }>;
}

export async function probeHost(
  url: string,
  image: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  deadlineMs = PROBE_MS,
  settings: ConnectSettings = {},
): Promise<HostProbe> {
  try {
    const docker = await connect(url, env, settings);
    await withDeadline(docker.ping(), deadlineMs, url);
    const listed = await withDeadline(docker.listContainers({ all: true, filters: { label: [LABEL_PROGRAM] } }), deadlineMs, url);
    const bases = await withDeadline(docker.listImages({ filters: { label: [`${LABEL_ROLE}=base`] } }), deadlineMs, url);
    let imagePresent: boolean | undefined;
    if (image) {
      imagePresent = await withDeadline(
        docker
          .getImage(image)
          .inspect()
          .then(() => true),
        deadlineMs,
        url,
      ).catch((err: { statusCode?: number }) => {
        if (err.statusCode === 404) return false;
        throw err;
      });
    }
    return {
      url,
      reachable: true,
      ...(imagePresent === undefined ? {} : { imagePresent }),
      containers: listed.map((c) => ({
        id: c.Id.slice(0, 12),
        name: (c.Names[0] ?? '').replace(/^\//, ''),
        state: c.State,
        ...(c.Labels[LABEL_SESSION] ? { session: c.Labels[LABEL_SESSION] } : {}),
        ...(c.Labels[LABEL_INSTANCE] ? { instance: c.Labels[LABEL_INSTANCE] } : {}),
        ...(c.Labels[LABEL_ROLE] === 'base' ? { role: 'base' } : {}),
      })),
      bases: bases
        .filter((image) => image.Labels?.[LABEL_PROGRAM])
        .map((image) => ({
          id: image.Id.replace(/^sha256:/, '').slice(0, 12),
          name: (image.RepoTags ?? []).find((tag) => tag !== '<none>:<none>') ?? '',
          ...(image.Labels?.[LABEL_INSTANCE] ? { instance: image.Labels[LABEL_INSTANCE] } : {}),
        })),
    };
  } catch (err) {
    return { url, reachable: false, reason: describeHostError(err, url), containers: [], bases: [] };
  }
}
