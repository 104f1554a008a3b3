// .gitignore handling shared by list, glob and the JS grep fallback, so that all three hide
// the same files ripgrep would. Rules come from every .gitignore between the repository
// root (or the filesystem root outside a repository, like `rg --no-require-git`) and the
// file, with deeper files overriding shallower ones as git does. `.git` and `node_modules`
// are always skipped: they are never what the model is looking for and can be huge.
import { existsSync, type Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import ignore from 'ignore';
import { readRegularFileSync } from './regular-file.js';

export const ALWAYS_SKIPPED = new Set(['.git', 'node_modules']);

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

/** Nearest ancestor holding `.git` (a directory, or a file in worktrees and submodules). */
export function findRepoRoot(start: string): string | undefined {
  let dir = path.resolve(start);
  for (;;) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export class IgnoreFilter {
  /** Highest directory whose .gitignore applies. */
  private top: string;
  private readonly root: string;
  private readonly rules = new Map<string, ignore.Ignore | null>();
  private readonly dirVerdicts = new Map<string, boolean>();

  constructor(searchRoot: string) {
    this.root = path.resolve(searchRoot);
    this.top = findRepoRoot(this.root) ?? path.parse(this.root).root;
    // Searching inside an ignored directory on purpose (say `dist/`) should show its
    // contents, as rg does for explicit paths; only the directory's own rules apply then.
    if (this.root !== this.top && this.matches(this.root, true)) this.top = this.root;
  }

  /** True when git would ignore the path (or a directory between the search root and it). */
  isIgnored(absolute: string, isDir: boolean): boolean {
    const rel = path.relative(this.root, absolute);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return false;
    const segments = rel.split(path.sep);
    if (segments.some((s) => ALWAYS_SKIPPED.has(s))) return true;
    let dir = this.root;
    for (const segment of segments.slice(0, -1)) {
      dir = path.join(dir, segment);
      if (this.dirIgnored(dir)) return true;
    }
    return this.matches(absolute, isDir);
  }

  private dirIgnored(dir: string): boolean {
    let verdict = this.dirVerdicts.get(dir);
    if (verdict === undefined) {
      verdict = this.matches(dir, true);
      this.dirVerdicts.set(dir, verdict);
    }
    return verdict;
  }

  /** The deepest .gitignore with an opinion on the path decides. */
  private matches(absolute: string, isDir: boolean): boolean {
    let dir = path.dirname(absolute);
    for (;;) {
      const rules = this.rulesOf(dir);
      if (rules) {
        const rel = toPosix(path.relative(dir, absolute)) + (isDir ? '/' : '');
        const result = rules.test(rel);
        if (result.unignored) return false;
        if (result.ignored) return true;
      }
      if (dir === this.top) return false;
      const parent = path.dirname(dir);
      if (parent === dir) return false;
      dir = parent;
    }
  }

  private rulesOf(dir: string): ignore.Ignore | null {
    let rules = this.rules.get(dir);
    if (rules === undefined) {
      // Missing, unreadable or not a regular file (a FIFO would block this synchronous
      // read, and with it the whole program): no rules from this directory.
      const text = readRegularFileSync(path.join(dir, '.gitignore'));
      rules = text === undefined ? null : ignore().add(text);
      this.rules.set(dir, rules);
    }
    return rules;
  }
}

export interface WalkEntry {
  absolute: string;
  /** Relative to the walk root, forward slashes. */
  rel: string;
  isDir: boolean;
  isSymlink: boolean;
  depth: number;
}

export interface WalkOptions {
  signal?: AbortSignal;
  /** Extra exclusions (gitignore syntax) relative to the walk root, e.g. the list tool's `ignore`. */
  exclude?: ignore.Ignore;
}

type EntryKind = 'dir' | 'file' | 'symlink' | 'special' | 'gone';

/** What a directory entry is, when readdir says; `special` covers FIFOs, sockets and devices. */
function direntKind(entry: Dirent): EntryKind | undefined {
  if (entry.isDirectory()) return 'dir';
  if (entry.isFile()) return 'file';
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice()) return 'special';
  return undefined;
}

/** Some file systems do not report types in readdir: ask lstat (never opens the entry). */
async function lstatKind(absolute: string): Promise<EntryKind> {
  const info = await lstat(absolute).catch(() => undefined);
  if (!info) return 'gone';
  if (info.isDirectory()) return 'dir';
  if (info.isFile()) return 'file';
  if (info.isSymbolicLink()) return 'symlink';
  return 'special';
}

/**
 * Breadth-first walk (shallow entries first, so a capped listing still shows the overall
 * shape), names sorted within each directory. Symlinks are reported but never followed.
 * FIFOs, sockets and devices are left out: no tool can open them safely, and listing a
 * FIFO invites a read that would block.
 */
export async function* walk(root: string, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const filter = new IgnoreFilter(root);
  const queue: { dir: string; depth: number }[] = [{ dir: path.resolve(root), depth: 0 }];
  while (queue.length) {
    options.signal?.throwIfAborted();
    const { dir, depth } = queue.shift()!;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const absolute = path.join(dir, entry.name);
      const kind = direntKind(entry) ?? (await lstatKind(absolute));
      if (kind === 'special' || kind === 'gone') continue;
      const isDir = kind === 'dir';
      if (isDir && ALWAYS_SKIPPED.has(entry.name)) continue;
      const rel = toPosix(path.relative(root, absolute));
      if (options.exclude?.ignores(isDir ? `${rel}/` : rel)) continue;
      if (filter.isIgnored(absolute, isDir)) continue;
      const item: WalkEntry = { absolute, rel, isDir, isSymlink: kind === 'symlink', depth: depth + 1 };
      yield item;
      if (isDir) queue.push({ dir: absolute, depth: depth + 1 });
    }
  }
}
