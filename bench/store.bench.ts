// Store throughput: 10,000 messages appended one transaction each (as the agent loop does),
// then the whole history reloaded, then the session listing with recursive totals.
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SessionStore } from '../src/core/store/index.js';
import { fmt, tempProject } from './support.js';

const COUNT = 10_000;
const { dir } = tempProject('oci-bench-store-');
const store = SessionStore.open(join(dir, 'data'));
const session = store.createSession({ agent: 'build', title: 'bench', status: 'idle', model: 'anthropic/claude-sonnet-4-5', cwd: dir, depth: 0 });
const usage = { input_tokens: 120, output_tokens: 40, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

const writeStart = performance.now();
for (let i = 0; i < COUNT; i++) {
  const message =
    i % 2 === 0
      ? { role: 'user' as const, content: [{ type: 'text' as const, text: `question ${i} `.repeat(8) }] }
      : { role: 'assistant' as const, content: [{ type: 'text' as const, text: `answer ${i} `.repeat(20) }] };
  store.appendMessage(session.id, message, i % 2 ? { usage, cost: 0.001 } : undefined);
}
const writeMs = performance.now() - writeStart;

const loadStart = performance.now();
const loaded = store.loadMessages(session.id);
const loadMs = performance.now() - loadStart;
if (loaded.length !== COUNT) throw new Error(`reloaded ${loaded.length} messages, expected ${COUNT}`);

const listStart = performance.now();
store.listRoots();
const listMs = performance.now() - listStart;
store.close();
const size = statSync(join(dir, 'data', 'sessions.db')).size;
rmSync(dir, { recursive: true, force: true });

console.log('## Store (10,000 messages)');
console.log('| measure | result |');
console.log('|---|---|');
console.log(`| append 10,000 messages (one transaction each) | ${fmt(writeMs)} (${((writeMs * 1000) / COUNT).toFixed(0)} µs/message) |`);
console.log(`| reload all 10,000 | ${fmt(loadMs)} |`);
console.log(`| list root sessions with totals | ${listMs.toFixed(1)} ms |`);
console.log(`| database size | ${(size / 1024 / 1024).toFixed(1)} MiB |\n`);
