// The project's file names for `@` completion: collected once in the background with the
// same .gitignore rules as the tools, then matched synchronously on every keystroke.
import { walk } from './tools/ignore-files.js';

const DEFAULT_LIMIT = 20_000;

export class FileIndex {
  private paths: string[] = [];

  private constructor(readonly root: string) {}

  /** Starts indexing and returns at once; completions improve as the walk proceeds. */
  static start(root: string, limit = DEFAULT_LIMIT, signal?: AbortSignal): FileIndex {
    const index = new FileIndex(root);
    void index.fill(limit, signal);
    return index;
  }

  private async fill(limit: number, signal?: AbortSignal): Promise<void> {
    try {
      for await (const entry of walk(this.root, signal ? { signal } : {})) {
        this.paths.push(entry.isDir ? `${entry.rel}/` : entry.rel);
        if (this.paths.length >= limit) break;
      }
    } catch {
      // An unreadable tree or an abort leaves a partial index: completion is best effort.
    }
  }

  /** Paths starting with `prefix` (then those containing it), shallow ones first. */
  complete(prefix: string, max = 50): string[] {
    const needle = prefix.toLowerCase();
    const starts: string[] = [];
    const contains: string[] = [];
    for (const p of this.paths) {
      const lower = p.toLowerCase();
      if (lower.startsWith(needle)) starts.push(p);
      else if (needle && lower.includes(needle)) contains.push(p);
      if (starts.length >= max) break;
    }
    return [...starts, ...contains].slice(0, max);
  }
}
