// Gets the bash permission parser ready while a session waits for the model, so the first
// bash approval is not held up by loading and compiling the grammar (~100 ms cold). Called
// as each model request goes out: when the session has the `bash` tool (the only tool whose
// permission check parses a command line) and the parser is still cold, the warm-up starts
// on the next turn of the event loop, after the request has been handed to the provider, so
// it never delays it. Nothing happens at start-up or in sessions that cannot run bash.
import { bashParserState, warmBashParser } from '../permission/bash-parser.js';
import type { Tool } from '../tools/types.js';

/** Tools whose permission check parses a shell command line (permission/gate.ts). */
const PARSES_COMMAND_LINES = new Set(['bash']);

let scheduled = false;

/** Starts the bash parser's warm-up in the background if `tools` may need it and nobody started it yet. */
export function warmUpForRequest(tools: readonly Tool[]): void {
  if (scheduled || bashParserState() !== 'cold') return;
  if (!tools.some((tool) => PARSES_COMMAND_LINES.has(tool.name))) return;
  scheduled = true;
  setImmediate(() => {
    // A failed warm-up leaves the lazy path; a later request may try again.
    void warmBashParser().then(() => {
      scheduled = false;
    });
  });
}
