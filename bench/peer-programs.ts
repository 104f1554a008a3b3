// The peers bench/peers.bench.ts measures beside opencode-ink, and how each is started against
// the fake API: found where a user would have it, run with nothing of the machine's user
// (a temporary HOME, an environment built from scratch: no real key or base URL can leak
// in), and with its own documented switches for traffic that is not the task's turned off. A
// peer is measured, never depended on: when none is found the bench says so and skips.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { baseEnv } from './support.js';

export interface Peer {
  /** Short name for `BENCH_PEERS` and the figure ids, e.g. `claude`. */
  id: string;
  /** As the tables print it. */
  name: string;
  /** The environment variable naming its executable; else `command` on PATH, else `fallback`. */
  binVariable: string;
  command: string;
  /** Where npm installed it on the development machines, for when it is not on PATH. */
  fallback: string;
  /** Its version from `--version`'s output, or undefined when the output is not this peer's. */
  parseVersion(output: string): string | undefined;
  /** The arguments that send `prompt` in one non-interactive run. */
  args(prompt: string): string[];
  /**
   * Its environment for one run against `apiUrl`, with `home` as its HOME: its settings, data
   * and caches live there, so a shared home makes warm runs, as a user's are.
   */
  env(home: string, apiUrl: string): NodeJS.ProcessEnv;
}

export const CLAUDE_CODE: Peer = {
  id: 'claude',
  name: 'Claude Code',
  binVariable: 'CLAUDE_BIN',
  command: 'claude',
  fallback: '/tmp/cc/node_modules/.bin/claude',
  parseVersion: (output) => /^(\S+) \(Claude Code\)/m.exec(output)?.[1],
  args: (prompt) => ['-p', prompt],
  // Its switches turn off the auto-updater, telemetry, error reports and the other
  // non-essential traffic: none is part of the task, and none may leave the machine.
  env: (home, apiUrl) => ({
    ...baseEnv(),
    HOME: home,
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: 'bench',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_BUG_COMMAND: '1',
  }),
};

export const OPENCODE: Peer = {
  id: 'opencode',
  name: 'OpenCode',
  binVariable: 'OPENCODE_BIN',
  command: 'opencode',
  fallback: '/tmp/oc/node_modules/.bin/opencode',
  parseVersion: (output) => /^v?(\d+\.\d+\.\d+\S*)\s*$/.exec(output.trim())?.[1],
  // `opencode run` joins its arguments, quoting any that holds a space: one word per argument
  // sends the prompt as typed.
  args: (prompt) => ['run', ...prompt.split(' ')],
  // Its Anthropic provider is pointed at the fake API by the inline config (the AI SDK wants
  // the `/v1` in the base URL); its switches turn off the update check, the models.dev fetch,
  // plugin installs from npm, LSP downloads, sharing and reading Claude Code's files.
  env: (home, apiUrl) => ({
    ...baseEnv(),
    HOME: home,
    ANTHROPIC_API_KEY: 'bench',
    OPENCODE_CONFIG_CONTENT: JSON.stringify({
      model: 'anthropic/claude-sonnet-4-5',
      autoupdate: false,
      share: 'disabled',
      provider: { anthropic: { options: { baseURL: `${apiUrl}/v1` } } },
    }),
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_CLAUDE_CODE: '1',
  }),
};

export const PEERS: readonly Peer[] = [CLAUDE_CODE, OPENCODE];

export interface FoundPeer {
  peer: Peer;
  /** The executable, as found. */
  bin: string;
  /** Its version, as it reports it. */
  version: string;
}

/** A peer as found, or one sentence saying where it was looked for. */
export type PeerSearch = { found: FoundPeer } | { missing: string };

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function versionOf(peer: Peer, bin: string): string | undefined {
  if (!isExecutableFile(bin)) return undefined;
  // A HOME of its own even here: a first start may write settings or migrate data.
  const r = spawnSync(bin, ['--version'], { env: { ...baseEnv(), HOME: '/nonexistent' }, encoding: 'utf8', timeout: 15_000 });
  return r.status === 0 ? peer.parseVersion(r.stdout) : undefined;
}

/**
 * `peer` from its variable (a path, or a name looked up on PATH), else its command on PATH,
 * else its npm install under /tmp. A variable that does not name a working copy of the peer
 * throws: whoever set it meant to measure it.
 */
export function findPeer(peer: Peer): PeerSearch {
  const chosen = process.env[peer.binVariable];
  if (chosen) {
    const bin = isAbsolute(chosen) || chosen.includes('/') ? chosen : onPath(chosen);
    const version = bin ? versionOf(peer, bin) : undefined;
    if (!bin || !version) throw new Error(`${peer.binVariable}=${chosen} is not an executable that answers \`--version\` as ${peer.name} does`);
    return { found: { peer, bin, version } };
  }
  for (const bin of [onPath(peer.command), peer.fallback]) {
    const version = bin ? versionOf(peer, bin) : undefined;
    if (bin && version) return { found: { peer, bin, version } };
  }
  return { missing: `no ${peer.name} found (${peer.binVariable} unset, no \`${peer.command}\` on PATH answering as ${peer.name}, none at ${peer.fallback})` };
}
