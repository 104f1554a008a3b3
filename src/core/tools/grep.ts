// `grep`: regex search over file contents. Uses ripgrep when it is on PATH (fast, and its
// rules are what users expect) and otherwise a pure JS walk with the same .gitignore rules
// and the same output, so the model sees one format whichever backend ran. Both backends
// only find matches; ordering (newest file first, then by path) and capping are shared.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import ignore from 'ignore';
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { walk } from './ignore-files.js';
import { checkPattern } from './pattern-limits.js';
import { LineMatcher } from './regex-worker.js';
import { displayPath, resolveForTool } from './paths.js';
import { blockedOnFifo } from './process.js';
import { isSpecial, kindOf, openRegular } from './regular-file.js';
import { defineTool, ToolError } from './types.js';

export type GrepMode = 'content' | 'files_with_matches' | 'count';
export type GrepBackend = 'rg' | 'js';

export const MAX_GREP_FILES = 200;
export const MAX_GREP_LINES = 500;
export const MAX_GREP_LINE_CHARS = 500;
export const MAX_GREP_OUTPUT_CHARS = 50_000;
/** The JS backend reads whole files; anything bigger is almost certainly not source. */
const MAX_JS_FILE_BYTES = 20 * 1024 * 1024;
const RG_MAX_BUFFER = 32 * 1024 * 1024;
/** How often a running rg is checked for being blocked on a FIFO. */
const RG_WATCHDOG_MS = 200;
/**
 * How long the JS backend may spend matching, summed over files. Ordinary patterns take
 * milliseconds per megabyte; one that needs more is backtracking without end.
 */
export const REGEX_TIME_LIMIT_MS = 10_000;

export interface GrepQuery {
  pattern: string;
  /** Absolute directory or file to search. */
  root: string;
  /** Directory that output paths are relative to. */
  cwd: string;
  glob?: string;
  mode: GrepMode;
  ignoreCase: boolean;
  signal?: AbortSignal;
  /** Summed time the JS backend may spend matching (REGEX_TIME_LIMIT_MS by default). */
  timeLimitMs?: number;
}

interface FileHits {
  file: string;
  lines: { line: number; text: string }[];
  count: number;
}

interface SearchResult {
  files: FileHits[];
  /** The backend stopped early (output limit), so some matches may be missing. */
  incomplete: boolean;
  /** .gitignore lines not applied and folders not entered (JS backend), for the output. */
  notices?: string[];
}

let ripgrepLookup: Promise<string | undefined> | undefined;

/** Absolute path of `rg` on PATH, looked up once per process. */
export function findRipgrep(): Promise<string | undefined> {
  ripgrepLookup ??= (async () => {
    const names = process.platform === 'win32' ? ['rg.exe', 'rg.cmd'] : ['rg'];
    for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
      if (!dir) continue;
      for (const name of names) {
        const candidate = path.join(dir, name);
        try {
          await access(candidate, constants.X_OK);
          return candidate;
        } catch {
          // not here
        }
      }
    }
    return undefined;
  })();
  return ripgrepLookup;
}

/** `*.{ts,tsx}` → `*.ts`, `*.tsx`: rg globs support braces, gitignore patterns do not. */
export function expandBraces(pattern: string): string[] {
  const match = /\{([^{}]*)\}/.exec(pattern);
  if (!match || !match[1]!.includes(',')) return [pattern];
  const before = pattern.slice(0, match.index);
  const after = pattern.slice(match.index + match[0].length);
  return match[1]!.split(',').flatMap((alt) => expandBraces(before + alt + after));
}

/** Glob filter with gitignore semantics: a pattern without a slash matches the file name at any depth. */
function globMatcher(glob: string): ignore.Ignore {
  // Checked before expanding: `{a,b}` twenty times over is a million patterns.
  checkPattern(glob, 'glob');
  return ignore().add(expandBraces(glob));
}

function compileRegex(pattern: string, ignoreCase: boolean): RegExp {
  const flags = ignoreCase ? 'i' : '';
  try {
    return new RegExp(pattern, `${flags}u`);
  } catch {
    try {
      return new RegExp(pattern, flags);
    } catch (err) {
      throw new ToolError(`Invalid regular expression ${JSON.stringify(pattern)}: ${(err as Error).message}`);
    }
  }
}

function stripEol(text: string): string {
  return text.replace(/\r?\n$/, '');
}

export async function searchWithJs(query: GrepQuery): Promise<SearchResult> {
  const regex = compileRegex(query.pattern, query.ignoreCase);
  const info = await stat(query.root);
  const candidates: string[] = [];
  const notices = new Set<string>();
  if (info.isFile()) {
    candidates.push(query.root);
  } else {
    const globFilter = query.glob ? globMatcher(query.glob) : undefined;
    for await (const entry of walk(query.root, { signal: query.signal, onNotice: (line) => notices.add(line) })) {
      if (entry.isDir || entry.isSymlink) continue;
      if (globFilter && !globFilter.ignores(entry.rel)) continue;
      candidates.push(entry.absolute);
    }
  }
  const files: FileHits[] = [];
  // Matching runs in a worker: a pattern that backtracks without end is stopped there.
  const matcher = LineMatcher.start(regex, { timeLimitMs: query.timeLimitMs ?? REGEX_TIME_LIMIT_MS, signal: query.signal });
  try {
    for (const file of candidates) {
      query.signal?.throwIfAborted();
      let buffer: Buffer;
      try {
        // Only regular files are opened: a FIFO would block a pool thread until a writer came.
        const handle = await openRegular(file);
        try {
          if ((await handle.stat()).size > MAX_JS_FILE_BYTES) continue;
          buffer = await handle.readFile();
        } finally {
          await handle.close();
        }
      } catch {
        continue;
      }
      if (buffer.includes(0)) continue;
      const mode = query.mode === 'content' ? 'lines' : query.mode === 'count' ? 'count' : 'any';
      const found = await matcher.match(buffer, mode, displayPath(query.cwd, file));
      if (found.count > 0) files.push({ file, lines: found.lines, count: found.count });
    }
  } finally {
    await matcher.close();
  }
  return { files, incomplete: false, notices: [...notices] };
}

class RipgrepRegexError extends Error {}
class RipgrepBlockedError extends Error {}

export async function searchWithRipgrep(query: GrepQuery, rg?: string): Promise<SearchResult> {
  const binary = rg ?? (await findRipgrep());
  if (!binary) throw new Error('ripgrep (rg) is not installed');
  const info = await stat(query.root);
  const cwd = info.isFile() ? path.dirname(query.root) : query.root;
  const target = info.isFile() ? path.basename(query.root) : '.';
  const args = [
    '--no-config',
    '--hidden',
    '--no-require-git',
    // Only .gitignore files count, as in the JS backend.
    '--no-ignore-dot',
    '--no-ignore-global',
    '--no-ignore-exclude',
    '--no-messages',
    '--color=never',
    '--glob=!.git',
    '--glob=!node_modules',
  ];
  if (query.ignoreCase) args.push('--ignore-case');
  args.push(query.mode === 'files_with_matches' ? '--files-with-matches' : '--json');
  if (query.mode === 'files_with_matches') args.push('--null');
  args.push('--regexp', query.pattern, '--', target);

  // Loaded on first use: start-up should not pay for the process library.
  const { execa } = await import('execa');
  const subprocess = execa(binary, args, {
    cwd,
    stdin: 'ignore',
    reject: false,
    stripFinalNewline: false,
    maxBuffer: RG_MAX_BUFFER,
    cancelSignal: query.signal,
    encoding: 'utf8',
  });
  // rg opens every .gitignore it meets, and one that is a FIFO blocks it in open() until a
  // writer comes, maybe forever. Seen from /proc, rg is then stopped and the search redone
  // by the JS backend, which never opens special files.
  let blocked = false;
  const watchdog = setInterval(() => {
    if (subprocess.pid !== undefined && blockedOnFifo(subprocess.pid)) {
      blocked = true;
      subprocess.kill('SIGKILL');
    }
  }, RG_WATCHDOG_MS);
  let result;
  try {
    result = await subprocess;
  } finally {
    clearInterval(watchdog);
  }
  query.signal?.throwIfAborted();
  if (blocked) throw new RipgrepBlockedError('ripgrep was blocked opening a FIFO');
  const stdout = typeof result.stdout === 'string' ? result.stdout : '';
  if (result.exitCode === 2 && !stdout.trim()) {
    const stderr = typeof result.stderr === 'string' ? result.stderr.trim() : '';
    if (/regex/i.test(stderr)) throw new RipgrepRegexError(stderr);
    throw new ToolError(`grep failed: ${stderr || 'ripgrep exited with status 2'}`);
  }
  const incomplete = result.isMaxBuffer;
  const abs = (p: string): string => path.resolve(cwd, p);
  // rg's own --glob would override .gitignore (whitelisted files are searched even when
  // ignored), so the glob is applied here, exactly as in the JS backend.
  const globFilter = query.glob && !info.isFile() ? globMatcher(query.glob) : undefined;
  const wanted = (file: string): boolean =>
    !globFilter || globFilter.ignores(path.relative(query.root, file).split(path.sep).join('/'));

  if (query.mode === 'files_with_matches') {
    const names = stdout.split('\0').filter((p) => p.length > 0);
    if (incomplete) names.pop();
    return {
      files: names.map((p) => ({ file: abs(p), lines: [], count: 1 })).filter((hits) => wanted(hits.file)),
      incomplete,
    };
  }
  const byFile = new Map<string, FileHits>();
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    let event: { type?: string; data?: { path?: { text?: string }; lines?: { text?: string }; line_number?: number } };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      continue;
    }
    if (event.type !== 'match') continue;
    const file = event.data?.path?.text;
    if (file === undefined) continue;
    const key = abs(file);
    if (!wanted(key)) continue;
    const hits = byFile.get(key) ?? { file: key, lines: [], count: 0 };
    byFile.set(key, hits);
    hits.count++;
    if (query.mode === 'content') {
      hits.lines.push({ line: event.data?.line_number ?? 0, text: stripEol(event.data?.lines?.text ?? '') });
    }
  }
  return { files: [...byFile.values()], incomplete };
}

/** Runs the search with the chosen backend ('auto': rg when installed, or at rgPath) and formats the output. */
export async function grep(
  query: GrepQuery,
  backend: GrepBackend | 'auto' = 'auto',
  rgPath?: string,
): Promise<{ output: string; count: number; backend: GrepBackend }> {
  let used: GrepBackend = backend === 'auto' ? ((rgPath ?? (await findRipgrep())) ? 'rg' : 'js') : backend;
  let result: SearchResult;
  if (used === 'rg') {
    try {
      result = await searchWithRipgrep(query, rgPath);
    } catch (err) {
      // Patterns rg's regex engine rejects (look-around, backreferences) still work in JS,
      // and a tree with a FIFO where rg expects a .gitignore does too.
      if (!(err instanceof RipgrepRegexError || err instanceof RipgrepBlockedError)) throw err;
      used = 'js';
      result = await searchWithJs(query);
    }
  } else {
    result = await searchWithJs(query);
  }
  const { output, count } = format(query, await sortNewestFirst(result.files), result.incomplete);
  const notices = result.notices ?? [];
  return { output: notices.length > 0 ? `${output}\n\n${notices.join('\n')}` : output, count, backend: used };
}

async function sortNewestFirst(files: FileHits[]): Promise<FileHits[]> {
  const withTime = await Promise.all(
    files.map(async (hits) => ({ hits, mtime: await stat(hits.file).then((s) => s.mtimeMs, () => 0) })),
  );
  withTime.sort((a, b) => b.mtime - a.mtime || (a.hits.file < b.hits.file ? -1 : a.hits.file > b.hits.file ? 1 : 0));
  for (const { hits } of withTime) hits.lines.sort((a, b) => a.line - b.line);
  return withTime.map((t) => t.hits);
}

function format(query: GrepQuery, files: FileHits[], incomplete: boolean): { output: string; count: number } {
  if (files.length === 0) return { output: 'No matches found.', count: 0 };
  const out: string[] = [];
  let chars = 0;
  let cut = false;
  const push = (line: string): boolean => {
    if (chars + line.length + 1 > MAX_GREP_OUTPUT_CHARS) {
      cut = true;
      return false;
    }
    out.push(line);
    chars += line.length + 1;
    return true;
  };
  const rel = (file: string): string => displayPath(query.cwd, file);
  let count = 0;
  let note = '';
  if (query.mode === 'content') {
    const total = files.reduce((n, f) => n + f.lines.length, 0);
    outer: for (const hits of files) {
      for (const { line, text } of hits.lines) {
        if (count >= MAX_GREP_LINES) {
          cut = true;
          break outer;
        }
        const shown = text.length > MAX_GREP_LINE_CHARS ? `${text.slice(0, MAX_GREP_LINE_CHARS)}... [truncated]` : text;
        if (!push(`${rel(hits.file)}:${line}:${shown}`)) break outer;
        count++;
      }
    }
    if (cut) note = `(Showing ${count} of ${total} matching lines. Narrow the search with a more specific pattern, path or glob.)`;
  } else {
    for (const hits of files) {
      if (count >= MAX_GREP_FILES) {
        cut = true;
        break;
      }
      if (!push(query.mode === 'count' ? `${rel(hits.file)}:${hits.count}` : rel(hits.file))) break;
      count++;
    }
    if (cut) note = `(Showing ${count} of ${files.length} files. Narrow the search with a more specific pattern, path or glob.)`;
  }
  if (incomplete) note = `${note ? `${note}\n` : ''}(The search produced too much output and stopped early; some matches are missing.)`;
  return { output: note ? `${out.join('\n')}\n\n${note}` : out.join('\n'), count };
}

const parameters = lazySchema(() =>
  z.object({
    pattern: z.string().min(1).describe('Regular expression to search for in file contents (ripgrep / JavaScript syntax), e.g. "function\\s+\\w+".'),
    path: z
      .string()
      .optional()
      .describe('File or directory to search, absolute or relative to the working directory (default: the working directory).'),
    glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts", "*.{ts,tsx}" or "src/**/*.py".'),
    output_mode: z
      .enum(['content', 'files_with_matches', 'count'])
      .optional()
      .describe(
        '"files_with_matches" (default): paths of matching files; "content": matching lines as path:line:text; "count": path:number of matching lines.',
      ),
    '-i': z.boolean().optional().describe('Case-insensitive search (default false).'),
  }),
);

export const grepTool = defineTool({
  name: 'grep',
  description: `Search file contents with a regular expression.

- pattern is a regular expression (ripgrep syntax, close to JavaScript): escape literal braces and dots, e.g. "interface\\{\\}" or "foo\\.bar". Matching is per line.
- Filter files with glob (e.g. "*.js", "**/*.{ts,tsx}") and narrow the search with path (a directory or a single file).
- output_mode: "files_with_matches" (default) lists matching files, "content" shows matching lines as path:line:text, "count" shows matches per file. Files are ordered most recently modified first.
- Respects .gitignore, skips .git, node_modules, binary files and FIFOs, sockets and devices. Output is capped (${MAX_GREP_FILES} files or ${MAX_GREP_LINES} lines).
- Always use this tool for content search instead of running grep or rg through bash. For open-ended searches that need several rounds, consider delegating to a sub-agent.`,
  parameters,
  readOnly: true,
  async execute(args, ctx) {
    const root = await resolveForTool(ctx, args.path);
    const info = await stat(root).catch(() => undefined);
    if (!info) throw new ToolError(`Path not found: ${displayPath(ctx.cwd, root)}.`);
    // Named on purpose, a FIFO or device would be opened by either backend and block.
    if (isSpecial(info)) throw new ToolError(`${displayPath(ctx.cwd, root)} is ${kindOf(info)}, not a regular file or directory; grep searches only those.`);
    const { output, count, backend } = await grep({
      pattern: args.pattern,
      root,
      cwd: ctx.cwd,
      glob: args.glob,
      mode: args.output_mode ?? 'files_with_matches',
      ignoreCase: args['-i'] ?? false,
      signal: ctx.signal,
    });
    return { output, metadata: { count, backend } };
  },
});
