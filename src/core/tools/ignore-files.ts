// .gitignore handling shared by list, glob and the JS grep fallback, so that all three hide
// the same files ripgrep would. Rules come from every .gitignore between the repository
// root (or the filesystem root outside a repository, like `rg --no-require-git`) and the
// file, with deeper files overriding shallower ones as git does. `.git` and `node_modules`
// are always skipped: they are never what the model is looking for and can be huge.
//
// A cloned repository is not trusted to be kind: `ignore` turns each `**` into a repeated
// group, so a line like `**/a/**/a/**/a/**/a/**/b` backtracks for minutes over a deep folder
// and, being synchronous, would freeze the whole program. So a line with more than
// MAX_GLOBSTARS `**` is skipped (named in a notice), walks go at most MAX_WALK_DEPTH levels
// down (named too), and a walk that still takes longer than WALK_TIME_LIMIT_MS stops with a
// ToolError saying so.
import { existsSync, type Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import ignore from 'ignore';
import { globstarCount, MAX_GLOBSTARS } from './pattern-limits.js';
import { readRegularFileSync } from './regular-file.js';
import { ToolError } from './types.js';

export const ALWAYS_SKIPPED = new Set(['.git', 'node_modules']);

/** Folders deeper than this below the walk root are not entered (real projects stay far above). */
export const MAX_WALK_DEPTH = 40;
/** A walk that takes longer stops with an error instead of holding the tool (and the user) hostage. */
export const WALK_TIME_LIMIT_MS = 30_000;

/** Receives one line per rule or folder left out, for the tool's output. */
export type NoticeSink = (line: string) => void;

/** A .gitignore's rules without its too-costly lines, each of which is reported. */
function safeRules(text: string, file: string, notice: NoticeSink | undefined): ignore.Ignore {
  const lines = text.split(/\r?\n/);
  const kept = lines.map((line, index) => {
    if (globstarCount(line) <= MAX_GLOBSTARS) return line;
    const shown = line.length > 60 ? `${line.slice(0, 60)}…` : line;
    notice?.(`(Line ${index + 1} of ${file} was not applied: ${JSON.stringify(shown)} has more than ${MAX_GLOBSTARS} "**", which makes matching far too slow.)`);
    return '';
  });
  return ignore().add(kept);
}

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

  constructor(
    searchRoot: string,
    private readonly notice?: NoticeSink,
  ) {
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

  /** A file as the notice names it: relative to the search root when inside it. */
  private shown(file: string): string {
    const rel = path.relative(this.root, file);
    return rel.startsWith('..') || path.isAbsolute(rel) ? file : toPosix(rel);
  }

  private rulesOf(dir: string): ignore.Ignore | null {
    let rules = this.rules.get(dir);
    if (rules === undefined) {
      // Missing, unreadable or not a regular file (a FIFO would block this synchronous
      // read, and with it the whole program): no rules from this directory.
      const file = path.join(dir, '.gitignore');
      const text = readRegularFileSync(file);
      rules = text === undefined ? null : safeRules(text, this.shown(file), this.notice);
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
  /** Told of .gitignore lines skipped and folders too deep to enter, once each. */
  onNotice?: NoticeSink;
  /** WALK_TIME_LIMIT_MS unless given. */
  timeLimitMs?: number;
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
  const filter = new IgnoreFilter(root, options.onNotice);
  const queue: { dir: string; depth: number }[] = [{ dir: path.resolve(root), depth: 0 }];
  const deadline = performance.now() + (options.timeLimitMs ?? WALK_TIME_LIMIT_MS);
  let tooDeep = false;
  const checkTime = (): void => {
    if (performance.now() <= deadline) return;
    const seconds = Math.round((options.timeLimitMs ?? WALK_TIME_LIMIT_MS) / 100) / 10;
    throw new ToolError(`Walking ${root} took longer than ${seconds} s (a very large tree, or costly .gitignore rules) and was stopped; narrow the search to a subfolder.`);
  };
  while (queue.length) {
    options.signal?.throwIfAborted();
    checkTime();
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
      checkTime();
      const item: WalkEntry = { absolute, rel, isDir, isSymlink: kind === 'symlink', depth: depth + 1 };
      yield item;
      if (!isDir) continue;
      if (depth + 1 < MAX_WALK_DEPTH) queue.push({ dir: absolute, depth: depth + 1 });
      else if (!tooDeep) {
        tooDeep = true;
        options.onNotice?.(`(Folders more than ${MAX_WALK_DEPTH} levels deep were not entered, starting with ${rel}/.)`);
      }
    }
  }
}
