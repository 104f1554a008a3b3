// Ten sub-agents streaming 50 KB of text each (plus their tool calls) through the real App
// and Ink renderer into a fake terminal. Events are fed at a fixed target rate; we measure
// the rate actually sustained, renders per second, CPU seconds per MB of streamed text and
// the worst delay between an event and the next frame written to the terminal.
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { render } from 'ink';
import { createElement } from 'react';
import type { CoreEvent, EventListener, EventPayloads, EventType } from '../src/core/events.js';
import type { UiCore } from '../src/ui/core-api.js';
import { App } from '../src/ui/app.js';

const CHILDREN = 10;
const BYTES_PER_CHILD = 50_000;
const DELTA = 'lorem ipsum dolor sit amet, consectetur '; // 40 bytes per delta
const TARGET_RATE = Number(process.env.BENCH_RATE ?? 4000); // deltas per second, all children together
const ROOT = 'ses_root';

class FakeTerminal extends Writable {
  columns = 100;
  rows = 40;
  isTTY = true;
  writes = 0;
  bytes = 0;
  lastWriteAt = 0;
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.writes++;
    this.bytes += chunk.length;
    this.lastWriteAt = performance.now();
    done();
  }
}

/** A keyboard that never types: Ink needs a TTY-like stdin for raw mode. */
class IdleKeyboard extends EventEmitter {
  isTTY = true;
  setRawMode(): this {
    return this;
  }
  setEncoding(): this {
    return this;
  }
  read(): null {
    return null;
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
  const event = { type, session_id: sessionId, path, agent, ts: Date.now(), ...payload } as CoreEvent;
  const t0 = performance.now();
  for (const l of listeners) l(event);
  dispatchMs += performance.now() - t0;
}
let dispatchMs = 0;

const terminal = new FakeTerminal();
const instance = render(createElement(App, { core, rootId: ROOT }), {
  stdout: terminal as unknown as NodeJS.WriteStream,
  stdin: new IdleKeyboard() as unknown as NodeJS.ReadStream,
  exitOnCtrlC: false,
  patchConsole: false,
  debug: false,
  maxFps: 15,
});

await new Promise((r) => setTimeout(r, 100));
if (process.env.BENCH_DEBUG) console.error('writes after mount', terminal.writes, terminal.bytes);
const rp = [ROOT];
emit('session.status', ROOT, rp, 'build', { status: 'running' });
emit('message.started', ROOT, rp, 'build', { message_id: 'm0' });
emit('message.completed', ROOT, rp, 'build', { message_id: 'm0', usage, stop_reason: 'tool_use' });
const kids = Array.from({ length: CHILDREN }, (_, i) => ({ id: `ses_child_${i}`, call: `call_${i}`, path: [ROOT, `ses_child_${i}`], sent: 0, msg: 0 }));
for (const [i, k] of kids.entries()) {
  emit('tool.started', ROOT, rp, 'build', { call_id: k.call, tool: 'task', input: { description: `Child ${i}`, prompt: `p${i}`, subagent_type: 'explore' } });
  emit('session.created', k.id, k.path, 'explore', { parent_id: ROOT, title: `Child ${i}`, tool_call_id: k.call });
  emit('session.status', k.id, k.path, 'explore', { status: 'running' });
  emit('message.started', k.id, k.path, 'explore', { message_id: `${k.id}_m0` });
}

const totalDeltas = Math.ceil(BYTES_PER_CHILD / DELTA.length) * CHILDREN;
let sent = 0;
let worstLatency = 0;
let pendingSince: number | undefined;
const cpuStart = process.cpuUsage();
const start = performance.now();
const writesStart = terminal.writes;

// Latency: from the first event not yet shown to the next terminal write.
const sampler = setInterval(() => {
  if (pendingSince !== undefined && terminal.lastWriteAt > pendingSince) {
    worstLatency = Math.max(worstLatency, terminal.lastWriteAt - pendingSince);
    pendingSince = undefined;
  }
}, 1);

await new Promise<void>((resolve) => {
  const tick = () => {
    const due = Math.min(totalDeltas, Math.floor(((performance.now() - start) / 1000) * TARGET_RATE));
    while (sent < due) {
      const k = kids[sent % CHILDREN]!;
      emit('text.delta', k.id, k.path, 'explore', { text: DELTA });
      k.sent += DELTA.length;
      // Every 2 KB a child finishes a message and runs a tool, as real sub-agents do.
      if (k.sent % 2000 < DELTA.length) {
        emit('message.completed', k.id, k.path, 'explore', { message_id: `${k.id}_m${k.msg}`, usage, stop_reason: 'tool_use' });
        emit('tool.started', k.id, k.path, 'explore', { call_id: `${k.id}_t${k.msg}`, tool: 'read', input: { file_path: `src/file${k.msg}.ts` } });
        emit('tool.completed', k.id, k.path, 'explore', { call_id: `${k.id}_t${k.msg}`, output: 'ok', is_error: false });
        emit('tool.progress', ROOT, rp, 'build', { call_id: k.call, metadata: { session_id: k.id, agent: 'explore', status: 'running', tool_calls: k.msg + 1, latest_tool: 'read' } });
        k.msg++;
        emit('message.started', k.id, k.path, 'explore', { message_id: `${k.id}_m${k.msg}` });
      }
      pendingSince ??= performance.now();
      sent++;
    }
    if (sent >= totalDeltas) resolve();
    // A timer, not setImmediate: a busy feeder would bill its own spinning to the UI.
    else setTimeout(tick, 2);
  };
  tick();
});
const feedMs = performance.now() - start;
await new Promise((r) => setTimeout(r, 100));
clearInterval(sampler);
const cpu = process.cpuUsage(cpuStart);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const mb = (totalDeltas * DELTA.length) / 1e6;
const renders = terminal.writes - writesStart;
instance.unmount();

console.log('## TUI render: 10 sub-agents × 50 KB through Ink into a fake terminal');
console.log('');
console.log('| measure | value |');
console.log('|---|---|');
console.log(`| target rate | ${TARGET_RATE} deltas/s (${DELTA.length} B each) |`);
console.log(`| sustained rate | ${Math.round(totalDeltas / (feedMs / 1000))} deltas/s (${totalDeltas} deltas in ${feedMs.toFixed(0)} ms) |`);
console.log(`| time in event handling (reduce) | ${dispatchMs.toFixed(0)} ms |`);
console.log(`| terminal writes (frames) | ${renders} (${(renders / ((feedMs + 100) / 1000)).toFixed(1)}/s) |`);
console.log(`| CPU | ${cpuSeconds.toFixed(2)} s for ${mb.toFixed(2)} MB → ${(cpuSeconds / mb).toFixed(2)} CPU-s/MB |`);
console.log(`| worst event-to-frame latency | ${worstLatency.toFixed(0)} ms |`);
console.log(`| peak RSS | ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB |`);
console.log('');
process.exit(0);
