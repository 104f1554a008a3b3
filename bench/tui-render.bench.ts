// Ten sub-agents streaming 50 KB of text each (plus their tool calls) through the real App,
// UI store, frame scheduler and Ink renderer into a fake 100×40 terminal. Events are fed at
// a fixed target rate by a timer; we measure the rate sustained, how often React commits
// and Ink renders, the frames actually written, CPU seconds per MB of streamed text, and
// the delay between a tool call starting in a child and the first frame that shows it.
//
// Two rounds run in one process: the first from a cold start (the JIT still compiling Ink
// and our code), the second a fresh fan-out of ten more children once the first finished.
// BENCH_VIEW=child watches the first child's transcript (its text is on screen) instead of
// the parent's sub-agent blocks; without BENCH_VIEW both scenarios run, one process each.
import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { render } from 'ink';
import { createElement } from 'react';
import Yoga from 'yoga-layout';
import { makeEvent, type EventListener, type EventPayloads, type EventType } from '../src/core/events.js';
import type { UiCore } from '../src/ui/core-api.js';
import { App } from '../src/ui/app.js';
import { INK_RENDER_OPTIONS } from '../src/ui/render/ink-options.js';

const VIEW = process.env.BENCH_VIEW;
if (VIEW === undefined) {
  // Each scenario in a fresh process, so neither inherits the other's warm JIT.
  for (const view of ['parent', 'child']) {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], { stdio: 'inherit', env: { ...process.env, BENCH_VIEW: view } });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  process.exit(0);
}

const CHILDREN = 10;
const BYTES_PER_CHILD = Number(process.env.BENCH_BYTES ?? 50_000);
const DELTA = 'lorem ipsum dolor sit amet, consectetur '; // 40 bytes per delta
const TARGET_RATE = Number(process.env.BENCH_RATE ?? 4000); // deltas per second, all children together
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const ROOT = 'ses_root';
/** Ink brackets each frame in synchronized-update markers, written separately. */
const SYNC_MARKERS = new Set(['\u001B[?2026h', '\u001B[?2026l']);
// eslint-disable-next-line no-control-regex -- the escape codes are what it strips
const ANSI = /\u001B\[[0-9;?]*[A-Za-z]/g;
const TOOL_PATH = /src\/c(\d+)\/f(\d+)\.ts/g;

/** Tool calls started, per child, not yet seen on screen: [tool index, time started]. */
const unseen = new Map<number, Array<[number, number]>>();
const latencies: number[] = [];

class FakeTerminal extends Writable {
  columns = 100;
  rows = 40;
  isTTY = true;
  /** Raw write() calls, synchronized-update markers included. */
  writes = 0;
  /** Writes that carry screen content: one per frame drawn (or static block printed). */
  frames = 0;
  bytes = 0;
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.writes++;
    this.bytes += chunk.length;
    const text = chunk.toString();
    if (!SYNC_MARKERS.has(text)) {
      this.frames++;
      seen(text.replace(ANSI, ''), performance.now());
    }
    done();
  }
}

/** Resolves the latency of every tool call shown in `screen` (and of older ones of the same child). */
function seen(screen: string, at: number): void {
  const newest = new Map<number, number>();
  for (const m of screen.matchAll(TOOL_PATH)) {
    const child = Number(m[1]);
    newest.set(child, Math.max(newest.get(child) ?? -1, Number(m[2])));
  }
  for (const [child, index] of newest) {
    const pending = unseen.get(child);
    while (pending?.length && pending[0]![0] <= index) latencies.push(at - pending.shift()![1]);
  }
}

/** A keyboard Ink can read from; the bench types only to navigate into a child. */
class Keyboard extends EventEmitter {
  isTTY = true;
  private data: string | null = null;
  type(data: string): void {
    this.data = data;
    this.emit('readable');
  }
  read(): string | null {
    const d = this.data;
    this.data = null;
    return d;
  }
  setRawMode(): this {
    return this;
  }
  setEncoding(): this {
    return this;
  }
  resume(): this {
    return this;
  }
  pause(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}

/** CPU seconds of this (the JavaScript) thread alone, from /proc; NaN where there is none. */
function mainThreadCpu(): number {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

// React commits: Ink lays the tree out once per commit, so count (and time) layout passes.
let layouts = 0;
let layoutMs = 0;
type YogaNode = ReturnType<typeof Yoga.Node.create>;
const nodePrototype = Object.getPrototypeOf(Yoga.Node.create()) as YogaNode;
const calculateLayout = nodePrototype.calculateLayout;
nodePrototype.calculateLayout = function (this: YogaNode, ...args: Parameters<YogaNode['calculateLayout']>) {
  const t0 = performance.now();
  try {
    calculateLayout.apply(this, args);
  } finally {
    layouts++;
    layoutMs += performance.now() - t0;
  }
};

const listeners = new Set<EventListener>();
const usage = { input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const row = {
  id: ROOT,
  parent_id: null,
  agent: 'build',
  title: 'bench',
  task_description: null,
  tool_call_id: null,
  status: 'idle' as const,
  model: 'anthropic/claude-sonnet-4-5',
  cwd: '/bench',
  depth: 0,
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  cost: 0,
  error: null,
  owner_pid: null,
  created_at: Date.now(),
  updated_at: Date.now(),
};
// A core that only replays events: the bench measures the UI, not the engine.
const core = {
  on: (l: EventListener) => {
    listeners.add(l);
    return () => listeners.delete(l);
  },
  history: (id: string) => (id === ROOT ? { session: row, messages: [] } : undefined),
  children: () => [],
  primaryAgents: () => [],
  subagents: () => [],
  commands: () => [],
  isRunning: () => true,
} as unknown as UiCore;

function emit<K extends EventType>(type: K, sessionId: string, path: string[], agent: string, payload: EventPayloads[K]): void {
  const event = makeEvent(type, { session_id: sessionId, path, agent, ts: Date.now() }, payload);
  for (const l of listeners) l(event);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rp = [ROOT];
const DELTAS_PER_ROUND = Math.ceil(BYTES_PER_CHILD / DELTA.length) * CHILDREN;
// The feeder alone, with nothing listening: its timer wake-ups (500 a second; about 0.1 ms
// each on the 2-core VM) and event objects are not UI work, yet process CPU includes them.
// Measured once here and subtracted from each round's CPU.
const feederCpu = await (async () => {
  const kids = Array.from({ length: CHILDREN }, (_, i) => ({ i, id: `ses_cal_c${i}`, call: `call_cal_${i}`, sent: 0, msg: 0 }));
  const cpuStart = process.cpuUsage();
  const mainStart = mainThreadCpu();
  await feed(kids, DELTAS_PER_ROUND);
  const cpu = process.cpuUsage(cpuStart);
  return { all: (cpu.user + cpu.system) / 1e6, main: mainThreadCpu() - mainStart };
})();

const terminal = new FakeTerminal();
const keyboard = new Keyboard();
let inkRenders = 0;
let inkRenderMs = 0;
// The options the app itself renders with (launch.tsx), console patching aside.
const instance = render(createElement(App, { core, rootId: ROOT }), {
  ...INK_RENDER_OPTIONS,
  stdout: terminal as unknown as NodeJS.WriteStream,
  stdin: keyboard as unknown as NodeJS.ReadStream,
  patchConsole: false,
  onRender: ({ renderTime }) => {
    inkRenders++;
    inkRenderMs += renderTime;
  },
});
await sleep(100);

emit('session.status', ROOT, rp, 'build', { status: 'running' });

type Kid = { i: number; id: string; call: string; sent: number; msg: number };

/** Emits `totalDeltas` text deltas round-robin over `kids` at TARGET_RATE, with a tool call every 2 KB per child. */
async function feed(kids: Kid[], totalDeltas: number): Promise<void> {
  let sent = 0;
  const start = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(totalDeltas, Math.floor(((performance.now() - start) / 1000) * TARGET_RATE));
      while (sent < due) {
        const k = kids[sent % kids.length]!;
        const path = [ROOT, k.id];
        emit('text.delta', k.id, path, 'explore', { text: DELTA });
        k.sent += DELTA.length;
        // Every 2 KB a child finishes a message and runs a tool, as real sub-agents do.
        if (k.sent % 2000 < DELTA.length) {
          emit('message.completed', k.id, path, 'explore', { message_id: `${k.id}_m${k.msg}`, usage, stop_reason: 'tool_use' });
          unseen.get(k.i)?.push([k.msg, performance.now()]);
          emit('tool.started', k.id, path, 'explore', { call_id: `${k.id}_t${k.msg}`, tool: 'read', input: { file_path: `src/c${k.i}/f${k.msg}.ts` } });
          emit('tool.completed', k.id, path, 'explore', { call_id: `${k.id}_t${k.msg}`, tool: 'read', output: 'ok', is_error: false });
          emit('tool.progress', ROOT, rp, 'build', { call_id: k.call, tool: 'task', metadata: { session_id: k.id, agent: 'explore', status: 'running', tool_calls: k.msg + 1, latest_tool: 'read', elapsed_ms: 0 } });
          k.msg++;
          emit('message.started', k.id, path, 'explore', { message_id: `${k.id}_m${k.msg}` });
        }
        sent++;
      }
      if (sent >= totalDeltas) resolve();
      // A timer, not setImmediate: a busy feeder would bill its own spinning to the UI.
      else setTimeout(tick, 2);
    };
    tick();
  });
}

interface RoundResult {
  deltas: number;
  feedMs: number;
  wallS: number;
  layouts: number;
  layoutMs: number;
  inkRenders: number;
  inkRenderMs: number;
  frames: number;
  writes: number;
  cpuS: number;
  mainS: number;
  mb: number;
  latencies: number[];
}

async function round(r: number): Promise<RoundResult> {
  emit('message.started', ROOT, rp, 'build', { message_id: `m${r}` });
  emit('message.completed', ROOT, rp, 'build', { message_id: `m${r}`, usage, stop_reason: 'tool_use' });
  const kids: Kid[] = Array.from({ length: CHILDREN }, (_, i) => ({ i, id: `ses_r${r}_c${i}`, call: `call_r${r}_${i}`, sent: 0, msg: 0 }));
  for (const k of kids) {
    const path = [ROOT, k.id];
    emit('tool.started', ROOT, rp, 'build', { call_id: k.call, tool: 'task', input: { description: `Child ${k.i}`, prompt: `p${k.i}`, subagent_type: 'explore' } });
    emit('session.created', k.id, path, 'explore', { parent_id: ROOT, title: `Child ${k.i}`, tool_call_id: k.call, task_description: `Child ${k.i}`, depth: 1 });
    emit('session.status', k.id, path, 'explore', { status: 'running' });
    emit('message.started', k.id, path, 'explore', { message_id: `${k.id}_m0` });
  }
  await sleep(150);
  if (VIEW === 'child') {
    // Into the first child: <leader>down from the parent, then <leader>right to this round's.
    keyboard.type('\u0018');
    keyboard.type('\u001B[B');
    for (let i = 0; i < (r - 1) * CHILDREN; i++) {
      await sleep(5);
      keyboard.type('\u0018');
      keyboard.type('\u001B[C');
    }
    await sleep(300);
  }
  const watched = VIEW === 'child' ? [0] : kids.map((k) => k.i);
  for (const i of watched) unseen.set(i, []);
  latencies.length = 0;

  const totalDeltas = DELTAS_PER_ROUND;
  const cpuStart = process.cpuUsage();
  const mainStart = mainThreadCpu();
  const before = { layouts, layoutMs, inkRenders, inkRenderMs, frames: terminal.frames, writes: terminal.writes };
  const start = performance.now();
  await feed(kids, totalDeltas);
  const feedMs = performance.now() - start;
  // Long enough for the last frame and the clock's next tick.
  await sleep(300);
  const cpu = process.cpuUsage(cpuStart);
  const result: RoundResult = {
    deltas: totalDeltas,
    feedMs,
    wallS: (performance.now() - start) / 1000,
    layouts: layouts - before.layouts,
    layoutMs: layoutMs - before.layoutMs,
    inkRenders: inkRenders - before.inkRenders,
    inkRenderMs: inkRenderMs - before.inkRenderMs,
    frames: terminal.frames - before.frames,
    writes: terminal.writes - before.writes,
    cpuS: (cpu.user + cpu.system) / 1e6,
    mainS: mainThreadCpu() - mainStart,
    mb: (totalDeltas * DELTA.length) / 1e6,
    latencies: [...latencies].sort((a, b) => a - b),
  };
  // The children finish; their blocks leave the live region before the next round.
  for (const k of kids) {
    const path = [ROOT, k.id];
    emit('message.completed', k.id, path, 'explore', { message_id: `${k.id}_m${k.msg}`, usage, stop_reason: 'end_turn' });
    emit('session.status', k.id, path, 'explore', { status: 'completed' });
    emit('tool.completed', ROOT, rp, 'build', { call_id: k.call, tool: 'task', output: `<task id="${k.id}" state="completed">done</task>`, is_error: false, metadata: { session_id: k.id, agent: 'explore', state: 'completed' } });
  }
  if (VIEW === 'child') {
    keyboard.type('\u0018');
    keyboard.type('\u001B[A');
  }
  await sleep(300);
  return result;
}

const results: RoundResult[] = [];
for (let r = 1; r <= ROUNDS; r++) results.push(await round(r));
const rss = process.resourceUsage().maxRSS / 1e3;
instance.unmount();

const pct = (values: number[], p: number) => (values.length ? values[Math.min(values.length - 1, Math.floor(p * values.length))]! : Number.NaN);
const cols = results.map((_, i) => (i === 0 ? 'round 1 (cold start)' : `round ${i + 1} (warm)`));
const line = (label: string, f: (r: RoundResult) => string) => console.log(`| ${label} | ${results.map(f).join(' | ')} |`);
const what = VIEW === 'child' ? "viewing the first child's transcript (its text on screen)" : "parent view (the children's blocks on screen)";
console.log(`## TUI render: 10 sub-agents × ${BYTES_PER_CHILD / 1000} KB through Ink into a fake 100×40 terminal, ${what}`);
console.log('');
console.log(`| measure | ${cols.join(' | ')} |`);
console.log(`|---|${cols.map(() => '---|').join('')}`);
line('target rate', () => `${TARGET_RATE} deltas/s (${DELTA.length} B each)`);
line('sustained rate', (r) => `${Math.round(r.deltas / (r.feedMs / 1000))} deltas/s (${r.deltas} in ${r.feedMs.toFixed(0)} ms)`);
line('React commits (Ink layout passes)', (r) => `${r.layouts} (${(r.layouts / r.wallS).toFixed(1)}/s), layout ${r.layoutMs.toFixed(0)} ms`);
line('Ink renders (frames drawn)', (r) => `${r.inkRenders} (${(r.inkRenders / r.wallS).toFixed(1)}/s), ${r.inkRenderMs.toFixed(0)} ms`);
line('terminal writes: with content / all', (r) => `${r.frames} / ${r.writes}`);
line('process CPU, all threads (UI and feeder)', (r) => `${r.cpuS.toFixed(2)} s → ${(r.cpuS / r.mb).toFixed(2)} CPU-s/MB`);
line('feeder alone (same events and timers, no UI)', () => `${feederCpu.all.toFixed(2)} s`);
line('**UI CPU, all threads**', (r) => `${(r.cpuS - feederCpu.all).toFixed(2)} s → **${((r.cpuS - feederCpu.all) / r.mb).toFixed(2)} CPU-s/MB**`);
line('UI CPU, JavaScript thread only', (r) => `${(r.mainS - feederCpu.main).toFixed(2)} s → ${((r.mainS - feederCpu.main) / r.mb).toFixed(2)} CPU-s/MB`);
line('tool call → first frame showing it: median / p95 / worst', (r) => `${pct(r.latencies, 0.5).toFixed(0)} / ${pct(r.latencies, 0.95).toFixed(0)} / ${pct(r.latencies, 1).toFixed(0)} ms (${r.latencies.length} calls)`);
console.log(`| peak RSS | ${rss.toFixed(0)} MB |${cols.slice(1).map(() => ' |').join('')}`);
console.log('');
process.exit(0);
