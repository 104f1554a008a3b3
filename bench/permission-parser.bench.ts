// The bash permission parser: the first load (web-tree-sitter's runtime and the bash grammar,
// both WebAssembly, compiled on the first bash check) in fresh processes, and the cost of
// one check afterwards (parse, walk, decide) over a mix of plain and adversarial commands.
// The first load is timed inside each process from the first import to the first decision;
// `node -e 0` is the process start-up it adds to, printed for the ratio.
// Then the same first check as a user meets it: in a fresh process, a session's first model
// request (a real SDK request to the fake server, answered after a fast model's delay) comes
// back with a bash call whose events arrive CALL_CHUNK_MS apart, as a model writes a short
// command; the agent loop's warm-up starts at the call's first event, and once the reply is
// in, the first check is timed. The warm-up's own cost is timed alone in other fresh processes, with the longest
// stall it causes to the event loop (what a streaming reply would feel).
import { spawnSync } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { warmUpForToolCall } from '../src/core/agent/parser-warm-up.js';
import { analyzeBash, decideBash } from '../src/core/permission/bash-match.js';
import { warmBashParser } from '../src/core/permission/bash-parser.js';
import { DEFAULT_RULES, rulesFromConfig } from '../src/core/permission/rules.js';
import { createProvider } from '../src/core/provider/index.js';
import { bashTool } from '../src/core/tools/bash.js';
import { startFakeServer, toolUse } from '../test/support/fake-anthropic.js';
import { median, timeSync } from './support.js';

const RULES = [...DEFAULT_RULES, ...rulesFromConfig({ bash: { '*': 'ask', 'git status*': 'allow', 'rm *': 'deny' } })];
const COMMANDS = [
  'git status',
  'git status --short 2>&1 | head -20',
  'npm test -- --run && git diff --stat',
  'git status; touch X',
  'FOO=$(touch X) git status > ~/.bashrc',
  'find . -name "*.ts" | xargs -0 grep -n TODO',
  'bash -c "rm x" && eval "sh -c \'r\'\'m y\'"',
  'for f in src/*.ts; do if grep -q x "$f"; then echo "$f"; fi; done',
  'cat <<EOF > out.txt\n$(date)\nEOF',
  'sudo -u root env -i nice -n 5 timeout 5 /bin/rm -rf /tmp/x',
];

/** A fast model's time to its first answer; real ones take 0.5 to several seconds. */
const MODEL_REPLY_MS = 300;
/** Between a bash call's stream events: its few frames then take ~0.2 s, a short command's writing time. */
const CALL_CHUNK_MS = 40;

if (process.env.BENCH_PARSER_CHILD === 'warm-up') {
  // One fresh process: the warm-up alone, then the first check.
  const stalls = monitorEventLoopDelay({ resolution: 1 });
  stalls.enable();
  const start = performance.now();
  await warmBashParser();
  const warmMs = performance.now() - start;
  stalls.disable();
  const check = performance.now();
  decideBash(RULES, await analyzeBash('git status && rm -rf x'));
  process.stdout.write(JSON.stringify({ warmMs, stallMs: stalls.max / 1e6, firstMs: performance.now() - check }));
  process.exit(0);
}

if (process.env.BENCH_PARSER_CHILD === 'after-request') {
  // One fresh process: the first model request of a session with bash, then the first check.
  const server = await startFakeServer();
  server.setHandler(() => ({ ...toolUse('bash', { command: 'git status && rm -rf x' }), delayMs: MODEL_REPLY_MS, chunkDelayMs: CALL_CHUNK_MS }));
  const provider = createProvider('anthropic', { apiKey: 'bench-key', baseURL: server.url, maxRetries: 0 });
  const request = {
    model: 'claude-sonnet-4-5',
    system: 'bench',
    messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'check the status' }] }],
    tools: [{ name: bashTool.name, description: bashTool.description, input_schema: { type: 'object' } }],
    maxTokens: 1000,
    signal: new AbortController().signal,
  };
  const sent = performance.now();
  const response = await provider.stream(request, (event) => {
    if (event.type === 'tool_use.started') warmUpForToolCall(event.name);
  });
  const replyMs = performance.now() - sent;
  const call = response.content.find((part) => part.type === 'tool_use');
  if (call?.type !== 'tool_use') throw new Error('the fake model did not ask for bash');
  const check = performance.now();
  decideBash(RULES, await analyzeBash(String((call.input as { command: string }).command)));
  process.stdout.write(JSON.stringify({ replyMs, firstMs: performance.now() - check }));
  await server.close();
  process.exit(0);
}

if (process.env.BENCH_PARSER_CHILD) {
  // One fresh process: time from here to the first decision.
  const start = performance.now();
  const analysis = await analyzeBash('git status && rm -rf x');
  decideBash(RULES, analysis);
  const firstMs = performance.now() - start;
  const again = performance.now();
  decideBash(RULES, await analyzeBash('git status && rm -rf y'));
  process.stdout.write(JSON.stringify({ firstMs, secondMs: performance.now() - again }));
  process.exit(0);
}

const self = fileURLToPath(import.meta.url);
const RUNS = 15;
const first: number[] = [];
const second: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const r = spawnSync(process.execPath, [self], { env: { ...process.env, BENCH_PARSER_CHILD: '1' }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  const { firstMs, secondMs } = JSON.parse(r.stdout) as { firstMs: number; secondMs: number };
  first.push(firstMs);
  second.push(secondMs);
}
const bare = median(timeSync(process.execPath, ['-e', '0'], RUNS));

function children<T>(mode: string): T[] {
  const out: T[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync(process.execPath, [self], { env: { ...process.env, BENCH_PARSER_CHILD: mode }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${mode} child failed: ${r.stderr}`);
    out.push(JSON.parse(r.stdout) as T);
  }
  return out;
}
const warmUps = children<{ warmMs: number; stallMs: number; firstMs: number }>('warm-up');
const afterRequest = children<{ replyMs: number; firstMs: number }>('after-request');

// Per check, warm: every command of the mix analysed and decided, many rounds.
for (const c of COMMANDS) decideBash(RULES, await analyzeBash(c));
const ROUNDS = 300;
const loopStart = performance.now();
for (let i = 0; i < ROUNDS; i++) for (const c of COMMANDS) decideBash(RULES, await analyzeBash(c));
const perCheckUs = ((performance.now() - loopStart) * 1000) / (ROUNDS * COMMANDS.length);
const long = `${'git status && '.repeat(500)}true`;
const longStart = performance.now();
const longAnalysis = await analyzeBash(long);
decideBash(RULES, longAnalysis);
const longMs = performance.now() - longStart;

const f = (ms: number) => `${ms.toFixed(1)} ms`;
console.log('## Bash permission parser');
console.log('| measure | result |');
console.log('|---|---|');
console.log(`| first check in a fresh process (load runtime + grammar, parse, decide), median of ${RUNS} | ${f(median(first))} (min ${f(Math.min(...first))}, max ${f(Math.max(...first))}) |`);
console.log(`| second check in that process | ${f(median(second))} |`);
const firstAfter = afterRequest.map((r) => r.firstMs);
console.log(`| first check after the warm-up that starts as the model begins a bash call (fake reply after ${MODEL_REPLY_MS} ms, its events ${CALL_CHUNK_MS} ms apart; took ${f(median(afterRequest.map((r) => r.replyMs)))}), median of ${RUNS} | ${f(median(firstAfter))} (min ${f(Math.min(...firstAfter))}, max ${f(Math.max(...firstAfter))}) |`);
console.log(`| the warm-up alone (load runtime + grammar, one analysis), median of ${RUNS} | ${f(median(warmUps.map((r) => r.warmMs)))}; longest event-loop stall ${f(median(warmUps.map((r) => r.stallMs)))}; first check after it ${f(median(warmUps.map((r) => r.firstMs)))} |`);
console.log(`| \`node -e 0\`, median | ${f(bare)} (first load = ${(median(first) / bare).toFixed(2)}× a bare Node start) |`);
console.log(`| one check, warm, mix of ${COMMANDS.length} commands (plain to adversarial) | ${perCheckUs.toFixed(0)} µs |`);
console.log(`| one check of a 501-command line (${long.length} chars) | ${f(longMs)} (${longAnalysis.commands.length} simple commands) |\n`);
