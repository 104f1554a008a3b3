// The markdown files of one folder (agents, commands), in a stable order. A missing folder
// is normal; one that exists but cannot be read is reported, never fatal.
import { readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

export function markdownFiles(dir: string, warn: (message: string) => void): string[] {
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
