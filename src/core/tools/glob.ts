// `glob`: find files by name pattern. Newest first, because the files a model is looking
// for are usually the ones being worked on; .gitignore'd files are hidden like in list/grep.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { z } from 'zod';
import { IgnoreFilter } from './ignore-files.js';
import { displayPath, resolveForTool } from './paths.js';
import { defineTool, ToolError } from './types.js';

export const MAX_GLOB_RESULTS = 100;

const parameters = z.object({
  pattern: z.string().min(1).describe('Glob pattern to match file paths against, e.g. "**/*.ts" or "src/**/test_*.py".'),
  path: z
    .string()
    .optional()
    .describe('Directory to search in, absolute or relative to the working directory (default: the working directory).'),
});

/** Absolute patterns are split into a search root (the part without wildcards) and the rest. */
function splitAbsolutePattern(pattern: string): { root: string; pattern: string } {
  const parts = pattern.split('/');
  const fixed: string[] = [];
  while (parts.length > 1 && !/[*?[\]{}()!]/.test(parts[0]!)) fixed.push(parts.shift()!);
  return { root: fixed.join('/') || '/', pattern: parts.join('/') };
}

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
    let pattern = args.pattern;
    let rootInput = args.path;
    if (path.isAbsolute(pattern)) {
      const split = splitAbsolutePattern(pattern);
      rootInput = split.root;
      pattern = split.pattern;
    }
    const root = await resolveForTool(ctx, rootInput);
    const info = await stat(root).catch(() => undefined);
    if (!info?.isDirectory()) throw new ToolError(`Directory not found: ${displayPath(ctx.cwd, root)}.`);

    const found = await fg(pattern, {
      cwd: root,
      absolute: true,
      dot: true,
      onlyFiles: true,
      followSymbolicLinks: false,
      suppressErrors: true,
      stats: true,
      ignore: ['**/.git', '**/.git/**', '**/node_modules', '**/node_modules/**'],
    });
    ctx.signal.throwIfAborted();
    const filter = new IgnoreFilter(root);
    const files = found
      .filter((entry) => !filter.isIgnored(path.normalize(entry.path), false))
      .map((entry) => ({ file: path.normalize(entry.path), mtime: entry.stats?.mtimeMs ?? 0 }))
      .sort((a, b) => b.mtime - a.mtime || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));

    if (files.length === 0) return { output: 'No files found.', metadata: { count: 0 } };
    const shown = files.slice(0, MAX_GLOB_RESULTS).map((f) => displayPath(ctx.cwd, f.file));
    let output = shown.join('\n');
    if (files.length > MAX_GLOB_RESULTS) {
      output += `\n\n(Showing the ${MAX_GLOB_RESULTS} most recently modified of ${files.length} matches. Use a more specific pattern or path to narrow the results.)`;
    }
    return { output, metadata: { count: files.length, truncated: files.length > MAX_GLOB_RESULTS } };
  },
});
