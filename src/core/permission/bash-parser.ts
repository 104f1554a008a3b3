// Loads the bash grammar (tree-sitter, compiled to WebAssembly, from the `tree-sitter-bash`
// package) once and keeps the parser for the rest of the process. Nothing here runs at
// start-up: `run` and the TUI pay for it either when a bash command is checked or, earlier
// and out of the user's way, through `warmBashParser`, which the agent loop starts as the
// model begins writing a bash call (agent/parser-warm-up.ts). Both
// .wasm files are found through Node's resolver, so this works from the sources, from the
// esbuild bundle in dist/ and from an installed package alike.
import { createRequire } from 'node:module';
import type { Parser } from 'web-tree-sitter';
import { analyzeCommand } from './bash-parse.js';

/**
 * `cold`: nothing loaded; `loading`: the grammar is being loaded; `loaded`: loaded, but its
 * code is compiled only by the first parse; `ready`: warmed up, a check only parses.
 */
export type BashParserState = 'cold' | 'loading' | 'loaded' | 'ready';

let loading: Promise<Parser> | undefined;
let loaded = false;
let warming: Promise<void> | undefined;
let warmed = false;

/**
 * A short line touching the grammar's main paths (words, quotes, an assignment, a pipe, a
 * list, a redirection, command substitution, a wrapper and a heredoc, which the external
 * scanner reads): V8 compiles WebAssembly and JavaScript functions on their first call, so
 * analysing this once compiles what the first real check would otherwise compile while the
 * user waits.
 */
const WARM_UP_LINE = `A=1 sudo git -C . status "a $B" 'c' | grep -n x && { echo $(date) > out.txt; } || bash -c 'ls' <<'EOF'\nbody\nEOF\n`;

/** The shared parser; rejects (and retries on the next call) when the grammar cannot be loaded. */
export function bashParser(): Promise<Parser> {
  loading ??= load().then(
    (parser) => {
      loaded = true;
      return parser;
    },
    (err: unknown) => {
      loading = undefined;
      throw err;
    },
  );
  return loading;
}

/**
 * Loads the parser and analyses one line, so the first check only pays for its own work.
 * Idempotent (later calls share the first one's promise) and never rejects: when loading
 * fails the first check simply loads the parser itself, and reports the failure there.
 */
export function warmBashParser(): Promise<void> {
  warming ??= bashParser().then(
    (parser) => {
      try {
        analyzeCommand(parser, WARM_UP_LINE);
        warmed = true;
      } catch {
        // What fails here fails in the check too, which reports it: nothing to add.
      }
    },
    () => {
      // Left to the lazy path: the next warm-up or check tries again.
      warming = undefined;
    },
  );
  return warming;
}

/** Whether the grammar is loaded and compiled: what a bash permission check will still pay for. */
export function bashParserState(): BashParserState {
  if (warmed) return 'ready';
  if (loaded) return 'loaded';
  return loading ? 'loading' : 'cold';
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
