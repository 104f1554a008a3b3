// Whether this machine can sandbox commands, found out once per binary and kept. On Linux the
// check runs bubblewrap the way commands will run (every namespace, a fresh /proc), because
// what fails in practice is not the binary but the kernel or a container refusing user or pid
// namespaces. Never downloads anything: bubblewrap comes from the distribution's packages.
// `OPENCODE_INK_BWRAP` names the bwrap binary to use (a path or a name on PATH); tests point
// it at a missing file to see the unavailable path.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export type SandboxBackend = { kind: 'bwrap'; binary: string } | { kind: 'seatbelt'; binary: string };

export type SandboxAvailability = { available: true; backend: SandboxBackend } | { available: false; reason: string };

export const BWRAP_ENV = 'OPENCODE_INK_BWRAP';
const SANDBOX_EXEC = '/usr/bin/sandbox-exec';
const CHECK_TIMEOUT_MS = 5000;

const cache = new Map<string, SandboxAvailability>();

export function detectSandbox(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): SandboxAvailability {
  if (platform === 'linux') {
    const binary = env[BWRAP_ENV] || 'bwrap';
    return cached(`bwrap:${binary}`, () => checkBwrap(binary));
  }
  if (platform === 'darwin') return cached('seatbelt', checkSeatbelt);
  return { available: false, reason: `no sandbox is available on ${platform} (bubblewrap on Linux, sandbox-exec on macOS)` };
}

function cached(key: string, check: () => SandboxAvailability): SandboxAvailability {
  let result = cache.get(key);
  if (!result) {
    result = check();
    cache.set(key, result);
  }
  return result;
}

function checkBwrap(binary: string): SandboxAvailability {
  const probe = spawnSync(
    binary,
    ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--unshare-all', '--die-with-parent', '--new-session', '--', 'true'],
    { stdio: ['ignore', 'ignore', 'pipe'], timeout: CHECK_TIMEOUT_MS, encoding: 'utf8' },
  );
  if (probe.error) {
    const code = (probe.error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { available: false, reason: `${binary} was not found (install the "bubblewrap" package)` };
    return { available: false, reason: `${binary} could not run (${code ?? probe.error.message})` };
  }
  if (probe.status !== 0) {
    const said = probe.stderr.trim().split('\n')[0] ?? '';
    return { available: false, reason: `${binary} cannot create a sandbox here${said ? `: ${said}` : ` (exit ${probe.status ?? probe.signal})`}` };
  }
  return { available: true, backend: { kind: 'bwrap', binary } };
}

function checkSeatbelt(): SandboxAvailability {
  if (!existsSync(SANDBOX_EXEC)) return { available: false, reason: `${SANDBOX_EXEC} was not found` };
  const probe = spawnSync(SANDBOX_EXEC, ['-p', '(version 1)(allow default)', 'true'], { stdio: 'ignore', timeout: CHECK_TIMEOUT_MS });
  if (probe.status !== 0) return { available: false, reason: `${SANDBOX_EXEC} cannot create a sandbox here` };
  return { available: true, backend: { kind: 'seatbelt', binary: SANDBOX_EXEC } };
}
