// Preloaded with `node --import` (or NODE_OPTIONS=--import=...): when the process exits, writes
// the Node built-in modules it loaded (process.moduleLoadList, e.g. "NativeModule http") to
// the file named by OPENCODE_INK_TRACE_BUILTINS, one a line, with the line `--- V8 flags
// changed` where the program first changed V8's flags (node:v8 setFlagsFromString): a built-in
// loaded after it compiles from source, since V8 rejects Node's code cache under other flags.
import { writeFileSync } from 'node:fs';
import v8 from 'node:v8';

const file = process.env.OPENCODE_INK_TRACE_BUILTINS;
if (file) {
  let flagsChangedAt;
  const setFlags = v8.setFlagsFromString;
  v8.setFlagsFromString = (flags) => {
    flagsChangedAt ??= process.moduleLoadList.length;
    setFlags(flags);
  };
  process.on('exit', () => {
    const loaded = [...process.moduleLoadList];
    if (flagsChangedAt !== undefined) loaded.splice(flagsChangedAt, 0, '--- V8 flags changed');
    writeFileSync(file, `${loaded.join('\n')}\n`);
  });
}
