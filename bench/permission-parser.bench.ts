// The bash permission parser: the first load (web-tree-sitter's runtime and the bash grammar,
// both WebAssembly, compiled on the first bash check) in fresh processes, and the cost of
// one check afterwards (parse, walk, decide) over a mix of plain and adversarial commands.
// The first load is timed inside each process from the first import to the first decision;
// `node -e 0` is the process start-up it adds to, printed for the ratio.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { analyzeBash, decideBash } from '../src/core/permission/bash-match.js';
import { DEFAULT_RULES, rulesFromConfig } from '../src/core/permission/rules.js';
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
console.log(`| \`node -e 0\`, median | ${f(bare)} (first load = ${(median(first) / bare).toFixed(2)}× a bare Node start) |`);
console.log(`| one check, warm, mix of ${COMMANDS.length} commands (plain to adversarial) | ${perCheckUs.toFixed(0)} µs |`);
console.log(`| one check of a 501-command line (${long.length} chars) | ${f(longMs)} (${longAnalysis.commands.length} simple commands) |\n`);
