// The bubblewrap command line for a policy (policy.ts). Order matters, as bwrap applies its
// mounts in the order given: the root (the host's, read-only; or with `read: "project"` an
// empty one holding only the system folders and the project), fresh /dev, /proc and /tmp, the
// project shown again over that /tmp (read-only mode), the writable folders, then what is
// hidden (an empty read-only tmpfs over a folder, /dev/null over a file), then what must be
// seen again inside a hidden folder, then the pinned git folders (bound onto themselves: a
// mount point cannot be renamed, removed or replaced) and last the read-only control files
// inside writable folders, which therefore cannot be renamed or replaced either.
// Namespaces: all of them (`--unshare-all`: user, pid, network, ipc, uts, cgroup), the network
// given back only with `sandbox.network`. A new pid namespace with a fresh /proc means other
// processes (and their /proc/<pid>/environ) cannot be seen, and when the command's shell ends
// the namespace's init ends and takes every leftover process with it; `--die-with-parent`
// ends it all if this program dies; `--new-session` keeps it away from the terminal
// (TIOCSTI).
import type { SandboxPolicy } from './policy.js';

export function bwrapArgs(policy: SandboxPolicy): string[] {
  const args: string[] = [];
  if (policy.read === 'project') args.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  else args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  for (const { path, symlink } of policy.readable) {
    if (symlink !== undefined) args.push('--symlink', symlink, path);
    else args.push('--ro-bind', path, path);
  }
  for (const path of policy.visible) args.push('--ro-bind', path, path);
  for (const path of policy.writable) args.push('--bind', path, path);
  for (const { path, kind } of policy.hidden) {
    if (kind === 'dir') args.push('--tmpfs', path);
    else args.push('--ro-bind', '/dev/null', path);
  }
  // Shown again before the empty folders turn read-only: bwrap creates the mount points in them.
  for (const { path, writable } of policy.revealed) args.push(writable ? '--bind' : '--ro-bind', path, path);
  for (const { path, kind } of policy.hidden) if (kind === 'dir') args.push('--remount-ro', path);
  for (const path of policy.pinned) args.push('--bind', path, path);
  for (const path of policy.protected) args.push('--ro-bind', path, path);
  // The empty root of `read: "project"` would otherwise take new files and folders.
  if (policy.read === 'project') args.push('--remount-ro', '/');
  args.push('--unshare-all');
  if (policy.network) args.push('--share-net');
  args.push('--die-with-parent', '--new-session', '--chdir', policy.cwd);
  return args;
}
