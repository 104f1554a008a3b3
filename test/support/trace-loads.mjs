// Preloaded with `node --import` (or NODE_OPTIONS=--import=...): records the URL of every
// module the process resolves into the file named by OPENCODE_INK_TRACE_LOADS, one a line,
// so a test can check which bundle chunks a command really loads. ES modules are seen by
// the resolve hook (trace-loads-hooks.mjs); CommonJS files (bin/opencode-ink.js,
// dist/boot.cjs, packages they require) as each is loaded.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';

const file = process.env.OPENCODE_INK_TRACE_LOADS;
if (file) {
  register('./trace-loads-hooks.mjs', { parentURL: import.meta.url, data: { file } });
  const load = Module.prototype.load;
  Module.prototype.load = function (filename) {
    appendFileSync(file, `${pathToFileURL(filename).href}\n`);
    return load.call(this, filename);
  };
}
