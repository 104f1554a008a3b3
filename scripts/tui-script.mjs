// Builds dist/tui.js: the CLI with the interactive UI as one classic script (not an ES
// module), which dist/boot.js compiles with V8's code cache. Node 20 cannot cache the
// compiled code of ES modules (module.enableCompileCache is Node 22), and compiling ~1.8 MB
// of JavaScript is a large part of the time to the first frame.
//
// The code is the same as dist/cli.js and its chunks, bundled without splitting: the UI is
// still evaluated only when the CLI asks for it. Packages the CLI imports lazily (the SDK,
// highlight.js, turndown, execa) stay out: the script imports dist/'s own ES module chunks
// for them, through a function the loader passes in, so they load as before.
import { build, transform } from 'esbuild';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, resolve } from 'node:path';
import vm from 'node:vm';

const LAZY = 'oc-lazy-chunk:';
const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/** The script's parameters, in the order dist/boot.js passes them. */
const TUI_SCRIPT_PARAMETERS = ['require', '__ocImportMeta', '__ocImport'];

/**
 * `options`: the esbuild options of the ES module build (bundling, defines, plugins);
 * `esmMetafile`: that build's metafile, to find the chunk of each lazily imported package.
 */
export async function buildTuiScript({ options, esmMetafile, entry, outdir }) {
  const cwd = process.cwd();
  const chunkOfEntry = new Map();
  for (const [file, output] of Object.entries(esmMetafile.outputs)) {
    if (output.entryPoint) chunkOfEntry.set(resolve(cwd, output.entryPoint), file);
  }
  const lazyChunks = new Set();
  const lazyPackages = {
    name: 'lazy-packages',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.kind !== 'dynamic-import' || args.pluginData?.lazy || builtins.has(args.path)) return undefined;
        const resolved = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { lazy: true } });
        if (resolved.errors.length || resolved.external) return undefined;
        const chunk = chunkOfEntry.get(resolved.path);
        if (!chunk) return { errors: [{ text: `dist/ has no chunk for the dynamic import of "${args.path}"` }] };
        lazyChunks.add(chunk);
        return { path: `${LAZY}./${relative(outdir, resolve(cwd, chunk)).split('\\').join('/')}`, external: true };
      });
    },
  };

  // Packages left out of the bundle (native better-sqlite3, Ink's optional devtools) are
  // required where they are imported, not hoisted to the top as a script's imports would be.
  const externalPackages = {
    name: 'external-packages',
    setup(b) {
      const names = new Set(options.external);
      b.onResolve({ filter: /.*/ }, (args) => (names.has(args.path) && args.namespace !== 'external-package' ? { path: args.path, namespace: 'external-package' } : undefined));
      b.onLoad({ filter: /.*/, namespace: 'external-package' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
    },
  };

  const bundled = await build({
    ...options,
    entryPoints: [entry],
    outfile: join(outdir, 'tui.js'),
    format: 'esm',
    splitting: false,
    write: false,
    metafile: true,
    sourcemap: 'inline',
    banner: {},
    define: { ...options.define, 'import.meta': '__ocImportMeta' },
    plugins: [externalPackages, ...options.plugins, lazyPackages],
  });
  assertNoSharedModules(esmMetafile, lazyChunks, bundled.metafile);

  const esm = bundled.outputFiles.find((f) => f.path.endsWith('.js')).text;
  const withImports = esm.replaceAll(`import("${LAZY}`, '__ocImport("');
  if (withImports.includes(LAZY)) throw new Error('tui.js: a lazy chunk import was not rewritten');
  // An immediately invoked function instead of a module: imports become require() calls
  // (dynamic ones too) and `module`/`exports` stay undefined, as in an ES module.
  const script = await transform(withImports, {
    format: 'iife',
    globalName: '__ocTui',
    platform: 'node',
    target: options.target,
    supported: { 'dynamic-import': false },
    minifyWhitespace: true,
    sourcemap: 'external',
    sourcefile: 'tui.js',
    legalComments: 'none',
    logLevel: 'warning',
  });

  // The hash names the code cache: V8 itself only checks that the source length matches.
  const hash = createHash('sha256').update(script.code).digest('hex').slice(0, 32);
  const text = `(function (${TUI_SCRIPT_PARAMETERS.join(', ')}) {"use strict";/*opencode-ink-tui:${hash}*/\n${script.code}return __ocTui;\n})\n//# sourceMappingURL=tui.js.map\n`;
  // Fails the build on anything only a module may contain (import.meta, import/export).
  new vm.Script(text, { filename: 'tui.js' });
  const map = JSON.parse(script.map);
  map.mappings = `;${map.mappings}`; // the wrapper's first line
  map.file = 'tui.js';
  writeFileSync(join(outdir, 'tui.js'), text);
  writeFileSync(join(outdir, 'tui.js.map'), JSON.stringify(map));
}

/**
 * The lazily imported chunks must not hold a second copy of any module the script bundles,
 * but the stateless text shims, which esbuild places with its runtime helpers.
 */
function assertNoSharedModules(esmMetafile, lazyChunks, scriptMetafile) {
  const stateless = (input) => input.startsWith('src/shims/') || input.startsWith('grapheme-shims:');
  const bundledInputs = new Set(Object.keys(scriptMetafile.inputs).filter((input) => !stateless(input)));
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const output = esmMetafile.outputs[file];
    for (const input of Object.keys(output.inputs)) {
      if (bundledInputs.has(input)) throw new Error(`tui.js: ${input} would be loaded twice (in tui.js and in ${file})`);
    }
    for (const imported of output.imports) if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
  };
  for (const chunk of lazyChunks) visit(chunk);
}
