// Where better-sqlite3's compiled addon is. The package finds it itself with the `bindings`
// package, which walks the call stack and tries a dozen folders: from a bundle (dist/, where
// the package's JavaScript is bundled and code-cached with the rest of the CLI) that walk
// starts at the wrong folder, and it costs every start a few milliseconds anyway. The
// package's install (prebuilt download or node-gyp) puts the addon in build/Release.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { packageRoot } from '../package-root.js';

let found: string | undefined;

/**
 * The addon file of the better-sqlite3 package this program resolves, for `new Database(file,
 * { nativeBinding })`; undefined when the package cannot be resolved from this module's place
 * (this code bundled into another program's file elsewhere, with better-sqlite3 left external),
 * where the package's own search is the one that knows; a clear error when it resolves but is
 * not built.
 */
export function sqliteAddonFile(): string | undefined {
  if (found) return found;
  const packageDir = ownDependency() ?? resolvedPackageDir();
  if (packageDir === undefined) return undefined;
  const candidates = ['Release', 'Debug'].map((build) => join(packageDir, 'build', build, 'better_sqlite3.node'));
  found = candidates.find((file) => existsSync(file));
  if (!found) throw new Error(`better-sqlite3 is not built: ${candidates[0]} does not exist (reinstall opencode-ink, or run \`npm rebuild better-sqlite3\`).`);
  return found;
}

/**
 * The package in this program's own node_modules, which is what resolving it from here finds
 * first (no folder of this package between here and its root holds a node_modules); one
 * `stat` instead of the resolver's walk and reading the package's manifest (~1.5 ms a start).
 */
function ownDependency(): string | undefined {
  try {
    const dir = join(packageRoot(), 'node_modules', 'better-sqlite3');
    return existsSync(join(dir, 'package.json')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** Where Node's resolver finds the package from here: hoisted into a parent's node_modules, for one. */
function resolvedPackageDir(): string | undefined {
  const require = createRequire(import.meta.url);
  try {
    return dirname(require.resolve('better-sqlite3/package.json'));
  } catch {
    try {
      // A package whose `exports` hides package.json: its main file is lib/index.js.
      return dirname(dirname(require.resolve('better-sqlite3')));
    } catch {
      return undefined;
    }
  }
}
