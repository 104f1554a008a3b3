// Children's memory: one `opencode-ink run` whose parent starts 10 `general` sub-agents per
// turn for 10 turns (100 children); each child reads a ~20 KB file (its tool output) and
// reports. Peak RSS (GNU time) of that run against a run of one such turn (10 children):
// the difference over the 90 extra children, per 10, is what finished children cost to
// keep. The parent's own history keeps every child's short report, as it must.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstUserText } from '../test/support/conversations.js';
import { reply, text, startFakeServer } from '../test/support/fake-anthropic.js';
import { BIN, cliEnv, figure, fmt, median, tempProject, timeAsync } from './support.js';

const PER_TURN = 10;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PROMPT = 'spawn children in rounds';
const LINE = `${'x'.repeat(49)}\n`;
const BIG = LINE.repeat(Math.ceil(20_000 / LINE.length));

let turns = 1;
let bigPath = '';
const server = await startFakeServer();
server.setHandler((req) => {
  const key = firstUserText(req);
  const answered = (req.body.messages.length - 1) / 2;
  if (key === PROMPT) {
    if (answered >= turns) return text('All reports are in.');
    return reply(
      ...Array.from({ length: PER_TURN }, (_, i) => ({
        type: 'tool_use' as const,
        name: 'task',
        input: { description: `Part ${answered}.${i}`, prompt: `child ${answered}.${i}: read the file and report`, subagent_type: 'general' },
      })),
    );
  }
  if (answered === 0) return reply({ type: 'tool_use' as const, name: 'read', input: { file_path: bigPath } });
  return text(`report for ${key}: the file holds ${BIG.length} bytes of x.`);
});

async function once(rounds: number): Promise<{ wallMs: number; rssMb: number }> {
  turns = rounds;
  const { dir, project } = tempProject('oci-bench-children-');
  bigPath = join(project, 'big.txt');
  writeFileSync(bigPath, BIG);
  // In the user's config: an untrusted project's file may not raise max_concurrency (DESIGN §15).
  mkdirSync(join(dir, 'config'), { recursive: true });
  writeFileSync(join(dir, 'config', 'config.json'), JSON.stringify({ subagents: { max_concurrency: PER_TURN } }));
  const before = server.requests.length;
  const r = await timeAsync(process.execPath, [BIN, 'run', '--yes', PROMPT], { cwd: project, env: cliEnv(dir, server.url) });
  if (r.code !== 0) throw new Error(`run failed (${r.code}): ${r.stderr}`);
  const children = new Set(server.requests.slice(before).map(firstUserText).filter((k) => k.startsWith('child ')));
  if (children.size !== rounds * PER_TURN) throw new Error(`expected ${rounds * PER_TURN} children, saw ${children.size}`);
  rmSync(dir, { recursive: true, force: true });
  return { wallMs: r.wallMs, rssMb: r.maxRssKb / 1024 };
}

const small: number[] = [];
const large: number[] = [];
const largeWall: number[] = [];
for (let i = 0; i < RUNS; i++) {
  small.push((await once(1)).rssMb);
  const big = await once(10);
  large.push(big.rssMb);
  largeWall.push(big.wallMs);
}
await server.close();

const growth = (median(large) - median(small)) / 9;
console.log(`## Children's memory (10 per turn, ~20 KB tool output each, median of ${RUNS})`);
console.log('| measure | result | goal |');
console.log('|---|---|---|');
console.log(`| peak RSS, 10 children (1 turn) | ${median(small).toFixed(1)} MB | |`);
console.log(`| peak RSS, 100 children (10 turns) | ${median(large).toFixed(1)} MB | |`);
console.log(`| **peak RSS growth, 100 vs 10 children** | +${(median(large) - median(small)).toFixed(1)} MB | ≤ +25 MB (issue 36) |`);
console.log(`| peak RSS growth per 10 children | ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB | ≤ +25 MB (issue 14) |`);
console.log(`| wall, 100 children | ${fmt(median(largeWall))} | |\n`);
figure('children.growth', median(large) - median(small), 'MB');
