// Fan-out against the peers in the same run (issue 36: "ten parallel children, wall ≤ 0.45×
// Claude Code's in the same run"). The scenario of bench/fanout.bench.ts — a parent whose
// first reply calls ten sub-agents, each child answered after 300 ms, the parent's second
// turn ends the run — is run with opencode-ink (the built bin, max_concurrency 10 in the
// user's config, as fanout.bench.ts does) and with each peer found (bench/peer-programs.ts:
// Claude Code's `claude -p` and its `Agent` tool, OpenCode's `opencode run` and its `task`
// tool; `BENCH_PEERS=claude,opencode` picks), all through one front (bench/peer-front.ts) on
// one fake server, in interleaved rounds (ours, Claude Code, OpenCode, ours, …) after one
// unmeasured run each, every program with its own home shared across its runs (warm, as a
// user's runs are). Reports medians of wall time, peak RSS (the largest process, GNU time),
// the first-to-last child request spread, the time to the first model request and from the
// last child's reply to the exit, what else each program asked the API, and the median of
// the rounds' wall-time ratios, ours ÷ Claude Code's, as the figure `peers.fanout.ratio`.
// Without any peer it prints one line and skips.
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedRequest } from '../test/support/fake-anthropic.js';
import { FANOUT_CHILDREN, FANOUT_PROMPT, isChildRequest, startFanOutServer } from './fanout-scenario.js';
import { startPeerFront, type SideRequest } from './peer-front.js';
import { CLAUDE_CODE, PEERS, findPeer, type FoundPeer } from './peer-programs.js';
import { BIN, REPO, cliEnv, figure, fmt, median, tempProject, timeAsync } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
if (!Number.isInteger(RUNS) || RUNS < 1) {
  console.error(`BENCH_RUNS must be a whole number of rounds, 1 or more; it is "${process.env.BENCH_RUNS}".`);
  process.exit(1);
}
/** Far above any run seen (OpenCode ~7 s, Claude Code ~2 s): only a run that hangs meets it. */
const RUN_DEADLINE_MS = 90_000;

/** The peers asked for (`BENCH_PEERS`, ids separated by commas; all by default) that are found. */
function peersToMeasure(): FoundPeer[] {
  const listed = process.env.BENCH_PEERS?.split(',').map((id) => id.trim()).filter(Boolean) ?? [];
  const asked = listed.length ? listed : undefined;
  const unknown = listed.filter((id) => !PEERS.some((p) => p.id === id));
  if (unknown.length) throw new Error(`BENCH_PEERS names ${unknown.join(', ')}; known peers: ${PEERS.map((p) => p.id).join(', ')}`);
  const found: FoundPeer[] = [];
  for (const peer of PEERS.filter((p) => !asked || asked.includes(p.id))) {
    const search = findPeer(peer);
    if ('found' in search) found.push(search.found);
    else console.log(`Fan-out against ${peer.name}: skipped, ${search.missing}.`);
  }
  return found;
}

let peers: FoundPeer[];
try {
  peers = peersToMeasure();
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
if (peers.length === 0) {
  console.log('');
  process.exit(0);
}

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
  /** Its name, version and command line, for the table's heading. */
  label: string;
  /** Runs the scenario once against `apiUrl`. */
  run(apiUrl: string): ReturnType<typeof timeAsync>;
  samples: Sample[];
  cleanup(): void;
}

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
const ourVersion = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

function ours(): Program {
  const { dir, project } = tempProject('oci-bench-peers-ours-');
  // The peers start all ten at once; ours runs 5 per turn unless told (see fanout.bench.ts).
  mkdirSync(join(dir, 'config'), { recursive: true });
  writeFileSync(join(dir, 'config', 'config.json'), JSON.stringify({ subagents: { max_concurrency: FANOUT_CHILDREN } }));
  return {
    name: 'opencode-ink',
    label: `opencode-ink ${ourVersion} (${commit})`,
    run: (apiUrl) => timeAsync(process.execPath, [BIN, 'run', FANOUT_PROMPT], { cwd: project, env: cliEnv(dir, apiUrl), deadlineMs: RUN_DEADLINE_MS }),
    samples: [],
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function peerProgram({ peer, bin, version }: FoundPeer): Program {
  const { dir, project } = tempProject(`oci-bench-peers-${peer.id}-`);
  return {
    name: peer.name,
    label: `${peer.name} ${version} (\`${[bin, ...peer.args('…')].join(' ')}\`)`,
    run: (apiUrl) => timeAsync(bin, peer.args(FANOUT_PROMPT), { cwd: project, env: peer.env(dir, apiUrl), deadlineMs: RUN_DEADLINE_MS }),
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

const mine = ours();
const started = [mine, ...peers.map(peerProgram)];
/** The programs still compared: a peer whose run fails is dropped, saying why, and the rest go on. */
let programs = started;

/** One run of `p`, or undefined when it is a peer's and failed (ours failing ends the bench). */
async function attempt(p: Program): Promise<Sample | undefined> {
  try {
    return await measure(p);
  } catch (err) {
    if (p === mine) throw err;
    console.log(`${p.name}: dropped from the comparison: ${(err as Error).message}\n`);
    programs = programs.filter((q) => q !== p);
    process.exitCode = 1;
    return undefined;
  }
}

const loadBefore = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
try {
  for (const p of programs) await attempt(p); // warm-up: first-run files, caches
  for (let i = 0; i < RUNS; i++) {
    for (const p of programs) {
      const sample = await attempt(p);
      if (sample) p.samples.push(sample);
    }
  }
} finally {
  for (const p of started) p.cleanup();
  await front.close();
  await server.close();
}
const loadAfter = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

const theirs = programs.filter((p) => p !== mine);
const med = (p: Program, pick: (s: Sample) => number) => median(p.samples.map(pick));
/** Each kind of side request with how many times a run made it, e.g. `HEAD /` ×1. */
function sideSummary(p: Program): string {
  const counts = new Map<string, number>();
  for (const s of p.samples) for (const q of s.sideRequests) counts.set(`${q.method} ${q.path}`, (counts.get(`${q.method} ${q.path}`) ?? 0) + 1);
  if (counts.size === 0) return 'none';
  return [...counts].map(([what, n]) => `\`${what}\` ×${(n / p.samples.length).toFixed(n % p.samples.length ? 1 : 0)}`).join(', ');
}
// Each round's runs are neighbours in time: their ratio is the least disturbed by the load of
// a shared machine drifting between rounds, so a comparison is these ratios' median.
const roundRatios = (peer: Program) => mine.samples.map((s, i) => s.wall / peer.samples[i]!.wall);

console.log(`## Fan-out against the peers in the same run (10 children × 300 ms, ${RUNS} interleaved rounds, medians)`);
console.log(
  `${programs.map((p) => p.label).join(', ')}; load average ${loadBefore} → ${loadAfter}; ${cpus().length} cores.\n`,
);
const row = (measure: string, cell: (p: Program) => string) => console.log(`| ${measure} | ${programs.map(cell).join(' | ')} |`);
console.log(`| measure | ${programs.map((p) => p.name).join(' | ')} |`);
console.log(`|---|${programs.map(() => '---').join('|')}|`);
row('wall time, whole process', (p) => fmt(med(p, (s) => s.wall)));
row('start → first model request', (p) => fmt(med(p, (s) => s.toFirstRequest)));
row('last child answered → exit', (p) => fmt(med(p, (s) => s.lastChildToExit)));
row('peak RSS, largest process', (p) => `${med(p, (s) => s.rss).toFixed(0)} MB`);
row('first → last child request', (p) => `${med(p, (s) => s.spread).toFixed(1)} ms`);
row('model requests per run', (p) => String(med(p, (s) => s.modelRequests)));
row('other API requests per run', sideSummary);
console.log('');
for (const peer of theirs) {
  const ratios = roundRatios(peer);
  const goal = peer.name === CLAUDE_CODE.name ? ' (goal ≤ 0.45×, issue 36)' : '';
  console.log(
    `- ours ÷ ${peer.name}'s wall: **${median(ratios).toFixed(2)}×**${goal}, the median of the rounds' ratios (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}); peak RSS ${(med(mine, (s) => s.rss) / med(peer, (s) => s.rss)).toFixed(2)}×.`,
  );
  if (peer.name === CLAUDE_CODE.name) figure('peers.fanout.ratio', median(ratios), 'ratio');
}
console.log('');
