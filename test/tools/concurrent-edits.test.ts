// Two `edit`s of one file at once, through the real tools and real files: both computed from
// the same content, each waiting on its approval until the other has asked too. The promise
// (file-change.ts) is that a change is never applied to content its session did not see, so
// exactly one lands and the other fails with the stale-write error: no update is lost, in two
// sessions or in one. Calls of one model message run one after the other (tool-runner.ts), so
// there the second edit applies on top of the first.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { editTool } from '../../src/core/tools/edit.js';
import { readTool } from '../../src/core/tools/read.js';
import { ToolError, type ToolResult } from '../../src/core/tools/types.js';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { reply, text, toolResults } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { makeContext, makeTempDir, removeDir, run, type FakeContext } from './context.js';

const dirs: string[] = [];
let h: Harness | undefined;
afterEach(async () => {
  for (const d of dirs.splice(0)) removeDir(d);
  await h?.close();
  h = undefined;
});

const BASE = 'alpha|beta|gamma\n';

/** Makes every `edit` approval wait until `count` of them are pending, so the edits overlap. */
function overlapApprovals(contexts: readonly FakeContext[], count: number): void {
  let pending = 0;
  let release: () => void = () => {};
  const allAsked = new Promise<void>((resolve) => (release = resolve));
  for (const ctx of contexts) {
    ctx.ask = async (request) => {
      ctx.asks.push(request);
      if (request.permission !== 'edit') return;
      if (++pending === count) release();
      await allAsked;
    };
  }
}

async function settle(results: Promise<ToolResult>[]): Promise<{ landed: number[]; stale: string[] }> {
  const outcomes = await Promise.allSettled(results);
  const landed = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
  const stale = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason instanceof ToolError ? o.reason.message : String(o.reason)] : []));
  return { landed, stale };
}

const edits = [
  { file_path: 'shared.txt', old_string: 'alpha', new_string: 'ALPHA' },
  { file_path: 'shared.txt', old_string: 'gamma', new_string: 'GAMMA' },
];
const afterEdit = ['ALPHA|beta|gamma\n', 'alpha|beta|GAMMA\n'];
const STALE = 'shared.txt has changed since you last read it (another agent, the user or a command modified it): read it again, then redo the change against its current content.';

describe('two edits of one file at once', () => {
  it('in two sessions: one lands, the other is refused as stale, and the file holds exactly the one that landed', async () => {
    const dir = makeTempDir('oci-concurrent-');
    dirs.push(dir);
    writeFileSync(path.join(dir, 'shared.txt'), BASE);
    const sessions = [makeContext(dir), makeContext(dir)];
    for (const s of sessions) await run(readTool, { file_path: 'shared.txt' }, s);
    overlapApprovals(sessions, 2);
    const { landed, stale } = await settle(sessions.map((s, i) => run(editTool, edits[i]!, s)));
    expect(landed).toHaveLength(1);
    expect(stale).toEqual([STALE]);
    expect(readFileSync(path.join(dir, 'shared.txt'), 'utf8')).toBe(afterEdit[landed[0]!]);
  });

  it('in one session: the edit computed from the old content is refused too', async () => {
    const dir = makeTempDir('oci-concurrent-');
    dirs.push(dir);
    writeFileSync(path.join(dir, 'shared.txt'), BASE);
    const ctx = makeContext(dir);
    await run(readTool, { file_path: 'shared.txt' }, ctx);
    overlapApprovals([ctx], 2);
    const { landed, stale } = await settle(edits.map((e) => run(editTool, e, ctx)));
    expect(landed).toHaveLength(1);
    expect(stale).toEqual([STALE]);
    expect(readFileSync(path.join(dir, 'shared.txt'), 'utf8')).toBe(afterEdit[landed[0]!]);
  });

  it('in one model message: the calls run in turn, so the second applies on top of the first', async () => {
    h = await startHarness({ config: { permission: { edit: 'allow' } }, files: { 'shared.txt': BASE } });
    let seq = 0;
    const call = (name: string, input: Record<string, unknown>) => ({ type: 'tool_use' as const, name, input, id: `toolu_cc_${++seq}` });
    scriptConversations(h.server, { both: [reply(call('read', { file_path: 'shared.txt' })), reply(...edits.map((e) => call('edit', e))), text('done')] });
    expect((await h.engine.prompt(h.engine.createSession().id, 'both')).status).toBe('completed');
    expect(toolResults(requestsOf(h.server, 'both')[2]!).map((r) => r.is_error === true)).toEqual([false, false]);
    expect(readFileSync(path.join(h.projectDir, 'shared.txt'), 'utf8')).toBe('ALPHA|beta|GAMMA\n');
  });
});
