// The macOS sandbox-exec (Seatbelt) profile for a policy (policy.ts): the same policy as
// bubblewrap enforces on Linux, written as SBPL rules, where the last matching rule wins.
// It cannot run on Linux, so only its text is tested; the README says so.
// Differences that follow from the platform: there is no pid namespace, so other processes
// stay visible to `ps` (their environments are not: macOS does not expose them to other
// processes without privileges), and /tmp and the per-user temporary folder are writable
// but shared with the machine, since Seatbelt cannot put an empty folder in their place.
import type { SandboxPolicy } from './policy.js';

/** An SBPL string literal. */
function quote(path: string): string {
  return `"${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function subpaths(paths: readonly string[]): string {
  return paths.map((p) => `(subpath ${quote(p)})`).join(' ');
}

export interface SeatbeltOptions {
  /** The per-user temporary folder (`$TMPDIR`), writable like the private /tmp on Linux. */
  tmpDir?: string | undefined;
}

/** With `read: "project"`: the system folders, the project and what is writable (every path's metadata stays readable, to resolve them). */
function readableRules(policy: SandboxPolicy): string {
  const folders = [...policy.readable.map((r) => r.path), ...policy.writable, ...policy.visible, '/private/etc', '/private/tmp', '/private/var/folders', '/dev', '/System', '/Library'];
  return `(literal "/") ${subpaths(folders)}`;
}

export function seatbeltProfile(policy: SandboxPolicy, options: SeatbeltOptions = {}): string {
  const lines = [
    '(version 1)',
    '(deny default)',
    '(import "system.sb")',
    '(allow process-exec process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow sysctl-read mach-lookup ipc-posix-shm iokit-open pseudo-tty)',
    ...(policy.read === 'project' ? [`(allow file-read* ${readableRules(policy)})`, '(allow file-read-metadata)'] : ['(allow file-read*)']),
    '(allow file-write* (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/fd/") (literal "/dev/dtracehelper"))',
    `(allow file-write* (subpath "/private/tmp") (subpath "/private/var/folders")${options.tmpDir ? ` (subpath ${quote(options.tmpDir)})` : ''})`,
  ];
  if (policy.writable.length) lines.push(`(allow file-write* ${subpaths(policy.writable)})`);
  if (policy.hidden.length) {
    const hidden = policy.hidden.map((h) => (h.kind === 'dir' ? `(subpath ${quote(h.path)})` : `(literal ${quote(h.path)})`)).join(' ');
    lines.push(`(deny file-read* file-write* ${hidden})`);
  }
  // What a hidden folder holds that the command must see (a worktree in the data dir) comes back after the denial.
  for (const { path, writable: canWrite } of policy.revealed) {
    lines.push(`(allow file-read* ${canWrite ? 'file-write* ' : ''}(subpath ${quote(path)}))`);
  }
  if (policy.protected.length) lines.push(`(deny file-write* ${subpaths(policy.protected)})`);
  // Seatbelt judges names, existing or not: pinned folders keep their name (no rename or
  // removal), and the control files that do not exist yet cannot be created.
  if (policy.pinned.length) lines.push(`(deny file-write-unlink file-write-create ${policy.pinned.map((p) => `(literal ${quote(p)})`).join(' ')})`);
  if (policy.guarded.length) lines.push(`(deny file-write* ${subpaths(policy.guarded.map((g) => g.path))})`);
  // Without the network nothing is allowed: not even local sockets (a Docker socket runs code outside).
  if (policy.network) lines.push('(allow network*)', '(allow system-socket)');
  return `${lines.join('\n')}\n`;
}
