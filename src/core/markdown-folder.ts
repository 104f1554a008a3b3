// Reading folders of markdown definitions (agents, commands): each folder once, files in a
// stable order. A missing folder is normal; an unreadable folder or file, or one its parser
// rejects, becomes a warning naming it and never stops the program. A file over
// MAX_SMALL_FILE_BYTES is skipped unread (its size comes from fstat): a repository's 1 GB
// "agent" must not cost memory and seconds at every start.
import { readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { sentence } from './errors.js';
import { describeProblem, readSmallFileSync } from './tools/regular-file.js';

export interface SourceWarning {
  /** The file or folder path, or `config`. */
  source: string;
  message: string;
}

export type ParsedFile<T> = { ok: true; value: T; warnings?: string[] } | { ok: false; reason: string };

function markdownFiles(dir: string, warn: (message: string) => void): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') warn(`folder skipped: cannot be read (${code ?? String(err)}).`);
    return [];
  }
  return names
    .filter((name) => name.toLowerCase().endsWith('.md'))
    .sort()
    .map((name) => resolve(dir, name))
    .filter((file) => {
      try {
        return statSync(file).isFile();
      } catch {
        return false;
      }
    });
}

/**
 * Parses every markdown file of `folders`, lowest precedence first, and hands each
 * definition to `accept` in that order (so later ones can override earlier ones by name).
 */
export function readMarkdownFolders<F, T>(
  folders: readonly F[],
  dirOf: (folder: F) => string,
  kind: string,
  parse: (text: string, file: string, folder: F) => ParsedFile<T>,
  accept: (value: T) => void,
  warnings: SourceWarning[],
): void {
  const seen = new Set<string>();
  for (const folder of folders) {
    const dir = resolve(dirOf(folder));
    if (seen.has(dir)) continue;
    seen.add(dir);
    for (const file of markdownFiles(dir, (message) => warnings.push({ source: dir, message: `${kind} ${message}` }))) {
      const read = readSmallFileSync(file);
      if (!('text' in read)) {
        // Gone since the folder was listed: nothing to say.
        if (read.problem !== 'missing') warnings.push({ source: file, message: `skipped: it ${describeProblem(read)}.` });
        continue;
      }
      const parsed = parse(read.text, file, folder);
      if (!parsed.ok) {
        warnings.push({ source: file, message: `skipped: ${sentence(parsed.reason)}` });
        continue;
      }
      for (const message of parsed.warnings ?? []) warnings.push({ source: file, message });
      accept(parsed.value);
    }
  }
}
