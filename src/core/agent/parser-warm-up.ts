// Gets the bash permission parser ready while a session waits for the model, so the first
// bash approval is not held up by loading and compiling the grammar (~100 ms cold). Called
// as each model request goes out: when the session has the `bash` tool (the only tool whose
// permission check parses a command line) and the parser is still cold, the warm-up starts
// once the request has been out for WARM_UP_DELAY_MS: loading and compiling the grammar holds
// the event loop for a while, and a reply that came back sooner (a one-reply `run`, a cached
// answer) would wait for it, and the process's exit with it. A real model takes longer than
// that to answer, so the parser is still ready before its first tool call. The timer never
// keeps the process alive. Nothing happens at start-up or in sessions that cannot run bash.
import { bashParserState, warmBashParser } from '../permission/bash-parser.js';
import type { Tool } from '../tools/types.js';

/** Tools whose permission check parses a shell command line (permission/gate.ts). */
const PARSES_COMMAND_LINES = new Set(['bash']);

/** How long a request is out before the warm-up starts (a reply within it does not wait for one). */
export const WARM_UP_DELAY_MS = 150;

let scheduled = false;

/** Starts the bash parser's warm-up in the background if `tools` may need it and nobody started it yet. */
export function warmUpForRequest(tools: readonly Tool[]): void {
  if (scheduled || bashParserState() !== 'cold') return;
  if (!tools.some((tool) => PARSES_COMMAND_LINES.has(tool.name))) return;
  scheduled = true;
  const timer = setTimeout(() => {
    // A failed warm-up leaves the lazy path; a later request may try again.
    void warmBashParser().then(() => {
      scheduled = false;
    });
  }, WARM_UP_DELAY_MS);
  timer.unref();
}
