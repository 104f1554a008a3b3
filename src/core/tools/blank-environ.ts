// Takes the credentials out of this process's initial environment block, where any process
// of the same user could read them (`cat /proc/$PPID/environ` from a shell command the model
// runs), while the program itself keeps using them.
//
// Contract (Linux; elsewhere it does nothing and says so):
// - The block is the memory between env_start and env_end, fields 50 and 51 of
//   /proc/self/stat; /proc/self/environ shows exactly those bytes. Each `NAME=value` entry
//   whose name is one of `names`, or whose value is one of `values` (provider keys from the
//   config, whatever variable holds them), gets its value overwritten with zero bytes
//   through /proc/self/mem.
// - `process.env` still holds every value. Node does not copy the environment: it reads the
//   C library's `environ`, whose strings are these very bytes. So each variable is first set
//   again (`process.env[NAME] = value` calls setenv, which copies it to the heap and points
//   `environ` there), and only then are the original bytes blanked. Child processes get
//   their environment from `process.env`, so they see what they saw before.
// - Best effort: a kernel or sandbox that refuses any step leaves the environment as it was
//   and the outcome says why; nothing throws.
import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';

export interface BlankOutcome {
  /** Names whose values were blanked in the block. */
  blanked: string[];
  /** Why nothing could be done, when that is so. */
  skipped?: string;
}

/** Indexes of env_start and env_end (fields 50 and 51) among the fields after the command name. */
const ENV_START_FIELD = 50 - 3;
const ENV_END_FIELD = 51 - 3;
/** A sanity cap: Linux limits one process's environment and arguments to far less. */
const MAX_BLOCK_BYTES = 64 * 1024 * 1024;

export function blankCredentialsInEnviron(names: Iterable<string>, values: Iterable<string> = []): BlankOutcome {
  if (process.platform !== 'linux') return { blanked: [], skipped: 'only Linux exposes and lets a process rewrite its environment block' };
  const wantedNames = new Set(names);
  const wantedValues = new Set([...values].filter((v) => v !== ''));
  let region: { start: number; end: number };
  try {
    region = environRegion();
  } catch (err) {
    return { blanked: [], skipped: `cannot read /proc/self/stat (${describe(err)})` };
  }
  let fd: number;
  try {
    fd = openSync('/proc/self/mem', 'r+');
  } catch (err) {
    return { blanked: [], skipped: `cannot open /proc/self/mem (${describe(err)})` };
  }
  const blanked: string[] = [];
  try {
    const block = Buffer.alloc(region.end - region.start);
    readSync(fd, block, 0, block.length, region.start);
    for (const entry of entries(block)) {
      const { name, valueStart, valueEnd } = entry;
      if (valueEnd === valueStart) continue;
      const value = block.toString('utf8', valueStart, valueEnd);
      if (!wantedNames.has(name) && !wantedValues.has(value)) continue;
      // Move what getenv returns off these bytes before they are blanked (see the contract).
      const current = process.env[name];
      if (current !== undefined) process.env[name] = current;
      writeSync(fd, Buffer.alloc(valueEnd - valueStart), 0, valueEnd - valueStart, region.start + valueStart);
      blanked.push(name);
    }
  } catch (err) {
    return { blanked, skipped: `cannot rewrite the environment block through /proc/self/mem (${describe(err)})` };
  } finally {
    closeSync(fd);
  }
  return { blanked };
}

function environRegion(): { start: number; end: number } {
  const stat = readFileSync('/proc/self/stat', 'latin1');
  // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = Number(fields[ENV_START_FIELD]);
  const end = Number(fields[ENV_END_FIELD]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start <= 0 || end <= start || end - start > MAX_BLOCK_BYTES) {
    throw new Error(`no usable env_start/env_end (${fields[ENV_START_FIELD]}, ${fields[ENV_END_FIELD]})`);
  }
  return { start, end };
}

/** `NAME=value` entries of a NUL-separated block, with the byte range of each value. */
function* entries(block: Buffer): Generator<{ name: string; valueStart: number; valueEnd: number }> {
  let at = 0;
  while (at < block.length) {
    let end = block.indexOf(0, at);
    if (end === -1) end = block.length;
    const equals = block.indexOf(0x3d, at);
    if (equals > at && equals < end) yield { name: block.toString('utf8', at, equals), valueStart: equals + 1, valueEnd: end };
    at = end + 1;
  }
}

function describe(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
}
