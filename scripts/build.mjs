// Bundles the CLI into dist/ with esbuild. Dependencies are bundled (fewer files to resolve
// at start-up), better-sqlite3's JavaScript too (its native addon is loaded by path:
// src/core/store/native-addon.ts); dynamic imports (the SDK, the TUI) become
// separate chunks loaded only when used. Beside them: dist/tui.js and dist/run.js, the same
// CLI as one script each for the interactive UI and for `run`, compiled with V8's code cache
// (scripts/cli-script.mjs), and dist/boot.cjs, which bin/opencode-ink.js loads to pick one.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { graphemeShims } from './grapheme-plugins.mjs';
import { buildCliScript } from './cli-script.mjs';
import { writeEventsSchema } from './events-schema.mjs';
import { buildInputsHash, writeDistStamp } from './dist-stamp.mjs';
import { parseBuiltinAgents } from './builtin-agents.mjs';
import { configDefaults } from './config-defaults.mjs';
import { toolSchemas } from './tool-schemas.mjs';

/**
 * zod re-exports every translation of its error messages (`z.locales`, 60-odd modules,
 * ~300 KB of source) from its main entry, so all of them are parsed and evaluated at
 * start-up. We use only the default English messages (zod loads those itself), so the
 * locale index is replaced by one that exports `en` alone.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!args.importer.includes(`${sep}node_modules${sep}zod${sep}`)) return undefined;
      return { path: join(dirname(args.importer), '..', 'locales', 'index.js'), namespace: 'zod-english-only' };
    });
    b.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * The provider SDKs make every request with the global `fetch` and build global `Headers`
 * (and test `instanceof FormData`); touching any of those loads Node's whole bundled HTTP
 * client, undici (~12 MB and ~20-30 ms per process). In this bundle their modules' free names
 * are bound to src/core/provider/node-fetch.ts instead: a module-scope import shadows the
 * global for that module alone, so no global changes and the library (dist/sdk, which
 * resolves the SDKs from node_modules) and everything else keep Node's own.
 */
const SDK_MODULE = /[\\/]node_modules[\\/](?:@anthropic-ai[\\/]sdk|openai)[\\/].*\.[cm]?js$/;
// `Request` is not among them: the SDKs never construct one (test/cli/run-builtins.test.ts checks that a run loads no undici).
const FETCH_NAMES = ['fetch', 'Headers', 'Response', 'FormData'];
const nodeFetchModule = fileURLToPath(new URL('../src/core/provider/node-fetch.ts', import.meta.url));
const sdkFetch = {
  name: 'sdk-node-fetch',
  setup(b) {
    b.onLoad({ filter: SDK_MODULE }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const used = FETCH_NAMES.filter((name) => new RegExp(`(?<![.\\w$])${name}\\b`).test(source));
      if (used.length === 0) return undefined;
      if (!args.path.endsWith('.mjs')) {
        throw new Error(`${args.path}: an SDK module in CommonJS names ${used.join(', ')}; the build binds those only in the ES module build (.mjs).`);
      }
      return { contents: `import { ${used.join(', ')} } from ${JSON.stringify(nodeFetchModule)};\n${source}`, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

// Taken before anything is read, so a source edited during the build leaves a stamp that no
// longer matches (scripts/dist-stamp.mjs).
const root = fileURLToPath(new URL('..', import.meta.url));
const inputsHash = buildInputsHash(root);
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

// Ink's text measuring without ICU for plain text (src/shims/).
const shims = graphemeShims();

/** What the ES module build and the code-cached scripts share. */
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  // dockerode (container runners, DESIGN §25) is loaded only when a sub-agent needs a container; its ssh
  // transport has optional native parts a bundle cannot carry.
  external: ['react-devtools-core', 'sharp', 'dockerode'],
  // Bundled CommonJS dependencies call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __ocCreateRequire } from 'node:module'; const require = __ocCreateRequire(import.meta.url);",
  },
  jsx: 'automatic',
  // React and Ink ship slow development builds (extra checks, warnings) unless told otherwise.
  define: { 'process.env.NODE_ENV': '"production"', ...shims.define },
  inject: shims.inject,
  logLevel: 'warning',
  legalComments: 'none',
  // Less to parse at start-up; the linked source maps keep --debug stacks readable.
  // Identifiers are not renamed: renaming needs `keepNames` to preserve function and class
  // names (error names, stack traces), which wraps ~3,500 functions in a naming call run at
  // start-up, costing more than the longer names cost to parse.
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [zodEnglishOnly, sdkFetch, shims.plugin],
};

// The built-in agents, parsed once here rather than at every start (src/core/agents/builtin-cache.ts).
common.define.__OC_BUILTIN_AGENTS__ = JSON.stringify(await parseBuiltinAgents(root, common));
// The configuration's defaults, so that a start builds the schema of the keys its files set only (src/core/config/sections.ts).
common.define.__OC_CONFIG_DEFAULTS__ = JSON.stringify(await configDefaults(root, common));
// The built-in tools' input schemas, so that a request need not convert them (src/core/tools/input-schemas.ts).
common.define.__OC_TOOL_SCHEMAS__ = JSON.stringify(await toolSchemas(root, common));

const esm = await build({
  ...common,
  entryPoints: { cli: 'src/cli/index.ts' },
  outdir: 'dist',
  splitting: true,
  format: 'esm',
  metafile: true,
});

const script = { options: common, esmMetafile: esm.metafile, entry: 'src/cli/index.ts', outdir: 'dist' };
// marked is imported lazily (after the first frame) but belongs with the UI's cached code.
await buildCliScript({ ...script, name: 'tui', inline: ['marked'] });
// `run` and `-p` (dist/boot.cjs picks this script for nothing else) never need the UI or the
// editor protocol.
const unreachable = (what) => `throw new Error('dist/run.js does not include ${what}: start it from dist/cli.js');`;
await buildCliScript({
  ...script,
  name: 'run',
  stubs: {
    'src/cli/commands/tui.ts': `export function tuiCommand(): never { ${unreachable('the interactive UI')} }`,
    'src/acp/index.ts': `export function runAcp(): never { ${unreachable('the editor protocol')} }`,
  },
});

// Small and self-contained: the `run` path pays for it before loading dist/cli.js. CommonJS,
// required by bin/opencode-ink.js (also CommonJS), so that a start sets up Node's ES module
// loader only when it imports an ES module (dist/cli.js and its chunks), never for `run`.
await build({
  entryPoints: { boot: 'src/boot/index.ts' },
  outExtension: { '.js': '.cjs' },
  outdir: 'dist',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  define: { 'import.meta.url': '__ocBootUrl' },
  banner: { js: '"use strict";var __ocBootUrl = require("node:url").pathToFileURL(__filename).href;' },
});

// The scripts' code caches for the first start after installing (src/boot seedCodeCache),
// each made in a Node process of its own with default flags, as the program starts.
for (const name of ['tui', 'run']) {
  const made = spawnSync(process.execPath, ['-e', `const boot = require(${JSON.stringify(resolve(root, 'dist', 'boot.cjs'))}); if (!boot.seedCodeCache(${JSON.stringify(join('dist', `${name}.js`))})) process.exit(1);`], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  if (made.status !== 0) console.warn(`dist/${name}.js: no code cache made for the first start (${made.stderr.toString().trim().split('\n')[0] || `exit ${made.status}`}).`);
}

// The published event protocol (docs/events.md), exported as `opencode-ink/events.schema.json`.
await writeEventsSchema('dist');

// The library (DESIGN §21), exported as `opencode-ink/sdk`: dist/sdk/ from src/sdk, which
// imports only the core, with its declarations in dist/types/. Its dependencies stay packages
// of their own, resolved from node_modules as any library's are: a program's zod 4 and ours
// can be one copy, and nothing of the UI can be bundled in.
await build({
  entryPoints: { index: 'src/sdk/index.ts' },
  outdir: 'dist/sdk',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // A dependency the core loads at its first use (yaml, image-size) is required, not imported.
  banner: common.banner,
  sourcemap: 'linked',
  logLevel: 'warning',
  legalComments: 'none',
});
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // A build without the dev dependencies still gives a working library, untyped.
  console.warn('dist/types: no type declarations for opencode-ink/sdk (typescript is not installed).');
}
if (tsc) {
  const declarations = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.sdk.json'], { stdio: 'inherit' });
  if (declarations.status !== 0) throw new Error(`The library's type declarations did not build (tsc exit ${declarations.status}).`);
}

// Last, so that only a complete build is ever stamped current.
writeDistStamp(join(root, 'dist'), inputsHash);
