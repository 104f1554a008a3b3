// Which of the bundle's chunks hold UI code (Ink, React, src/ui), and which sources the
// loaded chunks hold. Chunk names do not say:
// esbuild names a chunk after its entry (`launch-*.js`) or not at all (`chunk-*.js`), and
// Ink is bundled in, so the linked source map of each chunk is the reliable record.
import { readFileSync, realpathSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const UI_SOURCE = /(^|\/)(node_modules\/(ink|react|react-reconciler|react-dom|yoga-layout|scheduler)\/|src\/ui\/)/;

/** True when the chunk was built from any UI source. Throws when it has no source map to tell. */
export function isUiChunk(chunkFile: string): boolean {
  const map = JSON.parse(readFileSync(`${chunkFile}.map`, 'utf8')) as { sources?: string[] };
  return (map.sources ?? []).some((source) => UI_SOURCE.test(source));
}

/** The UI chunks among loaded module URLs (as trace-loads.mjs records them) from distDir. */
export function uiChunksAmong(urls: readonly string[], distDir: string): string[] {
  const dist = realpathSync(distDir);
  const chunks = urls
    .filter((url) => url.startsWith('file:'))
    .map((url) => fileURLToPath(url))
    .filter((file) => dirname(file) === dist && file.endsWith('.js'));
  return [...new Set(chunks)].filter(isUiChunk).map((file) => basename(file));
}

/** Every source file (as each chunk's source map names it) in the dist/ chunks among loaded module URLs. */
export function sourcesAmong(urls: readonly string[], distDir: string): string[] {
  const dist = realpathSync(distDir);
  const chunks = new Set(
    urls
      .filter((url) => url.startsWith('file:'))
      .map((url) => fileURLToPath(url))
      .filter((file) => dirname(file) === dist && file.endsWith('.js')),
  );
  const sources = new Set<string>();
  for (const chunk of chunks) {
    const map = JSON.parse(readFileSync(`${chunk}.map`, 'utf8')) as { sources?: string[] };
    for (const source of map.sources ?? []) sources.add(source);
  }
  return [...sources];
}
