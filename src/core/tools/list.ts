// `list`: a directory tree for orientation. Walks breadth-first so that when the cap cuts
// in, the model still sees the top levels rather than one deep corner.
import { stat } from 'node:fs/promises';
import ignore from 'ignore';
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { walk, type WalkEntry } from './ignore-files.js';
import { displayPath, resolveForTool } from './paths.js';
import { checkPattern } from './pattern-limits.js';
import { isSpecial, kindOf } from './regular-file.js';
import { defineTool, ToolError } from './types.js';

export const MAX_LIST_ENTRIES = 1000;

/** Case-insensitive first, as people expect to scan a listing. */
function compareNames(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x !== y) return x < y ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

const parameters = lazySchema(() =>
  z.object({
    path: z
      .string()
      .optional()
      .describe('Directory to list, absolute or relative to the working directory (default: the working directory).'),
    ignore: z
      .array(z.string())
      .optional()
      .describe('Extra glob patterns (gitignore syntax, relative to path) to leave out, e.g. ["dist/", "*.log"].'),
  }),
);

export const listTool = defineTool({
  name: 'list',
  description: `List the files and directories under a path as an indented tree (directories end with "/").

- Respects .gitignore and always skips .git and node_modules; pass ignore patterns to leave out more.
- Shows at most ${MAX_LIST_ENTRIES} entries, shallow levels first. For large trees list a subdirectory instead.
- Prefer glob when you know the file name pattern you want, and grep to search file contents.`,
  parameters,
  readOnly: true,
  async execute(args, ctx) {
    const root = await resolveForTool(ctx, args.path);
    const info = await stat(root).catch(() => undefined);
    if (!info) throw new ToolError(`Directory not found: ${displayPath(ctx.cwd, root)}.`);
    if (isSpecial(info)) throw new ToolError(`${displayPath(ctx.cwd, root)} is ${kindOf(info)}, not a directory.`);
    if (!info.isDirectory()) throw new ToolError(`${displayPath(ctx.cwd, root)} is a file, not a directory. Use read to see it.`);

    for (const pattern of args.ignore ?? []) checkPattern(pattern, 'ignore pattern');
    const exclude = args.ignore?.length ? ignore().add(args.ignore) : undefined;
    const entries: WalkEntry[] = [];
    const notices = new Set<string>();
    let truncated = false;
    for await (const entry of walk(root, { signal: ctx.signal, exclude, onNotice: (line) => notices.add(line) })) {
      if (entries.length >= MAX_LIST_ENTRIES) {
        truncated = true;
        break;
      }
      entries.push(entry);
    }

    const children = new Map<string, WalkEntry[]>();
    for (const entry of entries) {
      const parent = entry.rel.includes('/') ? entry.rel.slice(0, entry.rel.lastIndexOf('/')) : '';
      const list = children.get(parent) ?? [];
      list.push(entry);
      children.set(parent, list);
    }
    const lines = [`${root.endsWith('/') ? root : `${root}/`}`];
    const render = (dir: string, indent: string): void => {
      const list = (children.get(dir) ?? []).sort((a, b) =>
        a.isDir !== b.isDir ? (a.isDir ? -1 : 1) : compareNames(a.rel, b.rel),
      );
      for (const entry of list) {
        const name = entry.rel.slice(entry.rel.lastIndexOf('/') + 1);
        lines.push(`${indent}${name}${entry.isDir ? '/' : ''}`);
        if (entry.isDir) render(entry.rel, `${indent}  `);
      }
    };
    render('', '  ');
    if (entries.length === 0) lines.push('  (empty)');
    if (truncated) {
      lines.push(
        '',
        `(Listing stopped at ${MAX_LIST_ENTRIES} entries. List a subdirectory or add ignore patterns to see the rest.)`,
      );
    }
    if (notices.size > 0) lines.push('', ...notices);
    return { output: lines.join('\n'), metadata: { count: entries.length, truncated } };
  },
});
