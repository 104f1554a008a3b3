// The CLI and end-to-end tests drive the built binary, so build once before any test runs.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export default function setup(): void {
  execFileSync(process.execPath, [join(import.meta.dirname, '..', 'scripts', 'build.mjs')], { stdio: 'inherit' });
}
