// What each command loads and costs to start (issue 36: "nothing loaded or started that the
// command does not use"): `--version`, `--help`, `sessions list`, `trust`, a one-reply `run`
// against the fake server and `acp` answering `initialize`, each interleaved with bare
// `node -e 0` so both see the same load. Per command: wall and CPU time (user + system, from
// GNU time: the steadier figure on a shared machine), peak RSS, and, from one traced run
// (test/support/trace-loads.mjs), how many of dist/'s files it loads and their size, and
// whether any of them holds the engine, SQLite, the UI or the model SDKs (from each chunk's
// source map). `run` is served by dist/run.js, one code-cached script, so its trace shows
// only dist/boot.cjs and the chunks that script imports lazily.
import { spawn } from 'node:child_process';
import { readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeServer, text } from '../test/support/fake-anthropic.js';
import { BIN, REPO, baseEnv, cliEnv, figure, fmt, median, tempProject } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
// The dist/ of the build measured (BENCH_BIN may name another checkout's).
const dist = realpathSync(join(dirname(BIN), '..', 'dist'));

interface Timed {
  wallMs: number;
  cpuMs: number;
  rssMb: number;
}

/** Runs a process under GNU time; `input` is written to its stdin, which is then closed. */
function timed(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '__TIME__ %U %S %M', process.execPath, ...args], { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.stdin.end(opts.input ?? '');
    child.on('close', (code) => {
      const wallMs = performance.now() - start;
      const m = /__TIME__ ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
      if (code !== 0 || !m) return reject(new Error(`${args.join(' ')} failed (${code}): ${stderr}`));
      resolve({ wallMs, cpuMs: (Number(m[1]) + Number(m[2])) * 1000, rssMb: Number(m[3]) / 1024 });
    });
  });
}

const server = await startFakeServer();
server.setHandler(() => text('ok'));
const { dir, project } = tempProject('oci-bench-commands-');
const env = cliEnv(dir, server.url);
const ACP_INIT = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`;

const commands: { name: string; args: string[]; input?: string }[] = [
  { name: '--version', args: ['--version'] },
  { name: '--help', args: ['--help'] },
  { name: 'sessions', args: ['sessions'] },
  { name: 'trust', args: ['trust'] },
  { name: 'run (one reply)', args: ['run', 'say ok'] },
  { name: 'acp (initialize, then stdin closes)', args: ['acp'], input: ACP_INIT },
];

/** Source groups a command should load only when it uses them. */
const GROUPS: [string, RegExp][] = [
  ['engine', /src\/core\/(engine|agent\/loop)/],
  ['store', /src\/core\/store\//],
  ['UI', /(node_modules\/(ink|react)\/|src\/ui\/)/],
  ['model SDK', /node_modules\/(@anthropic-ai|openai)\//],
  ['ACP SDK', /node_modules\/@agentclientprotocol\//],
];

function traced(args: string[], input: string | undefined): Promise<{ files: number; kb: number; groups: string[] }> {
  const file = join(dir, `trace-${Math.random().toString(36).slice(2)}.txt`);
  return timed(['--import', join(REPO, 'test', 'support', 'trace-loads.mjs'), BIN, ...args], {
    cwd: project,
    env: { ...env, OPENCODE_INK_TRACE_LOADS: file },
    ...(input ? { input } : {}),
  }).then(() => {
    const urls = readFileSync(file, 'utf8').split('\n').filter((u) => u.startsWith('file:'));
    const paths = [...new Set(urls.map((u) => fileURLToPath(u)))];
    const ours = paths.filter((p) => dirname(p) === dist && p.endsWith('.js'));
    // dist/run.js is compiled by dist/boot.cjs, not imported: count it when `run` uses it.
    if (args[0] === 'run') ours.push(join(dist, 'run.js'));
    const sources = new Set<string>();
    for (const chunk of ours) {
      const map = JSON.parse(readFileSync(`${chunk}.map`, 'utf8')) as { sources?: string[] };
      for (const s of map.sources ?? []) sources.add(s);
    }
    const groups = GROUPS.filter(([, re]) => [...sources].some((s) => re.test(s))).map(([name]) => name);
    if (paths.some((p) => p.includes('better-sqlite3'))) groups.push('SQLite');
    return { files: ours.length, kb: ours.reduce((sum, p) => sum + statSync(p).size, 0) / 1024, groups };
  });
}

const node: number[] = [];
const nodeCpu: number[] = [];
const rows: { name: string; wall: number[]; cpu: number[]; rss: number[] }[] = commands.map((c) => ({ name: c.name, wall: [], cpu: [], rss: [] }));
for (let i = 0; i <= RUNS; i++) {
  const bare = await timed(['-e', '0'], { cwd: project, env: baseEnv() });
  const results: Timed[] = [];
  for (const c of commands) results.push(await timed([BIN, ...c.args], { cwd: project, env, ...(c.input ? { input: c.input } : {}) }));
  // The first round writes the code caches; not counted.
  if (i === 0) continue;
  node.push(bare.wallMs);
  nodeCpu.push(bare.cpuMs);
  results.forEach((r, k) => {
    rows[k]!.wall.push(r.wallMs);
    rows[k]!.cpu.push(r.cpuMs);
    rows[k]!.rss.push(r.rssMb);
  });
}
const traces: Awaited<ReturnType<typeof traced>>[] = [];
for (const c of commands) traces.push(await traced(c.args, c.input));
await server.close();
rmSync(dir, { recursive: true, force: true });

const nodeMs = median(node);
const nodeCpuMs = median(nodeCpu);
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`## Start-up cost per command (median of ${RUNS}, interleaved with \`node -e 0\`; load average ${load})`);
console.log('| command | wall | × node | CPU | × node CPU | peak RSS | dist files loaded | of which | loads |');
console.log('|---|---|---|---|---|---|---|---|---|');
console.log(`| \`node -e 0\` | ${fmt(nodeMs)} | 1.00 | ${fmt(nodeCpuMs)} | 1.00 | | | | |`);
rows.forEach((r, k) => {
  const t = traces[k]!;
  const wall = median(r.wall);
  const cpu = median(r.cpu);
  console.log(
    `| \`${r.name}\` | ${fmt(wall)} | ${(wall / nodeMs).toFixed(2)} | ${fmt(cpu)} | ${(cpu / nodeCpuMs).toFixed(2)} | ${median(r.rss).toFixed(0)} MB | ${t.files} | ${t.kb.toFixed(0)} KB | ${t.groups.join(', ') || 'none of engine, store, SQLite, UI, SDKs'} |`,
  );
  figure(`command.${commands[k]!.args[0]}.wall`, wall, 'ms', nodeMs);
});
console.log('');
