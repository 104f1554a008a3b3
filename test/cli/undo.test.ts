// `opencode-ink undo`, `redo`, `sessions show` (undone messages marked) and `sessions diff`
// through the built binary, against the fake Messages API.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { reply, text } from '../support/fake-anthropic.js';
import { runCli, startCli, startCliProject, type CliProject } from '../support/cli.js';

let p: CliProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

it('undoes and redoes the last prompt, marks it in sessions show, and refuses to overwrite a later overlapping edit (exit 1)', async () => {
  p = await startCliProject();
  const { project, env, server } = p;
  writeFileSync(join(project, 'notes.txt'), 'old\n');
  server.enqueue(
    reply({ type: 'tool_use', id: 'toolu_w', name: 'write', input: { file_path: 'made.txt', content: 'made\n' } }),
    reply({ type: 'tool_use', id: 'toolu_b', name: 'bash', input: { command: 'echo new > notes.txt' } }),
    text('done'),
  );
  const run = await runCli(['run', '--yes', 'make the files'], { cwd: project, env });
  expect(run.code).toBe(0);
  expect(readFileSync(join(project, 'made.txt'), 'utf8')).toBe('made\n');

  const undo = await runCli(['undo'], { cwd: project, env });
  expect(undo.stderr).toBe('');
  expect(undo.code).toBe(0);
  expect(undo.stdout).toMatch(/^Undid "make the files" in session ses_\S+: 2 files restored \((made\.txt, notes\.txt|notes\.txt, made\.txt)\)\.\n$/);
  expect(existsSync(join(project, 'made.txt'))).toBe(false);
  expect(readFileSync(join(project, 'notes.txt'), 'utf8')).toBe('old\n');
  const id = /session (ses_\S+):/.exec(undo.stdout)![1]!;
  const show = await runCli(['sessions', 'show', id], { cwd: project, env });
  expect(show.stdout).toContain('[undone] > make the files');

  const redo = await runCli(['redo', '-s', id], { cwd: project, env });
  expect(redo.code).toBe(0);
  expect(readFileSync(join(project, 'notes.txt'), 'utf8')).toBe('new\n');
  expect(readFileSync(join(project, 'made.txt'), 'utf8')).toBe('made\n');

  writeFileSync(join(project, 'notes.txt'), 'mine\n');
  const refused = await runCli(['undo'], { cwd: project, env });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('notes.txt');
  expect(refused.stderr.trim().split('\n')).toHaveLength(1);
  expect(readFileSync(join(project, 'notes.txt'), 'utf8')).toBe('mine\n');
  expect(readFileSync(join(project, 'made.txt'), 'utf8')).toBe('made\n');
});

it('leaves a turn the process was killed in undoable: the files come back, the prompt is hidden, and the session goes on', async () => {
  p = await startCliProject();
  const { project, env, server } = p;
  writeFileSync(join(project, 'kept.txt'), 'before\n');
  server.enqueue(
    reply(
      { type: 'tool_use', id: 'toolu_w', name: 'write', input: { file_path: 'half.txt', content: 'half\n' } },
      { type: 'tool_use', id: 'toolu_b', name: 'bash', input: { command: 'echo during > kept.txt' } },
    ),
    // The next model request never answers: the process is killed while it waits.
    { type: 'stall' },
  );
  const crashed = startCli(['run', '--yes', 'start the change'], { cwd: project, env });
  await server.waitForRequests(2, 30_000);
  crashed.child.kill('SIGKILL');
  await crashed.done;
  expect(readFileSync(join(project, 'half.txt'), 'utf8')).toBe('half\n');

  const undo = await runCli(['undo'], { cwd: project, env });
  expect(undo.stderr).toBe('');
  expect(undo.code).toBe(0);
  expect(existsSync(join(project, 'half.txt'))).toBe(false);
  expect(readFileSync(join(project, 'kept.txt'), 'utf8')).toBe('before\n');
  const id = /session (ses_\S+):/.exec(undo.stdout)![1]!;

  server.enqueue(text('fresh start'));
  const next = await runCli(['run', '-s', id, 'what now?'], { cwd: project, env });
  expect(next.stderr).toBe('');
  expect(next.code).toBe(0);
  const last = JSON.stringify(server.requests[server.requests.length - 1]!.body.messages);
  expect(last).toContain('what now?');
  expect(last).not.toContain('start the change');
});
