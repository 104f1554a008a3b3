// The peers bench/peers.bench.ts measures beside opencode-ink, and how each is started against
// the fake API: found where a user would have it, run with nothing of the machine's user
// (a temporary HOME, an environment built from scratch: no real key or base URL can leak
// in), and with its own switches for traffic that is not the task's turned off. A peer is
// measured, never depended on: when none is found the bench says so and skips.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { baseEnv } from './support.js';

export interface FoundPeer {
  /** The executable, as found. */
  bin: string;
  /** Its version, as it reports it. */
  version: string;
}

/** Claude Code as found, or one sentence saying where it was looked for. */
export type PeerSearch = { found: FoundPeer } | { missing: string };

/** Where npm's `@anthropic-ai/claude-code` sits on the development machines, when not on PATH. */
const CLAUDE_FALLBACK = '/tmp/cc/node_modules/.bin/claude';

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

/** `<bin> --version` when it answers like Claude Code (`2.1.197 (Claude Code)`), else undefined. */
function claudeVersion(bin: string): string | undefined {
  const r = spawnSync(bin, ['--version'], { env: { ...baseEnv(), HOME: '/nonexistent' }, encoding: 'utf8', timeout: 15_000 });
  const m = r.status === 0 ? /^(\S+) \(Claude Code\)/m.exec(r.stdout) : null;
  return m?.[1];
}

/**
 * Claude Code from `CLAUDE_BIN` (a path, or a name looked up on PATH), else `claude` on PATH,
 * else npm's install under /tmp/cc. A `CLAUDE_BIN` that is not a working Claude Code throws:
 * whoever set it meant to measure it.
 */
export function findClaudeCode(): PeerSearch {
  const chosen = process.env.CLAUDE_BIN;
  if (chosen) {
    const bin = isAbsolute(chosen) || chosen.includes('/') ? chosen : onPath(chosen);
    const version = bin && isExecutableFile(bin) ? claudeVersion(bin) : undefined;
    if (!bin || !version) throw new Error(`CLAUDE_BIN=${chosen} is not an executable that answers \`--version\` as Claude Code does ("<version> (Claude Code)")`);
    return { found: { bin, version } };
  }
  for (const bin of [onPath('claude'), CLAUDE_FALLBACK]) {
    if (!bin || !isExecutableFile(bin)) continue;
    const version = claudeVersion(bin);
    if (version) return { found: { bin, version } };
  }
  return { missing: `no Claude Code found (CLAUDE_BIN unset, no \`claude\` on PATH answering as Claude Code, none at ${CLAUDE_FALLBACK})` };
}

/**
 * Claude Code's environment for one run against `apiUrl`, with `home` as its HOME (its
 * `~/.claude.json` and `~/.claude/` live there, so a shared home makes warm runs, as a user's
 * are). Its documented switches turn off the auto-updater, telemetry, error reports and the
 * other non-essential traffic: none of them is part of the task, and none may leave the machine.
 */
export function claudeEnv(home: string, apiUrl: string): NodeJS.ProcessEnv {
  return {
    ...baseEnv(),
    HOME: home,
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: 'bench',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_BUG_COMMAND: '1',
  };
}
