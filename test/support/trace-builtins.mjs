// Preloaded with `node --import` (or NODE_OPTIONS=--import=...): when the process exits, writes
// the Node built-in modules it loaded (process.moduleLoadList, e.g. "NativeModule http") to
// the file named by OPENCODE_INK_TRACE_BUILTINS, one a line.
import { writeFileSync } from 'node:fs';

const file = process.env.OPENCODE_INK_TRACE_BUILTINS;
if (file) process.on('exit', () => writeFileSync(file, `${process.moduleLoadList.join('\n')}\n`));
