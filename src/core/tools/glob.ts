// `glob`: find files by name pattern. Newest first, because the files a model is looking
// for are usually the ones being worked on; .gitignore'd files are hidden like in list/grep.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type fg from 'fast-glob';
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { IgnoreFilter, MAX_WALK_DEPTH } from './ignore-files.js';
import { displayPath, ensureAccess, isInside, realTarget, resolvePath } from './paths.js';
import { checkPattern } from './pattern-limits.js';
import { kindOf } from './regular-file.js';
import { defineTool, ToolError } from './types.js';

export const MAX_GLOB_RESULTS = 100;

const parameters = lazySchema(() =>
  z.object({
    pattern: z.string().min(1).describe('Glob pattern to match file paths against, e.g. "**/*.ts" or "src/**/test_*.py".'),
    path: z
      .string()
      .optional()
      .describe('Directory to search in, absolute or relative to the working directory (default: the working directory).'),
  }),
);

/** Characters that make a pattern segment a wildcard rather than a plain name. */
const MAGIC = /[*?[\]{}()!+@\\]/;

/**
 * The leading wildcard-free segments of a pattern become the search root, so that
 * "../../etc/host*" or "/etc/host*" searches /etc itself, and that folder goes through the
 * same outside-the-project check as a `path` argument (fixed folders further in, such as
 * brace alternatives, are checked in execute). The last segment always stays in the
 * pattern, since it names the files to match.
 */
function splitPattern(pattern: string): { base: string; rest: string } {
  const parts = pattern.split('/');
  const fixed: string[] = [];
  while (parts.length > 1 && !MAGIC.test(parts[0]!)) fixed.push(parts.shift()!);
  const base = fixed.join('/');
  return { base: base === '' && fixed.length ? '/' : base, rest: parts.join('/') };
}

/** `..` after a wildcard (or inside braces) would climb out of the root unchecked. */
const PARENT_SEGMENT = /(^|[/{,])\.\.($|[/},])/;

export const globTool = defineTool({
  name: 'glob',
  description: `Find files whose paths match a glob pattern, such as "**/*.tsx" or "src/**/config.*".

- Searches under path (default: the working directory); patterns are relative to it.
- Returns matching file paths relative to the working directory, most recently modified first, at most ${MAX_GLOB_RESULTS}.
- Respects .gitignore and skips .git and node_modules.
- Use this to locate files by name; use grep to search inside files. When an open-ended search may take several rounds, consider delegating it to a sub-agent.`,
  parameters,
  readOnly: true,
  async execute(args, ctx) {
    // fast-glob matches with backtracking regexes and expands braces up front: both are
    // bounded here, so a pattern cannot stall the walk (or the program with it).
    checkPattern(args.pattern, 'pattern');
    const { base, rest: pattern } = splitPattern(args.pattern);
    if (PARENT_SEGMENT.test(pattern)) {
      throw new ToolError('".." may only come before the first wildcard of a pattern; to search a parent folder, pass it as path.');
    }
    const start = resolvePath(ctx.cwd, args.path?.trim() ? args.path : '.');
    const root = resolvePath(start, base || '.');
    await ensureAccess(ctx, root);
    const info = await stat(root).catch(() => undefined);
    if (!info?.isDirectory()) {
      // A missing folder named in the pattern is just a pattern that matches nothing.
      if (base) return { output: 'No files found.', metadata: { count: 0 } };
      if (info) throw new ToolError(`${displayPath(ctx.cwd, root)} is ${kindOf(info)}, not a directory; give a folder as path.`);
      throw new ToolError(`Directory not found: ${displayPath(ctx.cwd, root)}.`);
    }
    // "src/" names a folder, and glob lists only files.
    if (!pattern) return { output: 'No files found.', metadata: { count: 0 } };

    const options: fg.Options & { stats: true } = {
      cwd: root,
      absolute: true,
      dot: true,
      onlyFiles: true,
      followSymbolicLinks: false,
      deep: MAX_WALK_DEPTH,
      suppressErrors: true,
      stats: true,
      ignore: ['**/.git', '**/.git/**', '**/node_modules', '**/node_modules/**'],
    };
    // fast-glob opens each fixed folder of the pattern directly, following a symlink there
    // (followSymbolicLinks only governs deeper levels), and braces can name several, as in
    // "{link,src}/*". Any that leads out of the already checked root is checked too.
    const realRoot = await realTarget(root);
    // Loaded on first use: its modules (and the CPU count it reads) cost every start otherwise.
    const { default: glob } = await import('fast-glob');
    for (const task of glob.generateTasks(pattern, options)) {
      const folder = path.resolve(root, task.base);
      if (!isInside(realRoot, await realTarget(folder))) await ensureAccess(ctx, folder);
    }
    const found = await glob(pattern, options);
    ctx.signal.throwIfAborted();
    // .gitignore rules apply from where the search started, as before the pattern's fixed
    // prefix became the root: "dist/*.js" stays hidden like "**/*.js" would.
    const notices = new Set<string>();
    const filter = new IgnoreFilter(isInside(start, root) ? start : root, (line) => notices.add(line));
    const files = found
      // Nothing outside the checked root, whatever fast-glob made of the pattern.
      // Regular files only (fast-glob's onlyFiles already leaves out FIFOs, sockets and devices).
      .filter((entry) => entry.stats?.isFile() !== false)
      .filter((entry) => isInside(root, entry.path) && !filter.isIgnored(path.normalize(entry.path), false))
      .map((entry) => ({ file: path.normalize(entry.path), mtime: entry.stats?.mtimeMs ?? 0 }))
      .sort((a, b) => b.mtime - a.mtime || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));

    const notes = notices.size > 0 ? `\n\n${[...notices].join('\n')}` : '';
    if (files.length === 0) return { output: `No files found.${notes}`, metadata: { count: 0 } };
    const shown = files.slice(0, MAX_GLOB_RESULTS).map((f) => displayPath(ctx.cwd, f.file));
    let output = shown.join('\n');
    if (files.length > MAX_GLOB_RESULTS) {
      output += `\n\n(Showing the ${MAX_GLOB_RESULTS} most recently modified of ${files.length} matches. Use a more specific pattern or path to narrow the results.)`;
    }
    output += notes;
    return { output, metadata: { count: files.length, truncated: files.length > MAX_GLOB_RESULTS } };
  },
});
