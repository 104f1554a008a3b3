// The fan-out benches' scenario (bench/fanout.bench.ts, bench/fanout-phases.bench.ts): a fake
// model server on which the parent's prompt `FANOUT_PROMPT` answers with `FANOUT_CHILDREN` `task`
// calls for `general` sub-agents, each child's reply takes 300 ms, and the parent's second turn
// ends the run. One definition, so both benches measure the same thing.
import { firstUserText } from '../test/support/conversations.js';
import { reply, text, startFakeServer } from '../test/support/fake-anthropic.js';

export const FANOUT_CHILDREN = 10;
export const FANOUT_PROMPT = 'fan out to ten sub-agents';

export async function startFanOutServer(): Promise<Awaited<ReturnType<typeof startFakeServer>>> {
  const server = await startFakeServer();
  server.setHandler((req) => {
    const key = firstUserText(req);
    if (key === FANOUT_PROMPT) {
      if (req.body.messages.length > 1) return text('All ten reports are in.');
      return reply(
        ...Array.from({ length: FANOUT_CHILDREN }, (_, i) => ({
          type: 'tool_use' as const,
          name: 'task',
          input: { description: `Part ${i}`, prompt: `child ${i}: report on part ${i}`, subagent_type: 'general' },
        })),
      );
    }
    return { ...text(`report for ${key}`), delayMs: 300 };
  });
  return server;
}
