// Sub-agents that run side by side in one tree (several `task` calls in one message, no
// isolation) share their snapshot windows. Each one's revert, diff and diff stat must keep to
// its own files (DESIGN §18: "keeping the parent's and other children's changes"), a file two
// of them changed is left alone and named, and this holds after a restart. Real engine, real
// files, real git for the snapshots, real tools (bash included), the fake Messages API.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreEvent } from '../../src/core/events.js';
import { HookScripts, hookConfig } from '../hooks/scripts.js';
import { runCli } from '../support/cli.js';
import { scriptConversations, type ReplyScript, taskUse, toolUse } from '../support/conversations.js';
import { reply, text, type ScriptedReply } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const use = toolUse;
const task = taskUse;
const bash = (command: string) => use('bash', { command, description: 'change files' });

/** A point several conversations wait at: each reply made by `at()` is served only once `count` of them have been asked for. */
function meeting(count: number): { at: (answer: ScriptedReply) => ReplyScript } {
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

/** A moment one conversation's script marks and another's waits for. */
function latch(): { mark: () => void; reached: Promise<void> } {
  let mark: () => void = () => {};
  const reached = new Promise<void>((resolve) => (mark = resolve));
  return { mark, reached };
}

const read = (h: Harness, name: string) => (existsSync(join(h.projectDir, name)) ? readFileSync(join(h.projectDir, name), 'utf8') : undefined);
const stats = (events: readonly CoreEvent[]) =>
  new Map(events.filter((e): e is Extract<CoreEvent, { type: 'session.diff_stat' }> => e.type === 'session.diff_stat').map((e) => [e.session_id, e.stat]));

describe('sub-agents side by side in one tree', () => {
  it("reverts one child's file tool change and keeps its sibling's, with a diff and a stat of its own", async () => {
    h = await startHarness({ files: { 'keep.txt': 'keep\n' }, engine: { autoApprove: true } });
    // Both children write, then each waits for the other to have written: their windows overlap.
    const bothWrote = meeting(2);
    scriptConversations(h.server, {
      'two side by side': [reply(task('one writes a'), task('two writes b')), reply(use('write', { file_path: 'p.txt', content: 'parent\n' })), text('done')],
      'one writes a': [reply(use('write', { file_path: 'a.txt', content: 'a\n' })), bothWrote.at(text('a written'))],
      'two writes b': [reply(use('write', { file_path: 'b.txt', content: 'b1\nb2\n' })), bothWrote.at(text('b written'))],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'two side by side');
    const children = h.store.children(root.id);
    const one = children.find((c) => c.task_description === 'one writes a')!;
    const two = children.find((c) => c.task_description === 'two writes b')!;

    // Each block's stat counts its own file only.
    const announced = stats(h.events);
    expect(announced.get(one.id)).toEqual({ files: 1, additions: 1, deletions: 0 });
    expect(announced.get(two.id)).toEqual({ files: 1, additions: 2, deletions: 0 });
    expect(await h.engine.sessionDiffStat(one.id)).toEqual({ files: 1, additions: 1, deletions: 0 });
    expect((await h.engine.sessionChanges(two.id)).map((f) => f.path)).toEqual(['b.txt']);
    const diffOfTwo = await h.engine.sessionDiff(two.id);
    expect(diffOfTwo).toContain('+++ b/b.txt');
    expect(diffOfTwo).not.toContain('a.txt');

    const outcome = await h.engine.revertSession(one.id);
    expect(outcome.files).toEqual(['a.txt']);
    expect(outcome.left_alone).toBeUndefined();
    expect(read(h, 'a.txt')).toBeUndefined();
    expect(read(h, 'b.txt')).toBe('b1\nb2\n');
    expect(read(h, 'p.txt')).toBe('parent\n');
    expect(read(h, 'keep.txt')).toBe('keep\n');
  });

  it("keeps to a child's bash changes, leaves alone and names a file its sibling changed too, and still knows after a restart", async () => {
    h = await startHarness({ files: { 'shared.txt': 'base\n' }, engine: { autoApprove: true } });
    // One's command runs first; two's runs after it; one ends only after two's command: overlapping windows, commands in turn.
    const oneRan = latch();
    const twoRan = latch();
    scriptConversations(h.server, {
      'two commands': [reply(task('one runs a command'), task('two runs a command')), text('done')],
      'one runs a command': [
        reply(bash("printf 'c\\n' > c.txt && printf 'one\\n' >> shared.txt")),
        async () => {
          oneRan.mark();
          await twoRan.reached;
          return text('one done');
        },
      ],
      'two runs a command': [
        async () => {
          await oneRan.reached;
          return reply(bash("printf 'b\\n' > b.txt && printf 'two\\n' >> shared.txt"));
        },
        () => {
          twoRan.mark();
          return text('two done');
        },
      ],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'two commands');
    const children = h.store.children(root.id);
    const one = children.find((c) => c.task_description === 'one runs a command')!;
    const two = children.find((c) => c.task_description === 'two runs a command')!;
    expect(read(h, 'shared.txt')).toBe('base\none\ntwo\n');

    expect((await h.engine.sessionChanges(one.id)).map((f) => f.path)).toEqual(['c.txt']);
    expect((await h.engine.sessionChanges(two.id)).map((f) => f.path)).toEqual(['b.txt']);

    // Another process (the CLI) reads the records from the store.
    await h.engine.close();
    const diff = await runCli(['sessions', 'diff', one.id], { cwd: h.projectDir, env: h.env });
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('+++ b/c.txt');
    expect(diff.stdout).not.toContain('shared.txt');
    expect(diff.stderr).toBe(`shared.txt is left out: general (${two.id}) changed it too while this session ran.\n`);
    const cli = await runCli(['sessions', 'revert', one.id], { cwd: h.projectDir, env: h.env });
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain(`Reverted session ${one.id}: 1 file restored (c.txt).`);
    expect(cli.stdout).toContain(`Left as it is (changed by another session at the same time): shared.txt, also changed by general (${two.id}).`);
    expect(read(h, 'c.txt')).toBeUndefined();
    expect(read(h, 'b.txt')).toBe('b\n');
    expect(read(h, 'shared.txt')).toBe('base\none\ntwo\n');

    // The same through the engine's API, for two: its own file only, the shared one named.
    const restarted = h.newEngine();
    h.engine = restarted;
    const outcome = await restarted.revertSession(two.id);
    expect(outcome.files).toEqual(['b.txt']);
    expect(outcome.left_alone).toEqual([{ path: 'shared.txt', also_changed_by: [one.id] }]);
    expect(read(h, 'b.txt')).toBeUndefined();
    expect(read(h, 'shared.txt')).toBe('base\none\ntwo\n');
    const event = h.events.filter((e) => e.type === 'session.reverted').at(-1);
    expect(event).toMatchObject({ action: 'revert', session_id: two.id, files: ['b.txt'], left_alone: [{ path: 'shared.txt', also_changed_by: [one.id] }] });
  });

  it('leaves alone what the user changed in the project while a sub-agent ran', async () => {
    h = await startHarness({ files: { 'notes.txt': 'mine\n' }, engine: { autoApprove: true } });
    const userEdited = latch();
    const childWrote = latch();
    scriptConversations(h.server, {
      'one child while I type': [reply(task('writes while the user edits')), text('done')],
      'writes while the user edits': [
        reply(use('write', { file_path: 'made.txt', content: 'made\n' })),
        async () => {
          childWrote.mark();
          await userEdited.reached;
          return text('child done');
        },
      ],
    });
    const root = h.engine.createSession();
    const turn = h.engine.prompt(root.id, 'one child while I type');
    await childWrote.reached;
    writeFileSync(join(h.projectDir, 'notes.txt'), 'mine, edited while the agent worked\n');
    userEdited.mark();
    await turn;
    const [child] = h.store.children(root.id);
    expect((await h.engine.sessionChanges(child!.id)).map((f) => f.path)).toEqual(['made.txt']);
    const outcome = await h.engine.revertSession(child!.id);
    expect(outcome.files).toEqual(['made.txt']);
    expect(read(h, 'made.txt')).toBeUndefined();
    expect(read(h, 'notes.txt')).toBe('mine, edited while the agent worked\n');
  });

  it("counts what a PostToolUse hook (a formatter) changed after a child's write as the child's", async () => {
    const scripts = new HookScripts(mkdtempSync(join(tmpdir(), 'oci-side-hooks-')));
    const format = scripts.command('format', `fs.writeFileSync(input.cwd + '/generated.txt', 'generated for ' + input.tool_input.file_path + '\\n');`);
    try {
      h = await startHarness({ config: { hooks: hookConfig('PostToolUse', format, 'Write|Edit') }, engine: { autoApprove: true } });
      scriptConversations(h.server, {
        'one child formats': [reply(task('writes and is formatted')), text('done')],
        'writes and is formatted': [reply(use('write', { file_path: 'w.txt', content: 'w\n' })), text('child done')],
      });
      const root = h.engine.createSession();
      await h.engine.prompt(root.id, 'one child formats');
      expect(read(h, 'generated.txt')).toContain('w.txt');
      const [child] = h.store.children(root.id);
      const outcome = await h.engine.revertSession(child!.id);
      expect(outcome.files).toEqual(['generated.txt', 'w.txt']);
      expect(read(h, 'generated.txt')).toBeUndefined();
    } finally {
      rmSync(scripts.dir, { recursive: true, force: true });
    }
  });

  it('reverts everything a child that ran alone changed, through a file tool and bash', async () => {
    h = await startHarness({ engine: { autoApprove: true } });
    scriptConversations(h.server, {
      'one child': [reply(task('alone writes and runs')), text('done')],
      'alone writes and runs': [reply(use('write', { file_path: 'w.txt', content: 'w\n' }), bash("printf 'x\\n' > x.txt")), text('alone done')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'one child');
    const [child] = h.store.children(root.id);
    expect((await h.engine.sessionChanges(child!.id)).map((f) => f.path)).toEqual(['w.txt', 'x.txt']);
    const outcome = await h.engine.revertSession(child!.id);
    expect(outcome.files).toEqual(['w.txt', 'x.txt']);
    expect(read(h, 'w.txt')).toBeUndefined();
    expect(read(h, 'x.txt')).toBeUndefined();
  });
});
