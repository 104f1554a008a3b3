// `npm run bench`: bundles each bench/*.bench.ts with esbuild (they import the TypeScript
// fake server and store directly) and runs them one after another in fresh processes.
// Results are printed as markdown; copy them into bench/RESULTS.md with the date.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', '.tmp', 'bench');
mkdirSync(out, { recursive: true });
const only = process.argv.slice(2);
const benches = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)));

for (const file of benches) {
  const outfile = join(out, file.replace(/\.ts$/, '.mjs'));
  await build({
    entryPoints: [join(here, file)],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  // Bundled with packages external: React picks its production build from the environment.
  // Colours on, as in a real terminal: styled text costs Ink noticeably more to draw.
  const env = { ...process.env, NODE_ENV: 'production', FORCE_COLOR: process.env.FORCE_COLOR ?? '2' };
  const result = spawnSync(process.execPath, [outfile], { stdio: 'inherit', env });
  if (result.status !== 0) process.exitCode = 1;
}
