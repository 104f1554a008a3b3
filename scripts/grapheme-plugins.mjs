// esbuild set-up that keeps ICU's grapheme machinery out of the TUI's first frame (see
// src/shims/): every `Intl.Segmenter` in the bundle becomes a lazy one, and every
// `string-width` import a wrapper that measures plain text itself and loads the real
// package on first need. The character lists come from the real implementations at build
// time (scripts/grapheme-allowlist.mjs), so the results are the same.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { narrowPattern, simpleGraphemeCodePoints, simpleGraphemePattern } from './grapheme-allowlist.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SEGMENTER_SHIM = join(root, 'src', 'shims', 'intl-segmenter.ts');
const WIDTH_SHIM = join(root, 'src', 'shims', 'string-width.ts');
const INJECT = 'oc-lazy-segmenter';

/** Options to merge into an esbuild build: `define`, `inject` and the plugin. */
export function graphemeShims() {
  const codePoints = simpleGraphemeCodePoints();
  const narrowByFile = new Map();
  const plugin = {
    name: 'grapheme-shims',
    setup(b) {
      // The injected module: `Intl.Segmenter` (replaced by `define`) refers to its export.
      // Free of side effects: esbuild may drop it wherever it goes unused.
      b.onResolve({ filter: new RegExp(`^${INJECT}$`) }, () => ({ path: INJECT, namespace: 'grapheme-shims', sideEffects: false }));
      b.onLoad({ filter: new RegExp(`^${INJECT}$`), namespace: 'grapheme-shims' }, () => ({
        contents: [
          `import { lazySegmenterClass } from ${JSON.stringify(SEGMENTER_SHIM)};`,
          // Reflect.get: a plain `Intl.Segmenter` here would be replaced by the define too.
          `export const OcLazySegmenter = /* @__PURE__ */ lazySegmenterClass(Reflect.get(Intl, 'Segmenter'), /${simpleGraphemePattern(codePoints)}/);`,
        ].join('\n'),
        resolveDir: root,
        loader: 'js',
      }));

      b.onResolve({ filter: /^string-width$/ }, async (args) => {
        if (args.pluginData?.real) return undefined;
        const real = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { real: true } });
        if (real.errors.length) return { errors: real.errors };
        return { path: real.path, namespace: 'string-width-shim' };
      });
      b.onLoad({ filter: /.*/, namespace: 'string-width-shim' }, async (args) => {
        let narrow = narrowByFile.get(args.path);
        if (!narrow) {
          const { default: realWidth } = await import(pathToFileURL(args.path).href);
          narrow = narrowPattern(realWidth, codePoints);
          narrowByFile.set(args.path, narrow);
        }
        return {
          contents: [
            `import stripAnsi from 'strip-ansi';`,
            `import { fastStringWidth } from ${JSON.stringify(WIDTH_SHIM)};`,
            // require(): the real module (and its emoji expressions) is evaluated on first use only.
            `export default fastStringWidth(() => require(${JSON.stringify(args.path)}).default, stripAnsi, /${narrow}/);`,
          ].join('\n'),
          // strip-ansi as the real string-width would resolve it.
          resolveDir: dirname(args.path),
          loader: 'js',
        };
      });
    },
  };
  return { define: { 'Intl.Segmenter': 'OcLazySegmenter' }, inject: [INJECT], plugin };
}
