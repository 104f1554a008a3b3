// The engine honours writer leases held by another owner (a second store on the same file
// stands for another process): a root turn is refused before anything is written, and a
// `task` resume of a child held elsewhere gets an error result and can be retried later.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionBusyError, SessionStore } from '../../src/core/store/index.js';
import { lastUserText, text, toolResults, toolUse } from '../support/fake-anthropic.js';
import { firstUserText } from '../support/conversations.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
let other: SessionStore;

beforeEach(async () => {
  h = await startHarness();
  other = SessionStore.open(join(h.dir, 'data'));
});
afterEach(async () => {
  other.close();
  await h.close();
});

describe('engine and leases', () => {
  it('refuses a turn in a root session another owner holds, writing nothing', async () => {
    const id = other.createSession({ agent: 'build', title: 'theirs', status: 'idle', model: 'anthropic/claude-sonnet-4-5', cwd: h.projectDir, depth: 0 }).id;
    await expect(h.engine.prompt(id, 'mine now')).rejects.toThrow(SessionBusyError);
    expect(h.store.loadMessages(id)).toEqual([]);
    expect(h.server.requests).toHaveLength(0);
    other.close();
    h.server.enqueue(text('ok'));
    await expect(h.engine.prompt(id, 'mine now')).resolves.toMatchObject({ status: 'completed' });
  });

  it('answers a task resume of a child held elsewhere with an error, and resumes it once released', async () => {
    let childId = '';
    let resumes = 0;
    h.server.setHandler((req) => {
      if (firstUserText(req) === 'child: look') return text(`child says ${req.body.messages.length}`);
      if (toolResults(req).length > 0) return text('reported');
      if (lastUserText(req) === 'start') return toolUse('task', { description: 'Look', prompt: 'child: look', subagent_type: 'explore' });
      resumes++;
      return toolUse('task', { description: 'Again', prompt: 'more', subagent_type: 'explore', session_id: childId });
    });
    const root = h.engine.createSession().id;
    await h.engine.prompt(root, 'start');
    childId = h.store.children(root)[0]!.id;

    // The creator lets a child go once its result is delivered; another owner (say a
    // `run -s <child>`) takes it.
    expect(h.engine.liveSessionCount()).toBe(1);
    other.leases.acquire(childId);
    await h.engine.prompt(root, 'resume it');
    const refused = toolResults(h.server.requests.at(-1)!)[0]!;
    expect(refused.is_error).toBe(true);
    expect(String(refused.content)).toContain(`Task ${childId} is still running`);
    expect(h.store.loadMessages(childId)).toHaveLength(2);

    other.leases.release(childId);
    await h.engine.prompt(root, 'resume it now');
    const resumed = toolResults(h.server.requests.at(-1)!)[0]!;
    expect(resumed.is_error).toBeFalsy();
    expect(String(resumed.content)).toContain(`<task id="${childId}" state="completed">`);
    expect(h.store.loadMessages(childId)).toHaveLength(4);
    expect(resumes).toBe(2);
  });
});
