// Runs a function of the program's own source at build time and returns its value, for a
// JSON `define` the bundles carry (the configuration's defaults, the built-in tools' input
// schemas): the source module is bundled with the build's options, the define it feeds left
// undefined (so the module computes the value itself), and imported in this process.
import { build } from 'esbuild';
import { isDeepStrictEqual } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * `exportName()` of `entry` (relative to `root`), bundled with `options` and `define` set to
 * undefined. The value must survive JSON unchanged; the build fails if it does not.
 */
export async function buildTimeValue(root, options, { entry, exportName, define }) {
  const bundled = await build({
    ...options,
    entryPoints: [join(root, entry)],
    write: false,
    splitting: false,
    format: 'esm',
    sourcemap: false,
    outdir: undefined,
    outfile: 'entry.mjs',
    define: { ...options.define, [define]: 'undefined' },
  });
  const dir = mkdtempSync(join(tmpdir(), 'oc-build-time-'));
  try {
    const file = join(dir, 'entry.mjs');
    writeFileSync(file, bundled.outputFiles[0].contents);
    const value = (await import(pathToFileURL(file).href))[exportName]();
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(value)), value)) {
      throw new Error(`${entry}: ${exportName}() does not survive JSON, so the bundles cannot carry it as ${define}.`);
    }
    return value;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
