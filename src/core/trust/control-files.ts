// Trust pinned to content (DESIGN §15, §19): the one maintained list of a project's control
// files — every file the loaders read from the project at start — and their fingerprint.
//
// Contract:
// - `controlFingerprint(root, cwd)` reads the control files of each project folder the loaders
//   use from `cwd` (the root down to `cwd`, as config/load.ts's projectConfigDirs), below the
//   project root `root`, and returns one fingerprint string per file, keyed by folder ("." for
//   the root) and by path relative to the root ("/" separators). Nothing here throws.
// - `compareControlFiles(pinned, current)` names what was added, changed, removed, or cannot be
//   verified since the pins were taken. A folder the pins never covered counts all its control
//   files as added: trust recorded from the root has not seen `packages/app/.opencoderc.json`.
//
// What is read follows the loaders: symlinks are followed (a symlinked `.opencode/agents`
// loads), but only regular files are opened, with O_NONBLOCK and a check of the opened
// descriptor, so a FIFO or device never blocks start; those are recorded by kind. Folders
// reached twice (a symlink loop) are recorded, not walked again.
//
// Bounded: at most MAX_ENTRIES files and folders are visited, MAX_DEPTH folders deep, and
// only MAX_HASHED_BYTES of content is hashed, MAX_FILE_HASH_BYTES per file (the loaders read
// nothing over 1 MB anyway). A file past the byte limits gets a stat fingerprint instead
// (size, inode, change time in nanoseconds: the change time cannot be set by a process, so a
// rewrite is still seen without reading the file). A folder cut by the entry or depth limit
// is recorded as `unverifiable`: what lies past the limit cannot be known, so such a project
// counts as changed at every start (documented in the README: trim the folder, or `run --trust`).
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, opendirSync, openSync, readSync, statSync, type BigIntStats, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { projectConfigDirs } from '../config/load.js';
import { findProject } from '../project.js';

/** Read in every project folder from the root down to the working directory (files, or whole folders). */
export const FOLDER_CONTROL_PATHS: readonly string[] = [
  // config/load.ts: the project configuration, merged root first.
  '.opencoderc.json',
  // agents (`agents/`, `agent/`), commands (`commands/`, `command/`), skills; all of it, for whatever reads it next.
  '.opencode',
  // Claude Code's sub-agents, commands and skills (with the scripts skills tell the model to run).
  '.claude/agents',
  '.claude/commands',
  '.claude/skills',
];

/** Read at the project root only. */
export const ROOT_CONTROL_PATHS: readonly string[] = [
  // claude-settings/ and hooks/sources.ts: permissions, env and hooks (commands run on the host).
  '.claude/settings.json',
  '.claude/settings.local.json',
  // mcp/config.ts: servers to start.
  '.mcp.json',
  // agent/system-prompt.ts: the project's instructions (AGENTS.md preferred, else CLAUDE.md).
  'AGENTS.md',
  'CLAUDE.md',
];

/**
 * Left out of the walk of `.opencode/`: OpenCode installs its plugins' npm dependencies in
 * `.opencode/node_modules`; this program reads nothing there, and thousands of files would
 * make every such project unverifiable.
 */
const SKIPPED_IN_OPENCODE = 'node_modules';

export const MAX_ENTRIES = 2000;
export const MAX_DEPTH = 16;
export const MAX_FILE_HASH_BYTES = 1024 * 1024;
export const MAX_HASHED_BYTES = 32 * 1024 * 1024;

/** Folder ("." for the root) → path relative to the root → fingerprint. */
export type ControlPins = Record<string, Record<string, string>>;

export interface ControlFileChange {
  /** Relative to the project root, "/" separators. */
  path: string;
  change: 'added' | 'changed' | 'removed' | 'unverifiable';
}

export const UNVERIFIABLE = 'unverifiable';

// O_NONBLOCK: a FIFO opens at once instead of waiting for a writer; O_NOCTTY: a terminal never becomes ours.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** The folders (relative to the project root, "." for it) whose control files apply when working in `cwd`. */
export function controlFolders(cwd: string): string[] {
  const root = findProject(cwd).root;
  return projectConfigDirs(cwd).map((dir) => toKey(relative(root, dir)) || '.');
}

/** The fingerprint of the control files that apply in `cwd`, read below `root` (the project root, any spelling). */
export function controlFingerprint(root: string, cwd: string): ControlPins {
  const walk = new Walk();
  const pins: ControlPins = {};
  for (const folder of controlFolders(cwd)) {
    const files: Record<string, string> = {};
    const paths = folder === '.' ? [...FOLDER_CONTROL_PATHS, ...ROOT_CONTROL_PATHS] : FOLDER_CONTROL_PATHS;
    for (const path of paths) {
      const rel = folder === '.' ? path : `${folder}/${path}`;
      walk.entry(join(root, ...rel.split('/')), rel, 0, files);
    }
    pins[folder] = files;
  }
  return pins;
}

/** What differs between the pins taken at trust time and the files now, sorted by path. */
export function compareControlFiles(pinned: ControlPins, current: ControlPins): ControlFileChange[] {
  const changes: ControlFileChange[] = [];
  for (const [folder, files] of Object.entries(current)) {
    const before = pinned[folder] ?? {};
    for (const [path, print] of Object.entries(files)) {
      if (print.startsWith(UNVERIFIABLE)) changes.push({ path, change: 'unverifiable' });
      else if (!Object.hasOwn(before, path)) changes.push({ path, change: 'added' });
      else if (before[path] !== print) changes.push({ path, change: 'changed' });
    }
    for (const path of Object.keys(before)) if (!Object.hasOwn(files, path)) changes.push({ path, change: 'removed' });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** `.opencoderc.json (changed)`: how the notice and the trust dialog name a change. */
export function describeChange(change: ControlFileChange): string {
  return `${change.path} (${change.change === 'unverifiable' ? `too many files to verify: over ${MAX_ENTRIES}, or ${MAX_DEPTH} folders deep` : change.change})`;
}

function toKey(rel: string): string {
  return rel.split(sep).join('/');
}

/** One walk's budget and the folders it has been in, shared by every control path of one fingerprint. */
class Walk {
  private entries = 0;
  private hashed = 0;
  private readonly seen = new Set<string>();
  private readonly buffer = Buffer.alloc(64 * 1024);

  entry(abs: string, rel: string, depth: number, out: Record<string, string>): void {
    let info: Stats;
    try {
      info = lstatSync(abs);
      // The loaders follow symlinks: so does the fingerprint (a dangling one counts as what it is).
      if (info.isSymbolicLink()) info = statSync(abs);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        // A dangling symlink is a file the loaders would find missing, but it is there to be changed.
        if (isSymlink(abs)) out[rel] = 'symlink:dangling';
        return;
      }
      out[rel] = `unreadable:${code ?? 'error'}`;
      return;
    }
    if (++this.entries > MAX_ENTRIES) {
      out[rel] = `${UNVERIFIABLE}:entries`;
      return;
    }
    if (info.isDirectory()) this.folder(abs, rel, depth, info, out);
    else if (info.isFile()) out[rel] = this.file(abs);
    else out[rel] = `special:${specialKind(info)}`;
  }

  private folder(abs: string, rel: string, depth: number, info: Stats, out: Record<string, string>): void {
    const id = `${info.dev}:${info.ino}`;
    if (this.seen.has(id)) {
      out[`${rel}/`] = 'folder:seen';
      return;
    }
    this.seen.add(id);
    if (depth >= MAX_DEPTH) {
      out[`${rel}/`] = `${UNVERIFIABLE}:depth`;
      return;
    }
    const names: string[] = [];
    try {
      // Read name by name: a folder of a million files is cut at the limit, not listed whole.
      const dir = opendirSync(abs);
      try {
        for (let item = dir.readSync(); item; item = dir.readSync()) {
          names.push(item.name);
          if (this.entries + names.length > MAX_ENTRIES + 1) {
            out[`${rel}/`] = `${UNVERIFIABLE}:entries`;
            return;
          }
        }
      } finally {
        dir.closeSync();
      }
    } catch (err) {
      out[`${rel}/`] = `unreadable:${(err as NodeJS.ErrnoException).code ?? 'error'}`;
      return;
    }
    // An empty folder loads nothing and is not recorded: its files are, as they appear.
    const skip = depth === 0 && rel.split('/').at(-1) === '.opencode' ? SKIPPED_IN_OPENCODE : undefined;
    for (const name of names.sort()) {
      if (name === skip) continue;
      if (this.entries >= MAX_ENTRIES) {
        out[`${rel}/`] = `${UNVERIFIABLE}:entries`;
        return;
      }
      this.entry(join(abs, name), `${rel}/${name}`, depth + 1, out);
    }
  }

  /** `sha256:<hex>` of a regular file, or `stat:…` past the byte limits; opened so that nothing can block. */
  private file(abs: string): string {
    let fd: number;
    try {
      fd = openSync(abs, READ_FLAGS);
    } catch (err) {
      return `unreadable:${(err as NodeJS.ErrnoException).code ?? 'error'}`;
    }
    try {
      const info: BigIntStats = fstatSync(fd, { bigint: true });
      // Swapped for something else after the stat: record what it is now, never read it.
      if (!info.isFile()) return `special:${info.isDirectory() ? 'directory' : 'other'}`;
      const size = Number(info.size);
      if (size > MAX_FILE_HASH_BYTES || this.hashed + size > MAX_HASHED_BYTES) {
        return `stat:${info.size}:${info.ino}:${info.ctimeNs}`;
      }
      const hash = createHash('sha256');
      let position = 0;
      for (;;) {
        const n = readSync(fd, this.buffer, 0, this.buffer.length, position);
        if (n === 0) break;
        hash.update(this.buffer.subarray(0, n));
        position += n;
        // A file that grows while read is cut at the limit: its content was not what was measured.
        if (position > MAX_FILE_HASH_BYTES) return `stat:${info.size}:${info.ino}:${info.ctimeNs}`;
      }
      this.hashed += position;
      return `sha256:${hash.digest('hex')}`;
    } catch (err) {
      return `unreadable:${(err as NodeJS.ErrnoException).code ?? 'error'}`;
    } finally {
      closeSync(fd);
    }
  }
}

function isSymlink(abs: string): boolean {
  try {
    return lstatSync(abs).isSymbolicLink();
  } catch {
    return false;
  }
}

function specialKind(info: Stats): string {
  if (info.isFIFO()) return 'fifo';
  if (info.isSocket()) return 'socket';
  if (info.isCharacterDevice()) return 'character-device';
  if (info.isBlockDevice()) return 'block-device';
  return 'other';
}
