// Teammates at rest and waking (DESIGN §24, issue 37): a lead starts 8 teammates that go idle;
// then, for a stretch of idle time, counts the model requests made and the CPU the process
// used, and the timers and handles the idle team holds (none: an idle teammate is a row in the
// store, not a loop). Then the lead messages one teammate at a time and measures how long after
// that turn boundary (the `team.message` event) the teammate's request reaches the model server.
// Real engine and store (in-process), fake model server; not a timed test.
import { firstUserText } from '../test/support/conversations.js';
import { reply, text, type RecordedRequest, type ScriptedReply } from '../test/support/fake-anthropic.js';
import { startHarness } from '../test/support/harness.js';
import { fmt, median } from './support.js';

const TEAM = 8;
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 5_000);
const WAKES = Number(process.env.BENCH_RUNS ?? 5) * 4;

const h = await startHarness({ config: { team: { max_teammates: TEAM } } });
let target = 0;
h.server.setHandler((req: RecordedRequest): ScriptedReply => {
  const key = firstUserText(req);
  if (key.startsWith('you are t')) return text(`${key.slice(8)}: idle`);
  const last = req.body.messages[req.body.messages.length - 1];
  const hasResult = Array.isArray(last?.content) && (last.content as Array<{ type: string }>).some((p) => p.type === 'tool_result');
  if (hasResult) return text('ok');
  const said = JSON.stringify(last?.content ?? '');
  if (said.includes('start the team')) {
    return reply(
      ...Array.from({ length: TEAM }, (_, i) => ({
        type: 'tool_use' as const,
        id: `toolu_t${i}`,
        name: 'task',
        input: { description: `teammate ${i}`, prompt: `you are t${i}`, subagent_type: 'general', name: `t${i}` },
      })),
    );
  }
  if (said.includes('wake one')) return reply({ type: 'tool_use', id: `toolu_wake_${target}`, name: 'send_message', input: { to: `t${target % TEAM}`, text: 'one more thing' } });
  return text('noted');
});

/** CPU the whole process used over one idle stretch (all threads), in ms. */
async function idleCpu(): Promise<number> {
  const before = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

const lead = h.engine.createSession();
// The engine alone, idle after one plain turn: what the team's idle stretch is compared with.
await h.engine.prompt(lead.id, 'hello');
await h.engine.checkpointsSettled();
await idleCpu();
const baselineCpu = await idleCpu();
await h.engine.prompt(lead.id, 'start the team');
await h.engine.settled(lead.id);
const idle = h.store.teamMembers.list(lead.id).filter((m) => m.state === 'idle').length;
if (idle !== TEAM) throw new Error(`expected ${TEAM} idle teammates, saw ${idle}`);

// At rest, once what the start left winding down (snapshots, sockets) has gone.
// (V8's compiler and collector threads finish the start's work in the first seconds: one idle
// stretch is waited out first, so the one measured is the team's own cost.)
await h.engine.checkpointsSettled();
await idleCpu();
const handlesBefore = process.getActiveResourcesInfo().length;
const requestsBefore = h.server.requests.length;
const teamCpu = await idleCpu();
const idleRequests = h.server.requests.length - requestsBefore;
const handlesAfter = process.getActiveResourcesInfo().length;

// Waking: from the lead's message (its turn boundary) to the teammate's request at the server.
const latencies: number[] = [];
for (let i = 0; i < WAKES; i++) {
  target = i;
  const name = `t${i % TEAM}`;
  const sent = new Promise<number>((resolve) => {
    const off = h.engine.on((e) => {
      if (e.type === 'team.message' && e.to === name) {
        off();
        resolve(e.ts);
      }
    });
  });
  const before = h.server.requests.length;
  await h.engine.prompt(lead.id, 'wake one');
  const at = await sent;
  await h.engine.settled(lead.id);
  const woke = h.server.requests.slice(before).find((r) => firstUserText(r) === `you are ${name}`);
  if (!woke) throw new Error(`${name} did not wake`);
  latencies.push(woke.receivedAt - at);
}

console.log('### Teammates: idle cost and wake-up\n');
console.log(`${TEAM} idle teammates for ${fmt(IDLE_MS)}: ${idleRequests} model requests, ${fmt(teamCpu)} of CPU (user+system, whole process; the engine idle without a team: ${fmt(baselineCpu)}), active handles ${handlesBefore} → ${handlesAfter}.`);
console.log(`Wake-up (team.message → the teammate's request at the server), ${WAKES} wakes: median ${fmt(median(latencies))}, max ${fmt(Math.max(...latencies))}.`);
h.engine.cancelAll();
await h.engine.close();
await h.close();
process.exit(0);
