// A finished sub-agent's diff stat and typed diff (DESIGN §18): computed once from its start and
// end snapshots when it finishes (announced with `session.diff_stat`), its own sub-agents'
// changes included; a child that changed nothing reports 0 files. Real engine, real git.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { CoreEvent } from '../../src/core/events.js';
import { CoreEventSchema } from '../../src/core/events/schema.js';
import { scriptConversations, taskUse, toolUse } from '../support/conversations.js';
import { reply, text } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const use = toolUse;
const task = taskUse;
const stats = (events: readonly CoreEvent[]) => events.filter((e): e is Extract<CoreEvent, { type: 'session.diff_stat' }> => e.type === 'session.diff_stat');

it("counts each child's changes with its descendants', and a child that changed nothing reports 0 files", async () => {
  h = await startHarness({ config: { subagents: { max_depth: 2 } }, files: { 'edit.txt': 'one\ntwo\nthree\n', 'gone.txt': 'x\ny\n' }, engine: { autoApprove: true } });
  scriptConversations(h.server, {
    'three children': [reply(task('child one edits')), reply(task('child two delegates')), reply(task('child three reads')), text('done')],
    'child one edits': [
      reply(use('read', { file_path: 'edit.txt' })),
      reply(use('edit', { file_path: 'edit.txt', old_string: 'two', new_string: 'TWO\nTWO and a half' })),
      text('edited'),
    ],
    'child two delegates': [reply(use('write', { file_path: 'new.txt', content: 'a\nb\nc\n' })), reply(task('grandchild removes')), text('delegated')],
    'grandchild removes': [reply(use('bash', { command: 'rm gone.txt' })), text('removed')],
    'child three reads': [reply(use('read', { file_path: 'edit.txt' })), text('just read')],
  });
  const root = h.engine.createSession();
  await h.engine.prompt(root.id, 'three children');
  const [one, two, three] = h.store.children(root.id);
  const [grandchild] = h.store.children(two!.id);

  expect(await h.engine.sessionDiffStat(one!.id)).toEqual({ files: 1, additions: 2, deletions: 1 });
  // Its own write and its sub-agent's bash rm.
  expect(await h.engine.sessionDiffStat(two!.id)).toEqual({ files: 2, additions: 3, deletions: 2 });
  expect(await h.engine.sessionDiffStat(grandchild!.id)).toEqual({ files: 1, additions: 0, deletions: 2 });
  expect(await h.engine.sessionDiffStat(three!.id)).toEqual({ files: 0, additions: 0, deletions: 0 });

  // Announced once per child as it finished, and valid per the published schema.
  const announced = stats(h.events);
  for (const e of announced) CoreEventSchema.parse(e);
  expect(Object.fromEntries(announced.map((e) => [e.session_id, e.stat.files]))).toEqual({ [one!.id]: 1, [two!.id]: 2, [grandchild!.id]: 1, [three!.id]: 0 });
  expect(announced.find((e) => e.session_id === grandchild!.id)?.path).toEqual([root.id, two!.id, grandchild!.id]);

  // The typed diff behind the stat.
  const changes = await h.engine.sessionChanges(two!.id);
  expect(changes.map((f) => [f.path, f.status, f.kind])).toEqual([
    ['gone.txt', 'deleted', 'text'],
    ['new.txt', 'added', 'text'],
  ]);
  expect(changes[1]!.hunks).toEqual([{ old_start: 1, old_lines: 0, new_start: 1, new_lines: 3, lines: ['+a', '+b', '+c'] }]);
  const edited = await h.engine.sessionChanges(one!.id);
  expect(edited[0]!.hunks[0]!.lines).toEqual([' one', '-two', '+TWO', '+TWO and a half', ' three']);
});

it('a session loaded later computes its stat from the stored snapshots once, and binary files count no lines', async () => {
  h = await startHarness({ engine: { autoApprove: true } });
  scriptConversations(h.server, {
    'one child': [reply(task('child writes a binary')), text('done')],
    'child writes a binary': [reply(use('bash', { command: "printf 'a\\000b' > blob.bin && printf 'x\\n' > x.txt" })), text('written')],
  });
  const root = h.engine.createSession();
  await h.engine.prompt(root.id, 'one child');
  const [child] = h.store.children(root.id);

  // Another engine on the same store, as `-c` would open it: nothing cached there.
  const later = h.newEngine();
  const stat = await later.sessionDiffStat(child!.id);
  expect(stat).toEqual({ files: 2, additions: 1, deletions: 0 });
  // Later changes on disk do not move a finished session's stat.
  writeFileSync(join(h.projectDir, 'x.txt'), 'changed since\n');
  expect(await later.sessionDiffStat(child!.id)).toEqual(stat);
  expect((await later.sessionChanges(child!.id)).find((f) => f.path === 'blob.bin')).toMatchObject({ kind: 'binary', hunks: [] });
  // A root session has no start and end snapshots: no stat.
  expect(await later.sessionDiffStat(root.id)).toBeUndefined();
});
