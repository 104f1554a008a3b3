// The trivial `run` (one instant reply from the fake server), phase by phase, beside bare
// `node -e 0` timed in the same run: from spawn to the `session.created` event, to the
// request reaching the server, to `turn.completed`, and from there to the process's exit.
// Event times come from `--format json` (wall clock of the same machine).
//
// Both run in the same environment (bench/support.ts baseEnv); when this machine sets
// NODE_EXTRA_CA_CERTS, which costs every Node start the same, the pair is measured with it
// and again without it. The first runs write dist/run.js's code cache; they are not counted.
import { rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { startFakeServer, text } from '../test/support/fake-anthropic.js';
import { BIN, MACHINE_SETS_CA_CERTS, baseEnv, cliEnv, figure, fmt, median, tempProject, timeAsync } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const server = await startFakeServer();
server.setHandler(() => text('ok'));
const { dir, project } = tempProject('oci-bench-phases-');

interface Phases {
  created: number;
  request: number;
  completed: number;
  exit: number;
}

function phased(env: NodeJS.ProcessEnv): Promise<Phases> {
  return new Promise((resolve, reject) => {
    const before = server.requests.length;
    const start = performance.timeOrigin + performance.now();
    const child = spawn(process.execPath, [BIN, 'run', '--format', 'json', 'say ok'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const end = performance.timeOrigin + performance.now();
      if (code !== 0) return reject(new Error(`run failed (${code}): ${err}`));
      const events = out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; ts?: number });
      const at = (type: string) => events.find((e) => e.type === type)?.ts ?? Number.NaN;
      const request = server.requests[before]?.receivedAt ?? Number.NaN;
      resolve({ created: at('session.created') - start, request: request - start, completed: at('turn.completed') - start, exit: end - start });
    });
  });
}

// Interleaved, so both see the same load.
async function measure(withCaCerts: boolean): Promise<void> {
  const env = cliEnv(dir, server.url, withCaCerts);
  const node: number[] = [];
  const runs: number[] = [];
  const phases: Phases[] = [];
  for (let i = 0; i <= RUNS; i++) {
    // Both timed the same way (GNU time, spawned asynchronously, output piped to this process).
    const n = await timeAsync(process.execPath, ['-e', '0'], { cwd: project, env: baseEnv(withCaCerts) });
    if (n.code !== 0) throw new Error(`node -e 0 failed: ${n.stderr}`);
    const r = await timeAsync(process.execPath, [BIN, 'run', 'say ok'], { cwd: project, env });
    if (r.code !== 0) throw new Error(`run failed: ${r.stderr}`);
    const p = await phased(env);
    if (i === 0) continue;
    node.push(n.wallMs);
    runs.push(r.wallMs);
    phases.push(p);
  }
  const m = (pick: (p: Phases) => number) => median(phases.map(pick));
  const nodeMs = median(node);
  const runMs = median(runs);
  const certs = !MACHINE_SETS_CA_CERTS ? '' : withCaCerts ? ', NODE_EXTRA_CA_CERTS set (as on this machine)' : ', NODE_EXTRA_CA_CERTS unset';
  console.log(`## Trivial run (one instant reply), interleaved with \`node -e 0\`, median of ${RUNS}${certs}`);
  console.log('| measure | median | ratio to `node -e 0` | goal |');
  console.log('|---|---|---|---|');
  console.log(`| \`node -e 0\` | ${fmt(nodeMs)} | 1.00 | |`);
  console.log(`| **\`opencode-ink run "say ok"\`, wall** | ${fmt(runMs)} | **${(runMs / nodeMs).toFixed(2)}×** | ≤ 2× |`);
  console.log(`| our own share (run − node) | ${fmt(runMs - nodeMs)} | | |`);
  // The summary's figure: in the environment the machine's own `node -e 0` is timed in.
  if (withCaCerts === MACHINE_SETS_CA_CERTS) figure('run.wall', runMs, 'ms', nodeMs);
  console.log('\n| phase (`--format json` run, ms from spawn) | median |');
  console.log('|---|---|');
  console.log(`| \`session.created\` | ${fmt(m((p) => p.created))} |`);
  console.log(`| request reaches the server | ${fmt(m((p) => p.request))} (+${fmt(m((p) => p.request - p.created))}) |`);
  console.log(`| \`turn.completed\` | ${fmt(m((p) => p.completed))} (+${fmt(m((p) => p.completed - p.request))}) |`);
  console.log(`| process exit | ${fmt(m((p) => p.exit))} (+${fmt(m((p) => p.exit - p.completed))}) |\n`);
}

if (MACHINE_SETS_CA_CERTS) await measure(true);
await measure(false);
await server.close();
rmSync(dir, { recursive: true, force: true });
