// Whether dist/ was built from the sources as they are now. scripts/build.mjs hashes its
// inputs before building and, once everything is written, leaves the hash in dist/.stamp.json
// with the list of files it made; the test run's global setup skips the build only when the
// inputs hash the same and every listed file is still there. Anything else (no stamp, a build
// that failed half way and so wrote none, a changed, added or removed input, another Node
// version, a deleted output) means building again: a stale dist is never used.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const STAMP = '.stamp.json';

/**
 * What the build reads, relative to the repository: the folders whole, the files if present.
 * node_modules/.package-lock.json is npm's record of what is installed, the bundled
 * dependencies' versions included.
 */
const INPUT_DIRS = ['src', 'scripts'];
const INPUT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.sdk.json', join('node_modules', '.package-lock.json')];

/** Every file under `dir` (relative to `root`, `/`-separated), sorted; none when it is missing. */
function filesUnder(root, dir) {
  const absolute = join(root, dir);
  if (!existsSync(absolute)) return [];
  return readdirSync(absolute, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath ?? entry.path, entry.name)).split(sep).join('/'))
    .sort();
}

/**
 * A hash of everything the build of `root` depends on: the input files' names and contents,
 * and the Node version and architecture (the build's code caches are only valid for those).
 */
export function buildInputsHash(root) {
  const hash = createHash('sha256');
  hash.update(`${process.version} ${process.arch}\0`);
  const files = [...INPUT_DIRS.flatMap((dir) => filesUnder(root, dir)), ...INPUT_FILES.filter((file) => existsSync(join(root, file)))];
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Writes `outDir`'s stamp: `inputsHash` (taken before building) and the files now in `outDir`. */
export function writeDistStamp(outDir, inputsHash) {
  const outputs = filesUnder(outDir, '.');
  writeFileSync(join(outDir, STAMP), `${JSON.stringify({ inputsHash, outputs }, null, 2)}\n`);
}

/** Whether `outDir` holds a complete build of `root` as it is now (see the top of this file). */
export function isDistCurrent(root, outDir) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(outDir, STAMP), 'utf8'));
  } catch {
    return false;
  }
  if (typeof stamp !== 'object' || stamp === null || typeof stamp.inputsHash !== 'string' || !Array.isArray(stamp.outputs)) return false;
  if (!stamp.outputs.every((file) => typeof file === 'string' && existsSync(join(outDir, file)) && statSync(join(outDir, file)).isFile())) return false;
  return stamp.inputsHash === buildInputsHash(root);
}
