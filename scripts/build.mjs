// Bundles the CLI into dist/ with esbuild. Dependencies are bundled (fewer files to resolve
// at start-up) except native better-sqlite3; dynamic imports (the SDK, the TUI) become
// separate chunks loaded only when used.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

await build({
  entryPoints: { cli: 'src/cli/index.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  external: ['better-sqlite3', 'react-devtools-core'],
  // Bundled CommonJS dependencies call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __ocCreateRequire } from 'node:module'; const require = __ocCreateRequire(import.meta.url);",
  },
  jsx: 'automatic',
  // React and Ink ship slow development builds (extra checks, warnings) unless told otherwise.
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
  legalComments: 'none',
  // Less to parse at start-up; the linked source maps keep --debug stacks readable.
  minify: true,
  keepNames: true,
});
