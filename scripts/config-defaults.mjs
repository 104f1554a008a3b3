// The configuration of no file at all, computed at build time with the program's own full
// schema, for src/core/config/sections.ts (`__OC_CONFIG_DEFAULTS__`): a start whose config
// files leave a key out takes that key's default from this table instead of building its
// schema. The table must survive JSON (the bundle carries it as a `define`); the build fails
// if it does not.
import { build } from 'esbuild';
import { isDeepStrictEqual } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The value for `__OC_CONFIG_DEFAULTS__`; `root` is the package's folder. */
export async function configDefaults(root, options) {
  const bundled = await build({
    ...options,
    entryPoints: [join(root, 'src/core/config/sections.ts')],
    write: false,
    splitting: false,
    format: 'esm',
    sourcemap: false,
    outdir: undefined,
    outfile: 'sections.mjs',
    define: { ...options.define, __OC_CONFIG_DEFAULTS__: 'undefined' },
  });
  const dir = mkdtempSync(join(tmpdir(), 'oc-config-defaults-'));
  try {
    const file = join(dir, 'sections.mjs');
    writeFileSync(file, bundled.outputFiles[0].contents);
    const { configDefaults: compute } = await import(pathToFileURL(file).href);
    const defaults = compute();
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(defaults)), defaults)) {
      throw new Error('The configuration\'s defaults do not survive JSON: src/core/config/sections.ts cannot take them from the build.');
    }
    return defaults;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
