// Finds the installed package's own folder (for `agents/` and the version) whether running
// from the bundle in dist/ or from the sources under test.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'opencode-ink') return (cached = dir);
      } catch {
        // keep walking up
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('Cannot find the opencode-ink package folder.');
    dir = parent;
  }
}

export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}
