// Gets the bash permission parser ready while the model is still writing a bash call, so the
// check of that call does not also pay for loading and compiling the grammar (~100 ms cold).
// Called for each tool call as the model's stream begins it (the provider's
// `tool_use.started`): when the call is to a tool whose permission check parses a command line
// and the parser is still cold, the warm-up starts at once, while the call's input streams in.
// Nothing is loaded for a session that may run bash but does not (a reply with no bash call, a
// fan-out of readers): the grammar's WebAssembly memory alone is ~30 MB of address space and a
// few MB of resident memory, and its compilation a collection of the old generation.
import { bashParserState, warmBashParser } from '../permission/bash-parser.js';

/** Tools whose permission check parses a shell command line (permission/gate.ts). */
const PARSES_COMMAND_LINES = new Set(['bash']);

/** Starts the bash parser's warm-up in the background when `toolName`'s check will need it. */
export function warmUpForToolCall(toolName: string): void {
  if (!PARSES_COMMAND_LINES.has(toolName) || bashParserState() !== 'cold') return;
  // Never rejects; a failed load leaves the lazy path, which reports the failure at the check.
  void warmBashParser();
}
