// Builds the CLI as one classic script (not an ES module), which dist/boot.cjs compiles with
// V8's code cache: Node 20 cannot cache the compiled code of ES modules
// (module.enableCompileCache is Node 22), and compiling megabytes of JavaScript is a large
// part of a start. Two are built: dist/tui.js for the interactive UI, dist/run.js for `run`.
//
// The code is the same as dist/cli.js and its chunks, bundled without splitting: modules
// imported lazily are still evaluated only when the CLI asks for them. Packages the CLI
// imports lazily (highlight.js, turndown, execa, and the model SDKs unless `inline` names
// them) stay out: the script imports dist/'s own ES module chunks for them, through a
// function the loader passes in, so they load as before. `stubs` replaces source modules the
// script can never reach (the UI in dist/run.js) so that it does not carry their code.
import { build, transform } from 'esbuild';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, resolve } from 'node:path';
import vm from 'node:vm';

const LAZY = 'oc-lazy-chunk:';
const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/** The script's parameters, in the order dist/boot.cjs passes them. */
const SCRIPT_PARAMETERS = ['require', '__ocImportMeta', '__ocImport', '__ocLazyBuiltin'];

/**
 * Built-ins a start may never use. The bundle hoists every module's imports to its top, so
 * each would be loaded when the script starts (child_process alone is ~0.6 ms and loads
 * dgram; fs/promises loads readline); required through src/boot/lazy-builtin.ts instead,
 * each loads at the first use of one of its members.
 */
const LAZY_BUILTINS = ['child_process', 'worker_threads', 'fs/promises', 'zlib', 'https', 'dns', 'timers/promises'];
const LAZY_ID = `(?:node:)?(${LAZY_BUILTINS.map((id) => id.replace('/', '\\/')).join('|')})`;
/** A require of one, and the namespace esbuild builds of it for an ES module import (`__toESM(require(…), 1)`). */
const LAZY_NAMESPACE = new RegExp(`\\b__toESM\\((?:__)?require\\("${LAZY_ID}"\\)(?:,\\s*1)?\\)`, 'g');
const LAZY_REQUIRE = new RegExp(`\\b(?:__)?require\\("${LAZY_ID}"\\)`, 'g');

/**
 * The script's requires of LAZY_BUILTINS, each replaced by a stand-in (`__ocLazyBuiltin`,
 * src/boot/lazy-builtin.ts) that loads the module at its first use. The stand-in also serves
 * as the namespace object esbuild would build of the module, which would read every member,
 * and so load it, at once.
 */
function lazyBuiltins(code) {
  const standIn = (_, id) => `__ocLazyBuiltin("node:${id}")`;
  return code.replace(LAZY_NAMESPACE, standIn).replace(LAZY_REQUIRE, standIn);
}

/**
 * Writes dist/<name>.js. `options`: the esbuild options of the ES module build (bundling,
 * defines, plugins); `esmMetafile`: that build's metafile, to find the chunk of each lazily
 * imported package; `inline`: packages bundled into the script although imported lazily;
 * `stubs`: source file (relative to the repository) → the module that replaces it.
 */
export async function buildCliScript({ name, options, esmMetafile, entry, outdir, inline = [], stubs = {} }) {
  const file = `${name}.js`;
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
        if (inline.some((pkg) => args.path === pkg || args.path.startsWith(`${pkg}/`))) return undefined;
        const resolved = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { lazy: true } });
        if (resolved.errors.length || resolved.external) return undefined;
        const chunk = chunkOfEntry.get(resolved.path);
        if (!chunk) return { errors: [{ text: `dist/ has no chunk for the dynamic import of "${args.path}"` }] };
        lazyChunks.add(chunk);
        return { path: `${LAZY}./${relative(outdir, resolve(cwd, chunk)).split('\\').join('/')}`, external: true };
      });
    },
  };

  // Packages left out of the bundle (Ink's optional devtools, sharp, dockerode) are
  // required where they are imported, not hoisted to the top as a script's imports would be.
  const externalPackages = {
    name: 'external-packages',
    setup(b) {
      const names = new Set(options.external);
      b.onResolve({ filter: /.*/ }, (args) => (names.has(args.path) && args.namespace !== 'external-package' ? { path: args.path, namespace: 'external-package' } : undefined));
      b.onLoad({ filter: /.*/, namespace: 'external-package' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
    },
  };

  // Unreachable modules, replaced so that the script does not carry (or parse) their code.
  const stubbed = {
    name: 'stubbed-modules',
    setup(b) {
      const byPath = new Map(Object.entries(stubs).map(([path, contents]) => [resolve(cwd, path), contents]));
      if (byPath.size === 0) return;
      b.onLoad({ filter: /\.tsx?$/ }, (args) => (byPath.has(args.path) ? { contents: byPath.get(args.path), loader: 'ts' } : undefined));
    },
  };

  const bundled = await build({
    ...options,
    entryPoints: [entry],
    outfile: join(outdir, file),
    format: 'esm',
    splitting: false,
    write: false,
    metafile: true,
    sourcemap: 'inline',
    banner: {},
    define: { ...options.define, 'import.meta': '__ocImportMeta' },
    plugins: [externalPackages, stubbed, ...options.plugins, lazyPackages],
  });
  assertNoSharedModules(file, esmMetafile, lazyChunks, bundled.metafile);

  const esm = bundled.outputFiles.find((f) => f.path.endsWith('.js')).text;
  const withImports = esm.replaceAll(`import("${LAZY}`, '__ocImport("');
  if (withImports.includes(LAZY)) throw new Error(`${file}: a lazy chunk import was not rewritten`);
  // An immediately invoked function instead of a module: imports become require() calls
  // (dynamic ones too) and `module`/`exports` stay undefined, as in an ES module.
  const script = await transform(withImports, {
    format: 'iife',
    globalName: '__ocCli',
    platform: 'node',
    target: options.target,
    supported: { 'dynamic-import': false },
    minifyWhitespace: true,
    sourcemap: 'external',
    sourcefile: file,
    legalComments: 'none',
    logLevel: 'warning',
  });

  const code = lazyBuiltins(script.code);
  // The hash names the code cache: V8 itself only checks that the source length matches.
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 32);
  const text = `(function (${SCRIPT_PARAMETERS.join(', ')}) {"use strict";/*opencode-ink-script:${name}:${hash}*/\n${code}return __ocCli;\n})\n//# sourceMappingURL=${file}.map\n`;
  // dist/boot.cjs reads the script as Latin-1, which is only the same text for ASCII.
  if (/[\u0080-\uffff]/.test(text)) throw new Error(`${file}: the script is not ASCII (esbuild's charset option?)`);
  // Fails the build on anything only a module may contain (import.meta, import/export).
  new vm.Script(text, { filename: file });
  const map = JSON.parse(script.map);
  map.mappings = `;${map.mappings}`; // the wrapper's first line
  map.file = file;
  writeFileSync(join(outdir, file), text);
  writeFileSync(join(outdir, `${file}.map`), JSON.stringify(map));
}

/**
 * The lazily imported chunks must not hold a second copy of any module the script bundles,
 * but the stateless text shims, which esbuild places with its runtime helpers.
 */
function assertNoSharedModules(file, esmMetafile, lazyChunks, scriptMetafile) {
  // Build-time data (a JSON `define`, such as the parsed built-in agents) is constant: a copy holds no state.
  // src/core/provider/node-fetch.ts keeps only its keep-alive agents: the script's copy serves
  // the Anthropic SDK it bundles, the lazily loaded openai SDK's chunk has its own, each used
  // by one SDK's modules alone (a pool per provider; their classes never meet).
  const stateless = (input) =>
    input.startsWith('src/shims/') || input.startsWith('grapheme-shims:') || input.startsWith('<define:') || input === 'src/core/provider/node-fetch.ts';
  const bundledInputs = new Set(Object.keys(scriptMetafile.inputs).filter((input) => !stateless(input)));
  const seen = new Set();
  const visit = (chunk) => {
    if (seen.has(chunk)) return;
    seen.add(chunk);
    const output = esmMetafile.outputs[chunk];
    for (const input of Object.keys(output.inputs)) {
      if (bundledInputs.has(input)) throw new Error(`${file}: ${input} would be loaded twice (in ${file} and in ${chunk})`);
    }
    for (const imported of output.imports) if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
  };
  for (const chunk of lazyChunks) visit(chunk);
}
