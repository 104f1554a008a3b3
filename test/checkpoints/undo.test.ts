// Undo, redo and per-session revert end to end (DESIGN §18): a real engine, real files, real
// git for the snapshots, real tools (bash included), and turns scripted through the fake
// Messages API.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UndoConflictError } from '../../src/core/engine.js';
import type { CoreEvent } from '../../src/core/events.js';
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

function files(h: Harness): Record<string, string | undefined> {
  const read = (name: string) => (existsSync(join(h.projectDir, name)) ? readFileSync(join(h.projectDir, name), 'utf8') : undefined);
  return Object.fromEntries(['new.txt', 'edit.txt', 'append.txt', 'remove.txt', 'child.txt'].map((n) => [n, read(n)]));
}

const ORIGINAL = { 'new.txt': undefined, 'edit.txt': 'original\n', 'append.txt': 'a\n', 'remove.txt': 'bye\n', 'child.txt': 'child original\n' };
const CHANGED = { 'new.txt': 'new\n', 'edit.txt': 'edited\n', 'append.txt': 'a\nb\n', 'remove.txt': undefined, 'child.txt': 'child edited\n' };

const reverted = (events: readonly CoreEvent[]) => events.filter((e): e is Extract<CoreEvent, { type: 'session.reverted' }> => e.type === 'session.reverted');

describe('undo and redo', () => {
  it('puts back write, edit, bash append, bash rm and a sub-agent edit, redoes them, and hides the undone turn from the model', async () => {
    h = await startHarness({
      files: { 'edit.txt': 'original\n', 'append.txt': 'a\n', 'remove.txt': 'bye\n', 'child.txt': 'child original\n' },
      engine: { autoApprove: true },
    });
    scriptConversations(h.server, {
      'first prompt': [
        text('hello'),
        // The turn to undo.
        reply(use('write', { file_path: 'new.txt', content: 'new\n' })),
        reply(use('read', { file_path: 'edit.txt' })),
        reply(use('edit', { file_path: 'edit.txt', old_string: 'original', new_string: 'edited' })),
        reply(use('bash', { command: 'echo b >> append.txt' })),
        reply(use('bash', { command: 'rm remove.txt' })),
        reply(task('edit child.txt please')),
        text('all done SECRET-ANSWER'),
        // After the undo.
        text('fresh start'),
      ],
      'edit child.txt please': [
        reply(use('read', { file_path: 'child.txt' })),
        reply(use('edit', { file_path: 'child.txt', old_string: 'child original', new_string: 'child edited' })),
        text('child done'),
      ],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'first prompt')).status).toBe('completed');
    expect((await h.engine.prompt(root.id, 'change things SECRET-PROMPT')).status).toBe('completed');
    expect(files(h)).toEqual(CHANGED);

    const undone = await h.engine.undo(root.id);
    expect(files(h)).toEqual(ORIGINAL);
    expect(undone.prompt?.text).toBe('change things SECRET-PROMPT');
    expect([...undone.files].sort()).toEqual(['append.txt', 'child.txt', 'edit.txt', 'new.txt', 'remove.txt']);
    const [undoEvent] = reverted(h.events);
    expect(undoEvent).toMatchObject({ action: 'undo', session_id: root.id, hidden_message_ids: undone.hidden_message_ids });
    // Kept in the store, marked.
    const rows = h.store.messageRows(root.id);
    expect(rows.filter((r) => r.undone).map((r) => r.id)).toEqual(undone.hidden_message_ids);

    await h.engine.redo(root.id);
    expect(files(h)).toEqual(CHANGED);
    expect(h.store.messageRows(root.id).some((r) => r.undone)).toBe(false);

    await h.engine.undo(root.id);
    expect(files(h)).toEqual(ORIGINAL);
    const before = h.server.requests.length;
    await h.engine.prompt(root.id, 'after undo');
    const sent = JSON.stringify(h.server.requests[before]!.body.messages);
    expect(sent).toContain('first prompt');
    expect(sent).toContain('after undo');
    for (const trace of ['SECRET-PROMPT', 'SECRET-ANSWER', 'new.txt', 'append.txt', 'child done']) expect(sent).not.toContain(trace);
    // A new prompt ends what redo could bring back.
    await expect(h.engine.redo(root.id)).rejects.toThrow(/Nothing to redo/);
    expect(h.store.messageRows(root.id).filter((r) => r.undone).length).toBe(undone.hidden_message_ids.length);
    // Repeated undo walks back prompt by prompt.
    await h.engine.undo(root.id);
    await h.engine.undo(root.id);
    await expect(h.engine.undo(root.id)).rejects.toThrow(/Nothing to undo/);
  });

  it('keeps a later user edit that does not overlap, and refuses an overlapping one without changing anything', async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n') + '\n';
    h = await startHarness({ files: { 'f.txt': lines, 'g.txt': 'g\n' }, engine: { autoApprove: true } });
    scriptConversations(h.server, {
      'change them': [
        reply(use('read', { file_path: 'f.txt' }), use('read', { file_path: 'g.txt' })),
        reply(use('edit', { file_path: 'f.txt', old_string: 'line 0\n', new_string: 'line 0 agent\n' }), use('edit', { file_path: 'g.txt', old_string: 'g', new_string: 'g agent' })),
        text('done'),
      ],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'change them');
    const f = join(h.projectDir, 'f.txt');
    const g = join(h.projectDir, 'g.txt');
    // Overlapping: the user changed the agent's own line in g.txt.
    writeFileSync(f, readFileSync(f, 'utf8').replace('line 19', 'line 19 user'));
    writeFileSync(g, 'g agent and user\n');
    const fNow = readFileSync(f, 'utf8');
    const error = await h.engine.undo(root.id).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(UndoConflictError);
    expect((error as UndoConflictError).files).toEqual(['g.txt']);
    expect((error as UndoConflictError).message).toContain('g.txt');
    expect(readFileSync(f, 'utf8')).toBe(fNow);
    expect(readFileSync(g, 'utf8')).toBe('g agent and user\n');
    expect(h.store.messageRows(root.id).some((r) => r.undone)).toBe(false);
    expect(reverted(h.events)).toEqual([]);

    // Without the overlap, the user's line 19 survives the undo.
    writeFileSync(g, 'g agent\n');
    await h.engine.undo(root.id);
    expect(readFileSync(f, 'utf8')).toBe(lines.replace('line 19', 'line 19 user'));
    expect(readFileSync(g, 'utf8')).toBe('g\n');
  });

  it('works in a project that is not a git repository', async () => {
    h = await startHarness({ files: { 'a.txt': 'a\n' }, engine: { autoApprove: true } });
    rmSync(join(h.projectDir, '.git'), { recursive: true, force: true });
    const engine = h.newEngine();
    scriptConversations(h.server, { 'write it': [reply(use('write', { file_path: 'b.txt', content: 'b\n' })), text('ok')] });
    const root = engine.createSession();
    await engine.prompt(root.id, 'write it');
    expect(existsSync(join(h.projectDir, 'b.txt'))).toBe(true);
    await engine.undo(root.id);
    expect(existsSync(join(h.projectDir, 'b.txt'))).toBe(false);
    expect(readFileSync(join(h.projectDir, 'a.txt'), 'utf8')).toBe('a\n');
  });
});

describe('per-session revert and diff', () => {
  it("reverts one of two children, keeping the other's and the parent's changes", async () => {
    h = await startHarness({ files: { 'keep.txt': 'keep\n' }, engine: { autoApprove: true } });
    scriptConversations(h.server, {
      'two children': [reply(task('child one writes a')), reply(task('child two writes b')), reply(use('write', { file_path: 'p.txt', content: 'parent\n' })), text('done')],
      'child one writes a': [reply(use('write', { file_path: 'a.txt', content: 'a\n' })), text('a written')],
      'child two writes b': [reply(use('write', { file_path: 'b.txt', content: 'b\n' })), text('b written')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'two children');
    const [one, two] = h.store.children(root.id);
    expect(await h.engine.sessionDiff(two!.id)).toMatch(/\+\+\+ b\/b\.txt\n@@ .* @@\n\+b\n/);
    expect(await h.engine.sessionDiff(two!.id)).not.toContain('a.txt');

    const outcome = await h.engine.revertSession(one!.id);
    expect(outcome.files).toEqual(['a.txt']);
    expect(existsSync(join(h.projectDir, 'a.txt'))).toBe(false);
    expect(readFileSync(join(h.projectDir, 'b.txt'), 'utf8')).toBe('b\n');
    expect(readFileSync(join(h.projectDir, 'p.txt'), 'utf8')).toBe('parent\n');
    expect(reverted(h.events)).toEqual([expect.objectContaining({ action: 'revert', session_id: one!.id, path: [root.id, one!.id], files: ['a.txt'] })]);
  });
});
