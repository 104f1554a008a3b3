// Checkpoints off the model request's path (issue 36, DESIGN §18): the prompt's "before"
// snapshot is taken once the model begins writing a call that can change files (a turn that
// changes nothing takes none, and undo steps over it), only such tools wait for it; a sub-agent that changes nothing takes no snapshot, and children of one batch that
// change files together share one start snapshot. Real engine, real git, real tools, the fake
// Messages API. A git clean filter from the user's global configuration (a public seam: git
// runs it while a snapshot stores a new file) holds the first snapshot open as long as the test
// wants; GIT_TRACE counts the snapshots (one `git ls-files` walk each). Isolated: sets git's env.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scriptConversations, taskUse, toolUse } from '../support/conversations.js';
import { reply, text, type ScriptedReply } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../support/harness.js';
import { waitFor } from '../support/wait.js';

let h: Harness | undefined;
const saved = { GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL, GIT_TRACE: process.env.GIT_TRACE };
beforeEach(() => {
  delete process.env.GIT_CONFIG_GLOBAL;
  delete process.env.GIT_TRACE;
});
afterEach(async () => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await h?.close();
  h = undefined;
});

const read = (file: string) => (existsSync(join(h!.projectDir, file)) ? readFileSync(join(h!.projectDir, file), 'utf8') : undefined);

/** Snapshots taken since the trace began: each walks the tree with one `git ls-files`. */
function snapshotsTaken(trace: string): number {
  if (!existsSync(trace)) return 0;
  return readFileSync(trace, 'utf8').split('\n').filter((line) => /trace: built-in: git ls-files /.test(line)).length;
}

/** A point several conversations wait at: each reply is served once `count` of them have been asked for. */
function meeting(count: number): { at: (answer: ScriptedReply) => () => Promise<ScriptedReply> } {
  let arrived = 0;
  let release: () => void = () => {};
  const all = new Promise<void>((resolve) => (release = resolve));
  return {
    at: (answer) => async () => {
      arrived += 1;
      if (arrived === count) release();
      await all;
      return answer;
    },
  };
}

describe('checkpoints off the hot path', () => {
  it('takes the snapshot as the model writes a change, and the write waits for it: undo still restores the state before the prompt', async () => {
    h = await startHarness({ files: { 'slow.held': 'slow\n', 'a.held': 'old\n', '.gitattributes': '*.held filter=held\n' }, engine: { autoApprove: true } });
    const started = join(h.dir, 'filter-started');
    const release = join(h.dir, 'filter-release');
    const config = join(h.dir, 'global-gitconfig');
    // The filter waits for the test's word before git may store a `.held` file.
    const filter = join(h.dir, 'held-filter.sh');
    writeFileSync(filter, `#!/bin/sh\ntouch '${started}'\nwhile [ ! -e '${release}' ]; do sleep 0.02; done\nexec cat\n`, { mode: 0o755 });
    writeFileSync(config, `[filter "held"]\n\tclean = ${filter}\n`);
    process.env.GIT_CONFIG_GLOBAL = config;
    scriptConversations(h.server, {
      'change a': [
        // Served while the snapshot cannot have finished: the filter is released only below.
        reply(toolUse('read', { file_path: 'a.held' }), toolUse('write', { file_path: 'a.held', content: 'new\n' })),
        text('changed'),
      ],
    });
    const root = h.engine.createSession();
    const writeStarted = waitForEvent(h.engine, (e) => e.type === 'tool.started' && e.tool === 'write', 20_000);
    const turn = h.engine.prompt(root.id, 'change a');
    await writeStarted;
    // The tool has started but must not write before the snapshot is done.
    expect(read('a.held')).toBe('old\n');
    writeFileSync(release, '');
    const outcome = await turn;
    expect(outcome.status).toBe('completed');
    // The filter did hold the snapshot: it was still being taken when the request and the write came.
    expect(existsSync(started)).toBe(true);
    expect(read('a.held')).toBe('new\n');

    const undone = await h.engine.undo(root.id);
    expect(undone.files).toEqual(['a.held']);
    expect(read('a.held')).toBe('old\n');
  });

  it('gives a child that changes nothing no snapshot and an empty diff, and children that write together share one start snapshot', async () => {
    h = await startHarness({ engine: { autoApprove: true } });
    const trace = join(h.dir, 'git-trace');
    process.env.GIT_TRACE = trace;
    const together = meeting(2);
    scriptConversations(h.server, {
      'three children': [reply(taskUse('only reads'), taskUse('writes one'), taskUse('writes two')), text('all done')],
      'only reads': [reply(toolUse('read', { file_path: 'keep.txt' })), text('read it')],
      'writes one': [together.at(reply(toolUse('write', { file_path: 'one.txt', content: 'one\n' }))), text('one written')],
      'writes two': [together.at(reply(toolUse('write', { file_path: 'two.txt', content: 'two\n' }))), text('two written')],
    });
    writeFileSync(join(h.projectDir, 'keep.txt'), 'keep\n');
    const root = h.engine.createSession();
    const outcome = await h.engine.prompt(root.id, 'three children');
    expect(outcome.status).toBe('completed');
    const children = h.store.children(root.id);
    const reader = children.find((c) => c.task_description === 'only reads')!;
    const one = children.find((c) => c.task_description === 'writes one')!;
    const two = children.find((c) => c.task_description === 'writes two')!;

    // The prompt's before and after, one start shared by the two writers, and each writer's end.
    await waitFor(() => snapshotsTaken(trace) >= 5, 'the snapshots to be taken', { timeoutMs: 10_000 });
    expect(snapshotsTaken(trace)).toBe(5);

    expect(await h.engine.sessionDiff(reader.id)).toBe('');
    expect(await h.engine.sessionChanges(reader.id)).toEqual([]);
    expect(await h.engine.sessionDiffStat(reader.id)).toEqual({ files: 0, additions: 0, deletions: 0 });
    expect((await h.engine.revertSession(reader.id)).files).toEqual([]);
    expect((await h.engine.sessionChanges(one.id)).map((f) => f.path)).toEqual(['one.txt']);
    expect((await h.engine.revertSession(two.id)).files).toEqual(['two.txt']);
    expect(read('two.txt')).toBeUndefined();
    expect(read('one.txt')).toBe('one\n');
  });

  it('takes no snapshot in a turn that changes nothing; undo, rewind and the session diff step over such turns', async () => {
    h = await startHarness({ engine: { autoApprove: true } });
    const trace = join(h.dir, 'git-trace');
    process.env.GIT_TRACE = trace;
    h.server.enqueue(
      text('nothing to change'),
      reply(toolUse('write', { file_path: 'b.txt', content: 'b\n' })),
      text('b written'),
      reply(toolUse('read', { file_path: 'b.txt' })),
      text('b is there'),
    );
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'just talk')).status).toBe('completed');
    expect(snapshotsTaken(trace)).toBe(0);
    expect((await h.engine.prompt(root.id, 'write b')).status).toBe('completed');
    // Its "before" and its "after".
    expect(snapshotsTaken(trace)).toBe(2);
    expect((await h.engine.prompt(root.id, 'talk again')).status).toBe('completed');
    expect(snapshotsTaken(trace)).toBe(2);
    expect(await h.engine.sessionDiff(root.id)).toContain('+b');

    // Undoing the reader's turn restores nothing; rewinding to the first prompt takes back b.txt.
    expect((await h.engine.undo(root.id)).files).toEqual([]);
    expect(read('b.txt')).toBe('b\n');
    const first = h.store.messageRows(root.id).find((r) => r.prompt && !r.undone)!;
    expect((await h.engine.rewind(root.id, first.id, 'both')).files).toEqual(['b.txt']);
    expect(read('b.txt')).toBeUndefined();
  });
});
