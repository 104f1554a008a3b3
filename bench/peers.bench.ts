// Fan-out against the peers in the same run (issue 36: "ten parallel children, wall ≤ 0.45×
// Claude Code's in the same run"). The scenario of bench/fanout.bench.ts — a parent whose
// first reply calls ten sub-agents, each child answered after 300 ms, the parent's second
// turn ends the run — is run with opencode-ink (the built bin, max_concurrency 10 in the
// user's config, as fanout.bench.ts does) and with Claude Code (`claude -p`, its `Agent`
// tool with `subagent_type: "general-purpose"`), both through one front (bench/peer-front.ts)
// on one fake server, in interleaved rounds (ours, theirs, ours, theirs…) after one unmeasured
// run each, every program with its own home shared across its runs (warm, as a user's runs
// are). Reports medians of wall time, peak RSS (the largest process, GNU time), the
// first-to-last child request spread, the time to the first model request and from the last
// child's reply to the exit, what else each program asked the API, and the median of the
// rounds' wall-time ratios (ours ÷ theirs) as the figure `peers.fanout.ratio`. Without Claude Code it prints one line
// and skips (bench/peer-programs.ts says where it looks).
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedRequest } from '../test/support/fake-anthropic.js';
import { FANOUT_CHILDREN, FANOUT_PROMPT, isChildRequest, startFanOutServer } from './fanout-scenario.js';
import { startPeerFront, type SideRequest } from './peer-front.js';
import { claudeEnv, findClaudeCode } from './peer-programs.js';
import { BIN, REPO, cliEnv, figure, fmt, median, tempProject, timeAsync } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
/** Far above any run seen (Claude Code ~2 s, ours ~0.7 s): only a run that hangs meets it. */
const RUN_DEADLINE_MS = 60_000;

let search: ReturnType<typeof findClaudeCode>;
try {
  search = findClaudeCode();
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
if ('missing' in search) {
  console.log(`## Fan-out against Claude Code: skipped, ${search.missing}.\n`);
  process.exit(0);
}
const claude = search.found;

interface Sample {
  wall: number;
  rss: number;
  spread: number;
  /** From the spawn to the first model request: the program's start. */
  toFirstRequest: number;
  /** From the last child's reply to the process's end: the parent's last turn and the exit. */
  lastChildToExit: number;
  modelRequests: number;
  sideRequests: SideRequest[];
}

interface Program {
  name: string;
  /** Runs the scenario once against `apiUrl`; returns the timed run. */
  run(apiUrl: string): ReturnType<typeof timeAsync>;
  samples: Sample[];
  cleanup(): void;
}

function ours(): Program {
  const { dir, project } = tempProject('oci-bench-peers-ours-');
  // The peers start all ten at once; ours runs 5 per turn unless told (see fanout.bench.ts).
  mkdirSync(join(dir, 'config'), { recursive: true });
  writeFileSync(join(dir, 'config', 'config.json'), JSON.stringify({ subagents: { max_concurrency: FANOUT_CHILDREN } }));
  return {
    name: 'opencode-ink',
    run: (apiUrl) => timeAsync(process.execPath, [BIN, 'run', FANOUT_PROMPT], { cwd: project, env: cliEnv(dir, apiUrl), deadlineMs: RUN_DEADLINE_MS }),
    samples: [],
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function claudeCode(bin: string): Program {
  const { dir, project } = tempProject('oci-bench-peers-claude-');
  return {
    name: 'Claude Code',
    run: (apiUrl) => timeAsync(bin, ['-p', FANOUT_PROMPT], { cwd: project, env: claudeEnv(dir, apiUrl), deadlineMs: RUN_DEADLINE_MS }),
    samples: [],
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const server = await startFanOutServer();
const front = await startPeerFront(server.url);

/** One run of `program`; throws, saying what it saw, unless all ten children reached the server. */
async function measure(program: Program): Promise<Sample> {
  const requestsBefore = server.requests.length;
  const sideBefore = front.sideRequests.length;
  const startedAt = performance.timeOrigin + performance.now();
  const r = await program.run(front.url);
  if (r.code !== 0) throw new Error(`${program.name}'s fan-out run exited with ${r.code}: ${(r.stderr || r.stdout).slice(-800)}`);
  const requests: RecordedRequest[] = server.requests.slice(requestsBefore);
  const children = requests.filter(isChildRequest);
  const childStarts = children.map((q) => q.receivedAt);
  if (childStarts.length !== FANOUT_CHILDREN) {
    throw new Error(`${program.name} sent ${childStarts.length} child requests, not ${FANOUT_CHILDREN} (${requests.length} model requests in all); its output: ${(r.stdout + r.stderr).slice(-800)}`);
  }
  return {
    wall: r.wallMs,
    rss: r.maxRssKb / 1024,
    spread: Math.max(...childStarts) - Math.min(...childStarts),
    toFirstRequest: Math.min(...requests.map((q) => q.receivedAt)) - startedAt,
    lastChildToExit: startedAt + r.wallMs - Math.max(...children.map((q) => q.finishedAt ?? Number.NaN)),
    modelRequests: requests.length,
    sideRequests: front.sideRequests.slice(sideBefore),
  };
}

const programs = [ours(), claudeCode(claude.bin)];
const loadBefore = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
try {
  for (const p of programs) await measure(p); // warm-up: first-run files, caches
  for (let i = 0; i < RUNS; i++) for (const p of programs) p.samples.push(await measure(p));
} finally {
  for (const p of programs) p.cleanup();
  await front.close();
  await server.close();
}
const loadAfter = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

const [a, b] = programs as [Program, Program];
const med = (p: Program, pick: (s: Sample) => number) => median(p.samples.map(pick));
const ratio = (pick: (s: Sample) => number) => med(a, pick) / med(b, pick);
/** Each kind of side request with how many times a run made it, e.g. `HEAD / ×1`. */
function sideSummary(p: Program): string {
  const counts = new Map<string, number>();
  for (const s of p.samples) for (const q of s.sideRequests) counts.set(`${q.method} ${q.path}`, (counts.get(`${q.method} ${q.path}`) ?? 0) + 1);
  if (counts.size === 0) return 'none';
  return [...counts].map(([what, n]) => `\`${what}\` ×${(n / p.samples.length).toFixed(n % p.samples.length ? 1 : 0)}`).join(', ');
}
// Each round's two runs are neighbours in time: their ratio is the least disturbed by the
// load of a shared machine drifting between rounds, so the figure is these ratios' median.
const roundRatios = a.samples.map((s, i) => s.wall / b.samples[i]!.wall);
const wallRatio = median(roundRatios);
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
const ourVersion = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

console.log(`## Fan-out against Claude Code in the same run (10 children × 300 ms, ${RUNS} interleaved rounds, medians)`);
console.log(
  `opencode-ink ${ourVersion} (${commit}, \`run\`), Claude Code ${claude.version} (\`claude -p\`, ${claude.bin}); load average ${loadBefore} → ${loadAfter}; ${cpus().length} cores.\n`,
);
console.log(`| measure | ${a.name} | ${b.name} | ours ÷ theirs | goal |`);
console.log('|---|---|---|---|---|');
console.log(`| wall time, whole process | ${fmt(med(a, (s) => s.wall))} | ${fmt(med(b, (s) => s.wall))} | ${wallRatio.toFixed(2)}× (median of the rounds' ratios, ${Math.min(...roundRatios).toFixed(2)}–${Math.max(...roundRatios).toFixed(2)}; of the medians ${ratio((s) => s.wall).toFixed(2)}×) | ≤ 0.45× (issue 36) |`);
console.log(`| start → first model request | ${fmt(med(a, (s) => s.toFirstRequest))} | ${fmt(med(b, (s) => s.toFirstRequest))} | | |`);
console.log(`| last child answered → exit | ${fmt(med(a, (s) => s.lastChildToExit))} | ${fmt(med(b, (s) => s.lastChildToExit))} | | |`);
console.log(`| peak RSS, largest process | ${med(a, (s) => s.rss).toFixed(0)} MB | ${med(b, (s) => s.rss).toFixed(0)} MB | ${ratio((s) => s.rss).toFixed(2)}× | |`);
console.log(`| first → last child request | ${med(a, (s) => s.spread).toFixed(1)} ms | ${med(b, (s) => s.spread).toFixed(1)} ms | | ≤ 15 ms (ours, issue 36) |`);
console.log(`| model requests per run | ${med(a, (s) => s.modelRequests)} | ${med(b, (s) => s.modelRequests)} | | |`);
console.log(`| other API requests per run | ${sideSummary(a)} | ${sideSummary(b)} | | |\n`);
figure('peers.fanout.ratio', wallRatio, 'ratio');
