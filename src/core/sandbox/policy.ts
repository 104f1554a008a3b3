// What a sandboxed command may see and change, as paths, independent of the backend that
// enforces it (bwrap.ts on Linux, seatbelt.ts on macOS). Contract (DESIGN §19):
// - everything is readable, nothing writable, except in `workspace-write`: the project (the
//   work tree around the session's working directory, which for a sub-agent in its own git
//   worktree is that worktree), its git directories, and `sandbox.allow_write`;
// - with `sandbox.read: "project"` only the project, the system folders (`SYSTEM_FOLDERS`) and
//   `sandbox.allow_read` are visible at all;
// - a private, empty /tmp is writable in both modes (many tools need a scratch folder; nothing
//   in it outlives the command);
// - nothing a sandboxed command can write may change what runs outside it: git's control
//   surface (git-surface.ts: `.git` pinned, its config, hooks, info, commondir, gitdir, for every
//   worktree and submodule) and the control files of this program and of Claude Code
//   (`PROJECT_CONTROL_FILES`, at the work tree's root and the working directory) are read-only
//   where they exist; where they do not, they are `guarded` (guard-watch.ts): removed when
//   they appear in git's case and in a sub-agent's own worktree, named otherwise;
// - secrets are not visible at all: the maintained credential list (credentials.ts),
//   `sandbox.hide`, the user's runtime folder (its D-Bus and agent sockets), the Docker and
//   Podman sockets, and this program's config and data dirs (sessions, trust store, snapshots,
//   provider keys);
// - a writable folder inside a hidden one (a sub-agent's worktree lives in the data dir) is
//   shown again after hiding, and only that folder.
// A linked git worktree's `.git` file points into the main repository's `.git/worktrees/<name>`,
// and its objects and refs live in the main `.git`: both are writable (once the pointers check
// out) so that `git add`, `git commit` and `git status` work inside a worktree sub-agent's sandbox.
import { existsSync, lstatSync, mkdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { HIDDEN_CREDENTIALS, HIDDEN_SYSTEM_PATHS } from './credentials.js';
import { findWorkTree, gitSurface, type WorkTreeIndex } from './git-surface.js';
import type { SandboxMode, SandboxRead } from './settings.js';

export interface SandboxPolicy {
  mode: Exclude<SandboxMode, 'off'>;
  network: boolean;
  /** The command starts here. */
  cwd: string;
  /** Writable folders (workspace-write only), each existing. */
  writable: string[];
  /** Inside writable folders, kept read-only (and, as mount points, never renamed or replaced). */
  protected: string[];
  /** Inside writable folders, bound onto themselves: writable, but never renamed, removed or replaced (`.git`). */
  pinned: string[];
  /**
   * Control paths that do not exist yet: a bind needs something to bind onto, so these are
   * watched while a command runs (guard-watch.ts). `remove`: git's own control names, taken
   * away the moment they appear; `report`: this program's and Claude Code's control files,
   * named to the model and not applied until the project is trusted again (trust pins content).
   */
  guarded: Array<{ path: string; action: 'remove' | 'report' }>;
  /** The work tree's git index and its submodule entries before the command (planted-repos.ts); absent outside a repository and in read-only mode. */
  index?: WorkTreeIndex;
  /** `all`, or `project`: only `readable` (and what is writable) exists inside. */
  read: SandboxRead;
  /** With `read: "project"`: folders and files bound read-only from the host, symlinks kept as symlinks. */
  readable: Array<{ path: string; symlink?: string }>;
  /** Folders and files not visible at all, each existing: `path` resolved, `name` as the user's settings spell it. */
  hidden: Array<{ path: string; kind: 'dir' | 'file'; name: string }>;
  /** Shown read-only over the private /tmp (a project under /tmp): the work tree in read-only mode. */
  visible: string[];
  /** Inside hidden folders, shown again: writable ones in workspace-write, the working directory in read-only. */
  revealed: Array<{ path: string; writable: boolean }>;
}


/**
 * The control files of this program and of Claude Code, relative to a project folder: what
 * they hold decides what runs next (hooks, MCP servers, permissions, agents' prompts).
 */
export const PROJECT_CONTROL_FILES: readonly string[] = [
  '.opencoderc.json',
  '.opencode',
  // All of it, not only settings*.json, agents/, commands/ and skills/: hook commands usually
  // run scripts kept beside them (`.claude/hooks/format.sh`), which a command could rewrite.
  '.claude',
  '.mcp.json',
  'AGENTS.md',
  'CLAUDE.md',
];

/** Folders a command needs to run at all, visible with `sandbox.read: "project"`. */
export const SYSTEM_FOLDERS: readonly string[] = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/nix', '/var/lib', '/run/current-system'];

export interface PolicyInput {
  mode: Exclude<SandboxMode, 'off'>;
  network: boolean;
  /** The session's working directory. */
  cwd: string;
  /** `sandbox.allow_write`, absolute. */
  allowWrite: readonly string[];
  home: string;
  /** This program's config and data dirs. */
  programDirs: readonly string[];
  /** The user's runtime folder (`$XDG_RUNTIME_DIR`), if any. */
  runtimeDir?: string | undefined;
  /** `sandbox.hide`, absolute. */
  hide?: readonly string[];
  /** `sandbox.read`; `all` when absent. */
  read?: SandboxRead;
  /** `sandbox.allow_read`, absolute. */
  allowRead?: readonly string[];
}

/** Real path of an existing path, or undefined. */
function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

export function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(sep));
}

/** The work tree around `cwd` and the git directories a command working in it writes to (validated: git-surface.ts). */
export function workTree(cwd: string): { root: string; gitDirs: string[] } {
  const surface = gitSurface(cwd);
  return { root: surface.root, gitDirs: surface.gitDirs };
}

/** The control files of the project that exist (bound read-only) and those that do not (watched). */
function projectControlFiles(folders: readonly string[]): { existing: string[]; missing: string[] } {
  const existing: string[] = [];
  const missing: string[] = [];
  for (const folder of new Set(folders)) {
    for (const name of PROJECT_CONTROL_FILES) {
      const path = join(folder, name);
      let present = false;
      try {
        lstatSync(path);
        present = true;
      } catch {
        present = false;
      }
      (present ? existing : missing).push(path);
    }
  }
  return { existing, missing };
}

/** Outermost first, duplicates and paths inside another one dropped. */
function outermost(paths: Iterable<string>): string[] {
  const sorted = [...new Set(paths)].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const path of sorted) if (!kept.some((k) => isInside(path, k))) kept.push(path);
  return kept;
}

/** The policy for one session's commands. Creates missing `allow_write` folders (the user asked for them). */
export function sandboxPolicy(input: PolicyInput): SandboxPolicy {
  const cwd = real(input.cwd) ?? resolve(input.cwd);
  const writable: string[] = [];
  const read = input.read ?? 'all';
  const root = findWorkTree(cwd).root;
  if (input.mode === 'workspace-write') {
    const surface = gitSurface(cwd);
    const extra = input.allowWrite.map((path) => {
      if (!existsSync(path)) {
        try {
          mkdirSync(path, { recursive: true });
        } catch {
          // Left out below: a folder that cannot exist cannot be bound.
        }
      }
      return real(path);
    });
    for (const path of outermost([surface.root, ...surface.gitDirs, ...extra.filter((p): p is string => p !== undefined)])) writable.push(path);
  }
  const hiddenCandidates = [
    ...HIDDEN_CREDENTIALS.map((p) => join(input.home, p)),
    ...HIDDEN_SYSTEM_PATHS,
    ...(input.runtimeDir ? [input.runtimeDir] : []),
    ...input.programDirs,
    ...(input.hide ?? []),
  ];
  const hidden: SandboxPolicy['hidden'] = [];
  for (const candidate of hiddenCandidates) {
    const path = real(candidate);
    if (!path || hidden.some((h) => h.path === path)) continue;
    // Hiding the project itself (run from inside the data dir) would leave nothing to work on.
    if (path === cwd) continue;
    const kind = statSync(path).isDirectory() ? 'dir' : 'file';
    hidden.push({ path, kind, name: candidate });
  }
  const hiddenDirs = hidden.filter((h) => h.kind === 'dir').map((h) => h.path);
  const insideHidden = (path: string) => hiddenDirs.some((h) => isInside(path, h) && path !== h) || hiddenDirs.includes(path);
  const revealed: SandboxPolicy['revealed'] = writable.filter(insideHidden).map((path) => ({ path, writable: true }));
  const visible = input.mode === 'read-only' ? [root] : [];
  if (input.mode === 'read-only' && insideHidden(cwd)) revealed.push({ path: visible[0]!, writable: false });
  // A protected path inside a hidden folder stays hidden unless its folder was shown again.
  const readable = read === 'project' ? readableFolders(input, root) : [];
  const base = { mode: input.mode, network: input.network, cwd, visible, writable, hidden, revealed, read, readable };
  return { ...base, ...controlSurface(base) };
}

/**
 * The policy with its control surface looked up again (a few dozen lookups): what exists in
 * `.git` and which control files exist now decide what is bound read-only and what is
 * watched, so this runs before each command while the rest of the policy is kept.
 */
export function refreshControlSurface(policy: SandboxPolicy): SandboxPolicy {
  return { ...policy, ...controlSurface(policy) };
}

function controlSurface(policy: Pick<SandboxPolicy, 'mode' | 'cwd' | 'writable' | 'hidden' | 'revealed'>): Pick<SandboxPolicy, 'protected' | 'pinned' | 'guarded' | 'index'> {
  if (policy.mode !== 'workspace-write') return { protected: [], pinned: [], guarded: [] };
  const surface = gitSurface(policy.cwd);
  const hiddenDirs = policy.hidden.filter((h) => h.kind === 'dir').map((h) => h.path);
  // A path inside a hidden folder stays hidden unless its folder was shown again.
  const shown = (path: string) => !hiddenDirs.some((h) => isInside(path, h)) || policy.revealed.some((r) => isInside(path, r.path));
  // Only what a command could otherwise change needs binding: a path outside every writable folder is read-only already.
  const inReach = (path: string) => policy.writable.some((w) => isInside(path, w)) && shown(path);
  const control = projectControlFiles([surface.root, policy.cwd]);
  // Outside any repository a command may well `git init` one (and nothing can stop it), but
  // git obeys the new repository's config wherever it later runs there: the user is told.
  if (surface.gitDirs.length === 0 && !existsSync(join(surface.root, '.git'))) control.missing.push(join(surface.root, '.git'));
  const index = surface.index && inReach(surface.index.file) ? { index: surface.index } : {};
  return {
    ...index,
    // Outermost first: binding `.git` after `.git/worktrees/x` would cover the inner pin.
    pinned: surface.pinned.filter(inReach).sort((a, b) => a.length - b.length),
    protected: [...surface.protected, ...control.existing].filter(inReach),
    guarded: [
      ...surface.guarded.filter(inReach).map((path) => ({ path, action: 'remove' as const })),
      // In a sub-agent's own worktree (shown again inside the hidden data dir) nobody edits by
      // hand, and what the child leaves there is merged into the user's tree: a control file
      // created there is removed like git's, not only named.
      ...control.missing.filter(inReach).map((path) => ({ path, action: policy.revealed.some((r) => isInside(path, r.path)) ? ('remove' as const) : ('report' as const) })),
    ],
  };
}

/** With `read: "project"`: the system folders, the project and `allow_read`, as they exist here. */
function readableFolders(input: PolicyInput, root: string): SandboxPolicy['readable'] {
  const out: SandboxPolicy['readable'] = [];
  for (const path of SYSTEM_FOLDERS) {
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    // `/bin -> usr/bin` stays a symlink, as on the host.
    if (stat.isSymbolicLink()) out.push({ path, symlink: readlinkSync(path) });
    else out.push({ path });
  }
  for (const path of [root, ...(input.allowRead ?? [])]) {
    const target = real(path);
    if (target && !out.some((r) => r.path === target)) out.push({ path: target });
  }
  return out;
}
