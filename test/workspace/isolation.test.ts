// Sub-agents in their own git worktrees (DESIGN §17), end to end: a real engine, real git,
// real tools and processes, children scripted through the fake Messages API.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isTaskCompletion, type CoreEvent, type TaskOutcome } from '../../src/core/events.js';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { reply, text, toolResults, type RecordedRequest, type ScriptedBlock } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness, type HarnessOptions } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();
}

/** Makes the harness's project a real repository with one commit (or none). */
function makeRepo(dir: string, commit = true): void {
  rmSync(join(dir, '.git'), { recursive: true, force: true });
  git(dir, 'init', '-q', '-b', 'main');
  if (commit) {
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'init');
  }
}

async function isolatedHarness(opts: HarnessOptions = {}, commit = true): Promise<Harness> {
  const harness = await startHarness({ ...opts, engine: { autoApprove: true, ...opts.engine } });
  makeRepo(harness.projectDir, commit);
  return harness;
}

let seq = 0;
const use = (name: string, input: Record<string, unknown>): ScriptedBlock => ({ type: 'tool_use', name, input, id: `toolu_${name}_${++seq}` });
const spawn = (prompt: string, extra: Record<string, unknown> = {}) =>
  use('task', { description: prompt.slice(0, 20), prompt, subagent_type: 'general', isolation: 'worktree', ...extra });

function taskCompletions(events: readonly CoreEvent[]): Array<{ output: string; metadata: TaskOutcome }> {
  return events.flatMap((e) => (e.type === 'tool.completed' && isTaskCompletion(e) && e.metadata ? [{ output: e.output, metadata: e.metadata }] : []));
}

function resultTexts(req: RecordedRequest): string[] {
  return toolResults(req).map((r) => (typeof r.content === 'string' ? r.content : JSON.stringify(r.content)));
}

const sha = (file: string) => createHash('sha1').update(readFileSync(file)).digest('hex');

/** What must hold after every isolated run: no worktree, no folder in the data dir, HEAD and index as they were. */
function expectNoWorktrees(h: Harness): void {
  expect(git(h.projectDir, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  const root = join(h.dir, 'data', 'worktrees');
  const left = existsSync(root) ? readdirSync(root).flatMap((p) => readdirSync(join(root, p))) : [];
  expect(left).toEqual([]);
}

const LINES = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
const FILE = `${LINES.join('\n')}\n`;

describe('task isolation "worktree"', () => {
  it('merges two children that change different lines of one file, leaving HEAD and the index alone', async () => {
    h = await isolatedHarness({ files: { 'shared.txt': FILE } });
    const head = git(h.projectDir, 'rev-parse', 'HEAD');
    const index = sha(join(h.projectDir, '.git', 'index'));
    scriptConversations(h.server, {
      'fan out': [reply(spawn('edit top'), spawn('edit bottom')), text('done')],
      'edit top': [
        reply(use('read', { file_path: 'shared.txt' })),
        reply(use('edit', { file_path: 'shared.txt', old_string: 'line 2\n', new_string: 'line 2 (top)\n' })),
        text('top edited'),
      ],
      'edit bottom': [
        reply(use('read', { file_path: 'shared.txt' })),
        reply(use('edit', { file_path: 'shared.txt', old_string: 'line 11\n', new_string: 'line 11 (bottom)\n' })),
        text('bottom edited'),
      ],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'fan out')).status).toBe('completed');

    const content = readFileSync(join(h.projectDir, 'shared.txt'), 'utf8');
    expect(content).toContain('line 2 (top)\n');
    expect(content).toContain('line 11 (bottom)\n');
    expect(git(h.projectDir, 'rev-parse', 'HEAD')).toBe(head);
    expect(sha(join(h.projectDir, '.git', 'index'))).toBe(index);
    expect(git(h.projectDir, 'status', '--porcelain')).toBe('M shared.txt');
    for (const { output, metadata } of taskCompletions(h.events)) {
      expect(metadata.merge).toEqual({ state: 'merged', files: ['shared.txt'] });
      expect(output).toContain('merge="merged"');
      expect(output).toContain('shared.txt');
    }
    expect(taskCompletions(h.events)).toHaveLength(2);
    await h.engine.workspacesSettled();
    expectNoWorktrees(h);
    expect(git(h.projectDir, 'branch', '--list', 'opencode/*')).toBe('');
  });

  it('lands one of two children that change the same line and reports the other as a conflict, its work kept on its branch', async () => {
    h = await isolatedHarness({ files: { 'shared.txt': FILE } });
    const child = (word: string) => [
      reply(use('read', { file_path: 'shared.txt' })),
      reply(use('edit', { file_path: 'shared.txt', old_string: 'line 5\n', new_string: `line 5 ${word}\n` })),
      text(`${word} done`),
    ];
    scriptConversations(h.server, {
      'race': [reply(spawn('say red'), spawn('say blue')), text('done')],
      'say red': child('red'),
      'say blue': child('blue'),
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'race')).status).toBe('completed');
    await h.engine.workspacesSettled();

    const done = taskCompletions(h.events);
    const merged = done.filter((d) => d.metadata.merge?.state === 'merged');
    const conflicted = done.filter((d) => d.metadata.merge?.state === 'conflict');
    expect(merged).toHaveLength(1);
    expect(conflicted).toHaveLength(1);
    const conflict = conflicted[0]!;
    const branch = `opencode/${conflict.metadata.session_id}`;
    expect(conflict.metadata.merge).toMatchObject({ state: 'conflict', files: ['shared.txt'], branch });
    expect(conflict.output).toContain(`merge="conflict" branch="${branch}"`);

    const content = readFileSync(join(h.projectDir, 'shared.txt'), 'utf8');
    expect(content).not.toMatch(/<<<<<<<|>>>>>>>|=======/);
    const winner = content.includes('line 5 red') ? 'red' : 'blue';
    const loser = winner === 'red' ? 'blue' : 'red';
    expect(content).toContain(`line 5 ${winner}\n`);
    // Nothing lost: the other child's edit is committed on its branch.
    expect(git(h.projectDir, 'show', `${branch}:shared.txt`)).toContain(`line 5 ${loser}`);
    expectNoWorktrees(h);
  });

  it("never overwrites what the user changed in the parent's tree while the child worked", async () => {
    h = await isolatedHarness({ files: { 'shared.txt': FILE, 'mine.txt': FILE } });
    const project = h.projectDir;
    const userEdit = (file: string, from: string, to: string) => {
      const path = join(project, file);
      writeFileSync(path, readFileSync(path, 'utf8').replace(from, to));
    };
    scriptConversations(h.server, {
      'two edits': [reply(spawn('edit both')), text('done')],
      'edit both': [
        reply(use('read', { file_path: 'shared.txt' }), use('read', { file_path: 'mine.txt' })),
        // While the child works in its worktree, the user edits the same files in the project:
        // a different line of shared.txt, and the very line of mine.txt the child changes.
        (_req: RecordedRequest) => {
          userEdit('shared.txt', 'line 9\n', 'line 9 by the user\n');
          userEdit('mine.txt', 'line 5\n', 'line 5 by the user\n');
          return reply(
            use('edit', { file_path: 'shared.txt', old_string: 'line 2\n', new_string: 'line 2 by the child\n' }),
            use('edit', { file_path: 'mine.txt', old_string: 'line 5\n', new_string: 'line 5 by the child\n' }),
          );
        },
        text('edited'),
      ],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'two edits')).status).toBe('completed');
    await h.engine.workspacesSettled();

    const [done] = taskCompletions(h.events);
    const branch = `opencode/${done!.metadata.session_id}`;
    // One file of the child's change overlaps the user's: nothing is half-applied.
    expect(done!.metadata.merge).toMatchObject({ state: 'conflict', files: ['mine.txt'], branch });
    expect(readFileSync(join(project, 'mine.txt'), 'utf8')).toBe(FILE.replace('line 5\n', 'line 5 by the user\n'));
    expect(readFileSync(join(project, 'shared.txt'), 'utf8')).toBe(FILE.replace('line 9\n', 'line 9 by the user\n'));
    // The child's work is all on its branch.
    expect(git(project, 'show', `${branch}:mine.txt`)).toContain('line 5 by the child');
    expect(git(project, 'show', `${branch}:shared.txt`)).toContain('line 2 by the child');
  });

  it('merges around what the user changed meanwhile on other lines, keeping both', async () => {
    h = await isolatedHarness({ files: { 'shared.txt': FILE } });
    const project = h.projectDir;
    scriptConversations(h.server, {
      'one edit': [reply(spawn('edit line 2')), text('done')],
      'edit line 2': [
        reply(use('read', { file_path: 'shared.txt' })),
        (_req: RecordedRequest) => {
          const path = join(project, 'shared.txt');
          writeFileSync(path, readFileSync(path, 'utf8').replace('line 9\n', 'line 9 by the user\n'));
          return reply(use('edit', { file_path: 'shared.txt', old_string: 'line 2\n', new_string: 'line 2 by the child\n' }));
        },
        text('edited'),
      ],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'one edit')).status).toBe('completed');
    await h.engine.workspacesSettled();
    expect(taskCompletions(h.events)[0]!.metadata.merge).toMatchObject({ state: 'merged', files: ['shared.txt'] });
    expect(readFileSync(join(project, 'shared.txt'), 'utf8')).toBe(FILE.replace('line 2\n', 'line 2 by the child\n').replace('line 9\n', 'line 9 by the user\n'));
    expectNoWorktrees(h);
  });

  it('runs the child in a worktree outside the project and merges new, deleted, renamed and bash-made files', async () => {
    h = await isolatedHarness({ files: { 'keep.txt': 'keep\n', 'gone.txt': 'bye\n', 'old-name.txt': 'moving\n', 'run.sh': 'echo hi\n' } });
    scriptConversations(h.server, {
      'reshape': [reply(spawn('shape files')), text('done')],
      'shape files': [
        reply(use('bash', { command: 'pwd' })),
        reply(use('bash', { command: 'printf made > made-by-bash.txt && rm gone.txt && mv old-name.txt new-name.txt && chmod +x run.sh' })),
        reply(use('write', { file_path: 'src/written.txt', content: 'written\n' })),
        text('reshaped'),
      ],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'reshape')).status).toBe('completed');

    const pwd = resultTexts(requestsOf(h.server, 'shape files')[1]!)[0]!;
    expect(pwd).not.toContain(h.projectDir);
    expect(pwd).toContain(join(h.dir, 'data', 'worktrees'));

    const p = (name: string) => join(h!.projectDir, name);
    expect(readFileSync(p('made-by-bash.txt'), 'utf8')).toBe('made');
    expect(readFileSync(p('src/written.txt'), 'utf8')).toBe('written\n');
    expect(readFileSync(p('new-name.txt'), 'utf8')).toBe('moving\n');
    expect(existsSync(p('gone.txt'))).toBe(false);
    expect(existsSync(p('old-name.txt'))).toBe(false);
    expect(statSync(p('run.sh')).mode & 0o100).toBe(0o100);
    const [done] = taskCompletions(h.events);
    expect(done!.metadata.merge?.state).toBe('merged');
    expect([...done!.metadata.merge!.files].sort()).toEqual(['gone.txt', 'made-by-bash.txt', 'new-name.txt', 'old-name.txt', 'run.sh', 'src/written.txt']);
    // Uncommitted changes, nothing staged.
    expect(git(h.projectDir, 'diff', '--cached', '--name-only')).toBe('');
    await h.engine.workspacesSettled();
    expectNoWorktrees(h);
  });

  it('starts the child from the uncommitted and untracked state of the parent tree, not from HEAD', async () => {
    h = await isolatedHarness({ files: { 'a.txt': 'committed\n', '.gitignore': 'ignored.txt\n' } });
    writeFileSync(join(h.projectDir, 'a.txt'), 'uncommitted\n');
    writeFileSync(join(h.projectDir, 'untracked.txt'), 'untracked\n');
    writeFileSync(join(h.projectDir, 'ignored.txt'), 'ignored\n');
    scriptConversations(h.server, {
      'look': [reply(spawn('look around')), text('done')],
      'look around': [reply(use('bash', { command: 'cat a.txt untracked.txt; ls ignored.txt || echo no-ignored' })), text('seen')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'look');
    const seen = resultTexts(requestsOf(h.server, 'look around')[1]!)[0]!;
    expect(seen).toContain('uncommitted');
    expect(seen).toContain('untracked');
    expect(seen).toContain('no-ignored');
    expect(taskCompletions(h.events)[0]!.metadata.merge).toEqual({ state: 'none', files: [] });
    await h.engine.workspacesSettled();
    expectNoWorktrees(h);
  });

  it('works in a repository with no commits yet', async () => {
    h = await isolatedHarness({ files: { 'first.txt': 'first\n' } }, false);
    scriptConversations(h.server, {
      'start': [reply(spawn('add a file')), text('done')],
      'add a file': [reply(use('write', { file_path: 'second.txt', content: 'second\n' })), text('added')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'start');
    expect(readFileSync(join(h.projectDir, 'second.txt'), 'utf8')).toBe('second\n');
    expect(taskCompletions(h.events)[0]!.metadata.merge).toEqual({ state: 'merged', files: ['second.txt'] });
    expect(() => git(h!.projectDir, 'rev-parse', '-q', '--verify', 'HEAD')).toThrow();
  });

  it('keeps a cancelled child\'s partial work on its branch without merging it', async () => {
    h = await isolatedHarness({ files: { 'a.txt': 'a\n' } });
    scriptConversations(h.server, {
      'go': [reply(spawn('half done')), text('never')],
      'half done': [reply(use('write', { file_path: 'partial.txt', content: 'partial\n' })), { type: 'stall' }],
    });
    const root = h.engine.createSession();
    const turn = h.engine.prompt(root.id, 'go');
    await waitForEvent(h.engine, (e) => e.type === 'tool.completed' && e.tool === 'write', 10_000);
    await h.server.waitForRequests(3, 10_000);
    h.engine.cancel(root.id);
    await turn;
    await h.engine.workspacesSettled();

    const [done] = taskCompletions(h.events);
    const branch = `opencode/${done!.metadata.session_id}`;
    expect(done!.metadata).toMatchObject({ state: 'cancelled', merge: { state: 'none', files: ['partial.txt'], branch } });
    expect(existsSync(join(h.projectDir, 'partial.txt'))).toBe(false);
    expect(git(h.projectDir, 'show', `${branch}:partial.txt`)).toBe('partial');
    expectNoWorktrees(h);
  });

  it('follows call > agent > config for the isolation choice', async () => {
    h = await isolatedHarness({
      config: { subagents: { isolation: 'worktree' }, agent: { worker: { mode: 'subagent', description: 'Works here.', isolation: 'none' } } },
    });
    scriptConversations(h.server, {
      'where': [reply(spawn('pwd default', { isolation: undefined }), spawn('pwd call', { isolation: 'none' }), spawn('pwd agent', { isolation: undefined, subagent_type: 'worker' })), text('done')],
      'pwd default': [reply(use('bash', { command: 'pwd' })), text('ok')],
      'pwd call': [reply(use('bash', { command: 'pwd' })), text('ok')],
      'pwd agent': [reply(use('bash', { command: 'pwd' })), text('ok')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'where');
    const pwdOf = (prompt: string) => resultTexts(requestsOf(h!.server, prompt)[1]!)[0]!.trim();
    expect(pwdOf('pwd default')).toContain(join(h.dir, 'data', 'worktrees'));
    expect(pwdOf('pwd call')).toBe(h.projectDir);
    expect(pwdOf('pwd agent')).toBe(h.projectDir);
  });

  it('refuses isolation outside a git repository, and an unknown isolation value, with error results', async () => {
    h = await startHarness({ engine: { autoApprove: true } });
    scriptConversations(h.server, {
      'try': [reply(spawn('isolated'), spawn('odd', { isolation: 'container' })), text('done')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'try');
    const [noRepo, badValue] = resultTexts(requestsOf(h.server, 'try')[1]!);
    expect(noRepo).toMatch(/isolation "worktree" needs a git repository, and .* is not inside one/);
    expect(badValue).toContain('Invalid arguments for tool "task"');
    expect(badValue).toContain('isolation');
    expect(h.store.children(root.id)).toHaveLength(0);
  });
});
