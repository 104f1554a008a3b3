// The text listing of `sessions --all` shows the tree by indentation.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { OpenedProject } from '../../src/core/project-context.js';
import { sessionShow, sessionsList } from '../../src/cli/commands/sessions.js';
import { SessionStore } from '../../src/core/store/index.js';

let dir: string | undefined;
let store: SessionStore | undefined;
afterEach(() => {
  store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('indents each sub-agent session by its depth under its parent', () => {
  dir = mkdtempSync(join(tmpdir(), 'oci-list-'));
  store = SessionStore.open(dir);
  const base = { status: 'completed', model: 'anthropic/claude-sonnet-4-6', cwd: dir } as const;
  const root = store.createSession({ ...base, agent: 'build', title: 'root', depth: 0 });
  const mid = store.createSession({ ...base, agent: 'general', title: 'mid', depth: 1, parent_id: root.id });
  const leaf = store.createSession({ ...base, agent: 'explore', title: 'leaf', depth: 2, parent_id: mid.id });
  const lines = sessionsList({ store } as unknown as OpenedProject, { all: true, json: false }).split('\n');
  const line = (id: string) => lines.find((l) => l.includes(id))!;
  expect(line(root.id).startsWith(root.id)).toBe(true);
  expect(line(mid.id).startsWith(`  ${mid.id}`)).toBe(true);
  expect(line(leaf.id).startsWith(`    ${leaf.id}`)).toBe(true);
  expect(lines.findIndex((l) => l.includes(leaf.id))).toBeGreaterThan(lines.findIndex((l) => l.includes(mid.id)));
});

it('shows a session named by a unique prefix of its id', () => {
  dir = mkdtempSync(join(tmpdir(), 'oci-list-'));
  store = SessionStore.open(dir);
  const root = store.createSession({ status: 'completed', model: 'anthropic/claude-sonnet-4-6', cwd: dir, agent: 'build', title: 'the only one', depth: 0 });
  const shown = sessionShow({ store } as unknown as OpenedProject, root.id.slice(0, 12), { json: false });
  expect(shown.split('\n')[1]).toContain(`id ${root.id}`);
  expect(() => sessionShow({ store } as unknown as OpenedProject, 'ses_Z', { json: false })).toThrow('No session with id "ses_Z"');
});

it('lists what ran unasked under its mode, or the skill or command whose allowed-tools let it run', () => {
  dir = mkdtempSync(join(tmpdir(), 'oci-list-'));
  store = SessionStore.open(dir);
  const root = store.createSession({ status: 'completed', model: 'anthropic/claude-sonnet-4-6', cwd: dir, agent: 'build', title: 'unasked', depth: 0 });
  store.recordAutoApproval({ session_id: root.id, mode: 'acceptEdits', tool: 'write', permission: 'edit', subject: 'a.txt', call_id: 'toolu_1' });
  store.recordAutoApproval({ session_id: root.id, mode: 'default', tool: 'bash', permission: 'bash', subject: 'git add a.txt', call_id: 'toolu_2', skill: 'committer' });
  store.recordAutoApproval({ session_id: root.id, mode: 'default', tool: 'bash', permission: 'bash', subject: 'git status', call_id: 'toolu_3', skill: '/review' });
  const shown = sessionShow({ store } as unknown as OpenedProject, root.id, { json: false });
  expect(shown).toContain('Ran without asking (permission mode):\n  [acceptEdits] write a.txt\n  [skill committer] bash git add a.txt\n  [command /review] bash git status');
  const json = JSON.parse(sessionShow({ store } as unknown as OpenedProject, root.id, { json: true })) as { permission_auto: unknown[] };
  expect(json.permission_auto).toEqual([expect.objectContaining({ skill: null, mode: 'acceptEdits' }), expect.objectContaining({ skill: 'committer', subject: 'git add a.txt' }), expect.objectContaining({ skill: '/review' })]);
});
