// The CLI and end-to-end tests drive the built binary, so build once before any test runs,
// unless dist/ already holds a build of the sources as they are (`.ci/run` has just built
// it; scripts/dist-stamp.mjs says how that is known).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { isDistCurrent } from '../scripts/dist-stamp.mjs';

const ROOT = join(import.meta.dirname, '..');

export default function setup(): void {
  if (isDistCurrent(ROOT, join(ROOT, 'dist'))) return;
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
}
