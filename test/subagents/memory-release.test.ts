// Finished children leave memory: once a child's result has reached its parent the engine
// holds no live session for it, and a resume (or a view through `history`) reads it back
// from the store with its whole conversation.
import { afterEach, describe, expect, it } from 'vitest';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { reply, text, toolResults, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  h?.engine.cancelAll();
  await h?.close();
  h = undefined;
});

let seq = 0;
const spawn = (description: string, prompt: string, extra: Record<string, unknown> = {}) => ({
  type: 'tool_use' as const,
  name: 'task',
  input: { description, prompt, subagent_type: 'general', ...extra },
  id: `toolu_mem_${++seq}`,
});
const read = (file_path: string) => ({ type: 'tool_use' as const, name: 'read', input: { file_path }, id: `toolu_mem_${++seq}` });
const firstTaskId = (req: RecordedRequest) => {
  const content = toolResults(req)[0]?.content;
  return /<task id="([^"]+)"/.exec(typeof content === 'string' ? content : JSON.stringify(content))?.[1] ?? 'missing';
};

describe('finished children', () => {
  it('are released when their results are delivered, and a resume still has the full history', async () => {
    h = await startHarness({ files: { 'notes.txt': 'line about memory\n'.repeat(200) } });
    let resumeId = '';
    scriptConversations(h.server, {
      'mem root': [
        reply(spawn('a', 'mem child a'), spawn('b', 'mem child b'), spawn('c', 'mem child c')),
        (req) => {
          resumeId = firstTaskId(req);
          return text('three reports in');
        },
        () => reply(spawn('again', 'mem follow-up', { session_id: resumeId })),
        text('follow-up in'),
      ],
      'mem child a': [reply(read('notes.txt')), text('a read the notes'), text('a remembers the notes')],
      'mem child b': [text('b done')],
      'mem child c': [text('c done')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'mem root')).text).toBe('three reports in');
    // Only the root is held; the three children live in the store.
    expect(h.engine.liveSessionCount()).toBe(1);
    const viewed = h.engine.history(resumeId)!;
    expect(viewed.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);

    expect((await h.engine.prompt(root.id, 'resume a')).text).toBe('follow-up in');
    const resumed = requestsOf(h.server, 'mem child a').at(-1)!;
    // The earlier prompt, the read call, its 3.6 KB result and the report, then the new prompt.
    expect(resumed.body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(JSON.stringify(resumed.body.messages[2])).toContain('line about memory');
    expect(JSON.stringify(resumed.body.messages.at(-1))).toContain('mem follow-up');
    expect(h.engine.liveSessionCount()).toBe(1);
    // Released children hold no lease: another process may resume them.
    expect(h.store.leases.otherHolder(resumeId)).toBeUndefined();
  });

  it('are taken back when a background result arrives for them after they returned', async () => {
    h = await startHarness({ config: { subagents: { max_depth: 2 } } });
    scriptConversations(h.server, {
      'rel root': [reply(spawn('mid', 'rel mid')), text('root done'), text('root read the late findings')],
      'rel mid': [reply(spawn('bg', 'rel leaf', { run_in_background: true })), text('mid done'), text('mid relays: leaf findings')],
      'rel leaf': [{ ...text('leaf findings'), delayMs: 300 }],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'rel root')).text).toBe('root done');
    await h.engine.settled(root.id);
    const mid = requestsOf(h.server, 'rel mid');
    expect(mid).toHaveLength(3);
    // The middle child's late turn continued its stored conversation.
    expect(mid[2]!.body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(JSON.stringify(mid[2]!.body.messages.at(-1))).toContain('leaf findings');
    expect(h.engine.lastOutcome(root.id)?.text).toBe('root read the late findings');
    expect(h.engine.liveSessionCount()).toBe(1);
  });
});
