/*
 * The commands a repository's own configuration defines for git to run, switched off for the
 * program's git calls (DESIGN §19).
 *
 * Why: a repository's `config` (and `config.worktree`, and any file they `include` or
 * `includeIf`) may define filter drivers (`filter.<name>.clean/smudge/process`), merge drivers
 * (`merge.<name>.driver`) and diff drivers (`diff.<name>.command/textconv`) that
 * `.gitattributes` then attaches to paths; git runs those commands from `add`, `hash-object`,
 * `cat-file --filters`, `merge-tree` and `diff`. Their names are free, so a fixed list of
 * overrides cannot catch them: they are read from the files first.
 *
 * Contract
 * - `driverOverrides(dirs, listConfig)` answers the config entries that neutralise every such
 *   driver defined in the repository's files: an empty command for filters and diff drivers
 *   (git then runs no filter: verified with git 2.39), `required = false` for filters, and
 *   `exit 1` for merge drivers (a shell builtin: the path counts as a conflict and the work
 *   stays on its branch instead of being merged by an unknown command).
 * - The files are read with `git config --file <f> --list -z` (which executes nothing), one
 *   process per file, following `include.path` and every `includeIf.*.path` whatever its
 *   condition (resolved as git does: `~/` from HOME, relative paths from the including file).
 * - The answer is cached per repository and reused while every file read (and every include
 *   that was missing) has the same identity (inode, size, change time): the hot path costs a few
 *   `stat`s, no git process.
 * - Drivers defined only in the user's own global or system configuration are the user's
 *   choice (git-lfs, for one) and are left alone, unless the repository redefines the same name.
 */
import { homedir } from 'node:os';
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { GitDirs } from './git-repository.js';

export type ConfigEntry = readonly [key: string, value: string];

/** Lists one config file's entries, `key\nvalue\0` each (git config -z), without following includes. */
export type ListConfig = (file: string) => Promise<string>;

/** Includes followed at most this deep (git's own limit is 10). */
const MAX_INCLUDE_DEPTH = 10;

const DRIVER_KEY = /^(filter\..+\.(clean|smudge|process|required)|merge\..+\.driver|diff\..+\.(command|textconv))$/;
const INCLUDE_KEY = /^(include\.path|includeif\..+\.path)$/;

interface Scan {
  /** Identity of every file read or looked for, `absent` for a missing one. */
  files: Map<string, string>;
  overrides: ConfigEntry[];
}

const cache = new Map<string, Scan>();

export async function driverOverrides(dirs: GitDirs, listConfig: ListConfig): Promise<ConfigEntry[]> {
  const roots = [...new Set([join(dirs.commonDir, 'config'), join(dirs.commonDir, 'config.worktree'), join(dirs.gitDir, 'config.worktree')])];
  const key = roots.join('\0');
  const cached = cache.get(key);
  if (cached && (await unchanged(cached.files))) return cached.overrides;
  const scan: Scan = { files: new Map(), overrides: [] };
  const seen = new Set<string>();
  for (const root of roots) await scanFile(root, 0, scan, seen, listConfig);
  cache.set(key, scan);
  return scan.overrides;
}

async function scanFile(file: string, depth: number, scan: Scan, seen: Set<string>, listConfig: ListConfig): Promise<void> {
  if (seen.has(file) || depth > MAX_INCLUDE_DEPTH) return;
  seen.add(file);
  const id = await identity(file);
  scan.files.set(file, id);
  if (id === 'absent') return;
  const listing = await listConfig(file);
  for (const record of listing.split('\0')) {
    if (!record) continue;
    const newline = record.indexOf('\n');
    const name = newline === -1 ? record : record.slice(0, newline);
    const value = newline === -1 ? '' : record.slice(newline + 1);
    if (DRIVER_KEY.test(name)) scan.overrides.push([name, neutral(name)]);
    else if (INCLUDE_KEY.test(name) && value) await scanFile(includePath(file, value), depth + 1, scan, seen, listConfig);
  }
}

/** The value that switches a driver off. */
function neutral(name: string): string {
  if (name.startsWith('merge.')) return 'exit 1';
  if (name.endsWith('.required')) return 'false';
  return '';
}

function includePath(from: string, value: string): string {
  if (value.startsWith('~/')) return join(homedir(), value.slice(2));
  return isAbsolute(value) ? value : resolve(dirname(from), value);
}

async function identity(file: string): Promise<string> {
  const st = await stat(file).catch(() => undefined);
  return st ? `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : 'absent';
}

async function unchanged(files: ReadonlyMap<string, string>): Promise<boolean> {
  for (const [file, id] of files) if ((await identity(file)) !== id) return false;
  return true;
}
