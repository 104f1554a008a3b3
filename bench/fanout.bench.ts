// Fan-out: a parent that starts 10 `general` sub-agents in one message; each child's reply
// takes 300 ms of fake model latency; then the parent finishes. Measures the whole
// `opencode-ink run` process (wall time, peak RSS) and the spread between the first and
// the last child request reaching the server.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstUserText } from '../test/support/conversations.js';
import { reply, text, startFakeServer } from '../test/support/fake-anthropic.js';
import { BIN, cliEnv, fmt, median, tempProject, timeAsync } from './support.js';

const CHILDREN = 10;
const RUNS = 5;
const ROOT_PROMPT = 'fan out to ten sub-agents';
const server = await startFakeServer();
server.setHandler((req) => {
  const key = firstUserText(req);
  if (key === ROOT_PROMPT) {
    if (req.body.messages.length > 1) return text('All ten reports are in.');
    return reply(
      ...Array.from({ length: CHILDREN }, (_, i) => ({
        type: 'tool_use' as const,
        name: 'task',
        input: { description: `Part ${i}`, prompt: `child ${i}: report on part ${i}`, subagent_type: 'general' },
      })),
    );
  }
  return { ...text(`report for ${key}`), delayMs: 300 };
});

const walls: number[] = [];
const rss: number[] = [];
const spreads: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const { dir, project } = tempProject('oci-bench-fanout-');
  // The peers start all ten at once; our default runs 5 per parent turn and queues the rest.
  writeFileSync(join(project, '.opencoderc.json'), JSON.stringify({ subagents: { max_concurrency: CHILDREN } }));
  const before = server.requests.length;
  const r = await timeAsync(process.execPath, [BIN, 'run', ROOT_PROMPT], { cwd: project, env: cliEnv(dir, server.url) });
  if (r.code !== 0) throw new Error(`fan-out run failed (${r.code}): ${r.stderr}`);
  const childStarts = server.requests
    .slice(before)
    .filter((q) => firstUserText(q).startsWith('child '))
    .map((q) => q.receivedAt);
  if (childStarts.length !== CHILDREN) throw new Error(`expected ${CHILDREN} child requests, saw ${childStarts.length}`);
  walls.push(r.wallMs);
  rss.push(r.maxRssKb / 1024);
  spreads.push(Math.max(...childStarts) - Math.min(...childStarts));
  rmSync(dir, { recursive: true, force: true });
}
await server.close();

console.log(`## Fan-out (10 children × 300 ms model latency, max_concurrency 10, median of ${RUNS})`);
console.log('| measure | result | target |');
console.log('|---|---|---|');
console.log(`| wall time, whole process | ${fmt(median(walls))} | ≤ 550 ms (issue 14; floor ≈ 450 ms) |`);
console.log(`| peak RSS | ${median(rss).toFixed(0)} MB | ≤ 80 MB (issue 14) |`);
console.log(`| first → last child request | ${median(spreads).toFixed(1)} ms | ≤ 20 ms |\n`);
