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
 * - What each file defines is cached by file and reused while the file has the same identity
 *   (inode, size, change time): the hot path costs a `stat` per file, no git process, and a new
 *   linked worktree of a repository already read costs none either.
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

/** What one configuration file defines: its driver keys, and the files it includes (resolved). */
interface FileScan {
  /** The file's identity when it was read (see identity()). */
  id: string;
  drivers: string[];
  includes: string[];
}

/** By file: a linked worktree shares its repository's `config`, so a new worktree reads nothing again. */
const scans = new Map<string, FileScan>();

export async function driverOverrides(dirs: GitDirs, listConfig: ListConfig): Promise<ConfigEntry[]> {
  const roots = [...new Set([join(dirs.commonDir, 'config'), join(dirs.commonDir, 'config.worktree'), join(dirs.gitDir, 'config.worktree')])];
  const overrides: ConfigEntry[] = [];
  const seen = new Set<string>();
  for (const root of roots) await scanFile(root, 0, overrides, seen, listConfig);
  return overrides;
}

async function scanFile(file: string, depth: number, overrides: ConfigEntry[], seen: Set<string>, listConfig: ListConfig): Promise<void> {
  if (seen.has(file) || depth > MAX_INCLUDE_DEPTH) return;
  seen.add(file);
  const id = await identity(file);
  if (id === 'absent') {
    scans.delete(file);
    return;
  }
  let scan = scans.get(file);
  if (scan?.id !== id) {
    scan = { id, drivers: [], includes: [] };
    for (const record of (await listConfig(file)).split('\0')) {
      if (!record) continue;
      const newline = record.indexOf('\n');
      const name = newline === -1 ? record : record.slice(0, newline);
      const value = newline === -1 ? '' : record.slice(newline + 1);
      if (DRIVER_KEY.test(name)) scan.drivers.push(name);
      else if (INCLUDE_KEY.test(name) && value) scan.includes.push(includePath(file, value));
    }
    scans.set(file, scan);
  }
  for (const name of scan.drivers) overrides.push([name, neutral(name)]);
  for (const included of scan.includes) await scanFile(included, depth + 1, overrides, seen, listConfig);
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
