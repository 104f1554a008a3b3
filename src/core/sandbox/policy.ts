// What a sandboxed command may see and change, as paths, independent of the backend that
// enforces it (bwrap.ts on Linux, seatbelt.ts on macOS). Contract (DESIGN §19):
// - everything is readable, nothing writable, except in `workspace-write`: the project (the
//   work tree around the session's working directory, which for a sub-agent in its own git
//   worktree is that worktree), its git directories, and `sandbox.allow_write`;
// - a private, empty /tmp is writable in both modes (many tools need a scratch folder; nothing
//   in it outlives the command);
// - inside what is writable, a repository's `hooks` and `config` stay read-only: git runs them
//   later outside the sandbox, so writing them would be a way out;
// - secrets are not visible at all: ~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gcloud, credential
//   files, the user's runtime folder (its D-Bus and agent sockets), the Docker socket, and this
//   program's config and data dirs (sessions, trust store, snapshots, provider keys);
// - a writable folder inside a hidden one (a sub-agent's worktree lives in the data dir) is
//   shown again after hiding, and only that folder.
// A linked git worktree's `.git` file points into the main repository's `.git/worktrees/<name>`,
// and its objects and refs live in the main `.git`: both are writable so that `git add`,
// `git commit` and `git status` work inside a worktree sub-agent's sandbox.
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { SandboxMode } from './settings.js';

export interface SandboxPolicy {
  mode: Exclude<SandboxMode, 'off'>;
  network: boolean;
  /** The command starts here. */
  cwd: string;
  /** Writable folders (workspace-write only), each existing. */
  writable: string[];
  /** Inside writable folders, kept read-only. */
  protected: string[];
  /** Folders and files not visible at all, each existing: `path` resolved, `name` as the user's settings spell it. */
  hidden: Array<{ path: string; kind: 'dir' | 'file'; name: string }>;
  /** Shown read-only over the private /tmp (a project under /tmp): the work tree in read-only mode. */
  visible: string[];
  /** Inside hidden folders, shown again: writable ones in workspace-write, the working directory in read-only. */
  revealed: Array<{ path: string; writable: boolean }>;
}

/** Paths hidden from every sandboxed command, besides the program's own dirs (~ relative). */
export const HIDDEN_HOME_PATHS: readonly string[] = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.config/gcloud',
  '.netrc',
  '.git-credentials',
  '.docker/config.json',
];

/** System paths hidden from every sandboxed command: sockets that would run code outside it. */
export const HIDDEN_SYSTEM_PATHS: readonly string[] = ['/run/docker.sock', '/var/run/docker.sock'];

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

/** The work tree around `cwd` and the git directories a command working in it writes to. */
export function workTree(cwd: string): { root: string; gitDirs: string[] } {
  let dir = resolve(cwd);
  for (;;) {
    const dotGit = join(dir, '.git');
    let stat;
    try {
      stat = statSync(dotGit);
    } catch {
      stat = undefined;
    }
    if (stat?.isDirectory()) return { root: dir, gitDirs: [dotGit] };
    if (stat?.isFile()) return { root: dir, gitDirs: linkedGitDirs(dir, dotGit) };
    const parent = dirname(dir);
    if (parent === dir) return { root: resolve(cwd), gitDirs: [] };
    dir = parent;
  }
}

/** A `.git` file (`gitdir: …`): the worktree's own git dir and, through `commondir`, the repository's. */
function linkedGitDirs(root: string, dotGit: string): string[] {
  try {
    const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
    if (!pointer) return [];
    const own = resolve(root, pointer);
    const dirs = [own];
    const commonFile = join(own, 'commondir');
    if (existsSync(commonFile)) dirs.push(resolve(own, readFileSync(commonFile, 'utf8').trim()));
    return dirs;
  } catch {
    return [];
  }
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
  const protectedPaths: string[] = [];
  if (input.mode === 'workspace-write') {
    const tree = workTree(cwd);
    const gitDirs = tree.gitDirs.map((d) => real(d)).filter((d): d is string => d !== undefined);
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
    for (const path of outermost([tree.root, ...gitDirs, ...extra.filter((p): p is string => p !== undefined)])) writable.push(path);
    for (const gitDir of gitDirs) {
      // In a linked worktree the repository's hooks and config sit in the common dir.
      for (const name of ['hooks', 'config']) {
        const path = join(gitDir, name);
        if (existsSync(path)) protectedPaths.push(path);
      }
    }
  }
  const hiddenCandidates = [
    ...HIDDEN_HOME_PATHS.map((p) => join(input.home, p)),
    ...HIDDEN_SYSTEM_PATHS,
    ...(input.runtimeDir ? [input.runtimeDir] : []),
    ...input.programDirs,
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
  const visible = input.mode === 'read-only' ? [workTree(cwd).root] : [];
  if (input.mode === 'read-only' && insideHidden(cwd)) revealed.push({ path: visible[0]!, writable: false });
  // A protected path inside a hidden folder stays hidden unless its folder was shown again.
  const shown = (path: string) => !insideHidden(path) || revealed.some((r) => isInside(path, r.path));
  return { mode: input.mode, network: input.network, cwd, visible, writable, protected: protectedPaths.filter(shown), hidden, revealed };
}
