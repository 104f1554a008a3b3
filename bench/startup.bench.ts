// Start-up cost: `--version` and a trivial `run` against the fake server, each beside bare
// `node -e 0`; and whether `run` loads any UI code (it must not).
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeServer, text } from '../test/support/fake-anthropic.js';
import { uiChunksAmong } from '../test/support/ui-chunks.js';
import { BIN, REPO, cliEnv, fmt, median, tempProject, timeAsync, timeSync } from './support.js';

const RUNS = 15;
const node = median(timeSync(process.execPath, ['-e', '0'], RUNS));
const version = median(timeSync(process.execPath, [BIN, '--version'], RUNS));

const server = await startFakeServer();
server.setHandler(() => text('ok'));
const { dir, project } = tempProject('oci-bench-startup-');
const env = cliEnv(dir, server.url);
const runTimes: number[] = [];
for (let i = 0; i <= 10; i++) {
  const r = await timeAsync(process.execPath, [BIN, 'run', 'say ok'], { cwd: project, env });
  if (r.code !== 0) throw new Error(`run failed: ${r.stderr}`);
  if (i > 0) runTimes.push(r.wallMs);
}
const run = median(runTimes);

// Which bundle chunks does `run` load? Chunk names cannot tell (Ink is bundled into
// `launch-*.js`), so each loaded chunk's source map says whether it holds UI code.
const traceFile = join(dir, 'imports.txt');
const traced = await timeAsync(process.execPath, ['--import', join(REPO, 'test', 'support', 'trace-loads.mjs'), BIN, 'run', 'say ok'], {
  cwd: project,
  env: { ...env, OPENCODE_INK_TRACE_LOADS: traceFile },
});
if (traced.code !== 0) throw new Error(`traced run failed: ${traced.stderr}`);
const loaded = readFileSync(traceFile, 'utf8').split('\n').filter(Boolean);
if (!loaded.some((u) => u.endsWith('/dist/boot.cjs'))) throw new Error('the import tracer recorded nothing from dist/');
const uiLoaded = uiChunksAmong(loaded, join(REPO, 'dist'));
await server.close();
rmSync(dir, { recursive: true, force: true });

console.log('## Start-up');
console.log('| measure | median | ratio to `node -e 0` |');
console.log('|---|---|---|');
console.log(`| \`node -e 0\` | ${fmt(node)} | 1.00 |`);
console.log(`| \`opencode-ink --version\` | ${fmt(version)} | ${(version / node).toFixed(2)} |`);
console.log(`| \`opencode-ink run\` (trivial, fake server) | ${fmt(run)} | ${(run / node).toFixed(2)} |`);
console.log(`\n\`run\` loaded ${loaded.length} modules; UI chunks among them: ${uiLoaded.length ? uiLoaded.join(', ') : 'none'}\n`);
if (uiLoaded.length) process.exitCode = 1;
