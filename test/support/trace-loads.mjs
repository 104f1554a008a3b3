// Preloaded with `node --import` (or NODE_OPTIONS=--import=...): records the URL of every
// module the process resolves into the file named by OPENCODE_INK_TRACE_LOADS, one a line,
// so a test can check which bundle chunks a command really loads.
import { register } from 'node:module';

const file = process.env.OPENCODE_INK_TRACE_LOADS;
if (file) register('./trace-loads-hooks.mjs', { parentURL: import.meta.url, data: { file } });
