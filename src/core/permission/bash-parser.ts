// Loads the bash grammar (tree-sitter, compiled to WebAssembly, from the `tree-sitter-bash`
// package) on the first bash permission check and keeps the parser for the rest of the
// process. Nothing here runs at start-up: `run` and the TUI pay for it only when a bash
// command is checked. Both .wasm files are found through Node's resolver, so this works
// from the sources, from the esbuild bundle in dist/ and from an installed package alike.
import { createRequire } from 'node:module';
import type { Parser } from 'web-tree-sitter';

let loading: Promise<Parser> | undefined;

/** The shared parser; rejects (and retries on the next call) when the grammar cannot be loaded. */
export function bashParser(): Promise<Parser> {
  loading ??= load().catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}

async function load(): Promise<Parser> {
  const require = createRequire(import.meta.url);
  const { Parser, Language } = await import('web-tree-sitter');
  const runtime = require.resolve('web-tree-sitter/tree-sitter.wasm');
  // Bundled, web-tree-sitter would look for its runtime beside the bundle, not in its package.
  await Parser.init({ locateFile: () => runtime });
  const bash = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
  const parser = new Parser();
  parser.setLanguage(bash);
  return parser;
}
