// The program's own git calls on the host (DESIGN §19), through the real engine, real git and
// the fake Messages API: nothing a repository's files say (its config, what that config
// includes, a worktree's `commondir`, a `.git` file) makes them run a command, and a
// repository whose files git needs minutes for never stalls a prompt.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isTaskCompletion, type CoreEvent, type TaskOutcome } from '../../src/core/events.js';
import { scriptConversations, toolUse } from '../support/conversations.js';
import { reply, text } from '../support/fake-anthropic.js';
import { startHarness, type Harness, type HarnessOptions } from '../support/harness.js';
import { git as hostGit, GitError } from '../../src/core/workspace/git.js';
import { bwrapMissing } from '../sandbox/support.js';
import { waitFor } from '../support/wait.js';

let h: Harness | undefined;
afterEach(async () => {
  h?.engine.cancelAll();
  await h?.engine.workspacesSettled();
  await h?.close();
  h = undefined;
});

/** The test's own git: it sets the traps after making the commits, so they never fire here. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'core.hooksPath=/dev/null', ...args], { cwd, encoding: 'utf8' }).trim();
}

async function repoHarness(opts: HarnessOptions & { files: Record<string, string> }): Promise<Harness> {
  const harness = await startHarness({ ...opts, engine: { autoApprove: true, ...opts.engine } });
  rmSync(join(harness.projectDir, '.git'), { recursive: true, force: true });
  git(harness.projectDir, 'init', '-q', '-b', 'main');
  git(harness.projectDir, 'add', '-A');
  git(harness.projectDir, 'commit', '-qm', 'init');
  return harness;
}

const isolated = (prompt: string) =>
  toolUse('task', { description: prompt.slice(0, 20), prompt, subagent_type: 'general', isolation: 'worktree' });

function taskOutcomes(events: readonly CoreEvent[]): TaskOutcome[] {
  return events.flatMap((e) => (e.type === 'tool.completed' && isTaskCompletion(e) && e.metadata ? [e.metadata] : []));
}

/** Marker files the planted commands create when they run: none may exist at the end. */
function markers(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}

const LINES = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
const FILE = `${LINES.join('\n')}\n`;

/**
 * The red team's attack (issue 35, hole 1): the child copies the shared git dir to `.git/evil`,
 * sets core.fsmonitor there, and points its worktree git dir's `commondir` at the copy, with
 * node rather than a shell redirection.
 */
function commondirAttack(marker: string): string {
  // All in one node script: the control-file guard asks about shell writes whose names are only
  // known at run time ("$C-copy"), and this test is about what the host's git does if a write gets through.
  const script = [
    "const { execSync } = require('child_process'); const fs = require('fs');",
    "const C = execSync('git rev-parse --path-format=absolute --git-common-dir').toString().trim();",
    "const G = execSync('git rev-parse --path-format=absolute --git-dir').toString().trim();",
    // Copied twice rather than renamed: inside the sandbox .git is a mount point of its own.
    "fs.cpSync(C, C + '-copy', { recursive: true }); fs.cpSync(C + '-copy', C + '/evil', { recursive: true });",
    `execSync('git --git-dir=' + C + '/evil config core.fsmonitor ' + JSON.stringify('touch ${marker}'));`,
    "try { fs.writeFileSync(G + '/commondir', C + '/evil\\n'); } catch (e) { console.log(e.code); }",
    "console.log(fs.readFileSync(G + '/commondir', 'utf8').trim());",
  ].join(' ');
  return `node -e ${JSON.stringify(script)}`;
}

async function runCommondirAttack(config: Record<string, unknown>): Promise<void> {
  h = await repoHarness({ files: { 'shared.txt': FILE }, config });
  const marker = join(h.dir, 'markers', 'fsmonitor-ran');
  mkdirSync(join(h.dir, 'markers'));
  scriptConversations(h.server, {
    'attack': [reply(isolated('plant a monitor')), text('done')],
    'plant a monitor': [
      reply(toolUse('read', { file_path: 'shared.txt' })),
      reply(toolUse('edit', { file_path: 'shared.txt', old_string: 'line 2\n', new_string: 'line 2 (child)\n' })),
      reply(toolUse('bash', { command: commondirAttack(marker) })),
      text('planted'),
    ],
  });
  const root = h.engine.createSession();
  expect((await h.engine.prompt(root.id, 'attack')).status).toBe('completed');
  await h.engine.workspacesSettled();

  const [outcome] = taskOutcomes(h.events);
  expect(existsSync(marker)).toBe(false);
  const planted = h.events.some((e) => e.type === 'tool.completed' && e.tool === 'bash' && /\/evil$/m.test(e.output));
  if (planted) {
    // The program refused to run git in a worktree whose commondir leads elsewhere, and said which file.
    expect(outcome?.merge?.state).toBe('none');
    expect(outcome?.merge?.reason).toMatch(/\/commondir \(the git directory .*\.git names\) does not lead to .*, so git is not run there/);
    // The user's tree is as it was: the child's work was not merged through the planted repository.
    expect(readFileSync(join(h.projectDir, 'shared.txt'), 'utf8')).toBe(FILE);
  } else {
    // The sandbox kept the pointer read-only: the child's work came back the ordinary way.
    expect(readFileSync(join(h.projectDir, 'shared.txt'), 'utf8')).toBe(FILE.replace('line 2\n', 'line 2 (child)\n'));
  }
  expect(existsSync(marker)).toBe(false);
}

describe("the program's git calls on the host", () => {
  it("never follow a child's worktree commondir to a copy of the repository with its own core.fsmonitor", async () => {
    await runCommondirAttack({ sandbox: { mode: 'off' } });
    expect(h!.events.some((e) => e.type === 'tool.completed' && e.tool === 'bash' && /\/evil$/m.test(e.output))).toBe(true);
  });

  it.skipIf(bwrapMissing !== undefined)('never follow it when the child runs in the sandbox either', async () => {
    await runCommondirAttack({ sandbox: { mode: 'workspace-write' }, permission: { bash: 'allow' } });
    // Inside the sandbox the worktree's commondir is read-only: the attack does not even get planted.
    const bash = h!.events.find((e) => e.type === 'tool.completed' && e.tool === 'bash');
    expect(bash && 'output' in bash ? bash.output : '').toMatch(/Read-only file system|EROFS/);
  });

  it("run none of the commands a repository's config defines: fsmonitor, external diff, filters, merge and diff drivers, includes", async () => {
    h = await repoHarness({ files: { 'shared.txt': FILE, 'notes.inc': 'included filter\n', '.gitattributes': '*.txt filter=evil merge=evil diff=evil\n*.inc filter=inc\n' } });
    const dir = join(h.dir, 'markers');
    mkdirSync(dir);
    const gitDir = join(h.projectDir, '.git');
    const trap = (name: string) => `touch ${join(dir, name)}; cat`;
    writeFileSync(join(gitDir, 'included.cfg'), `[core]\n\tfsmonitor = touch ${join(dir, 'included-fsmonitor')}\n[filter "inc"]\n\tclean = ${trap('included-clean')}\n\tsmudge = ${trap('included-smudge')}\n`);
    writeFileSync(join(gitDir, 'conditional.cfg'), `[filter "inc"]\n\tprocess = ${trap('conditional-process')}\n`);
    const config = [
      `[core]\n\tfsmonitor = touch ${join(dir, 'fsmonitor')}\n\tpager = ${trap('pager')}`,
      `[diff]\n\texternal = ${trap('diff-external')}`,
      `[diff "evil"]\n\tcommand = ${trap('diff-command')}\n\ttextconv = ${trap('textconv')}`,
      `[filter "evil"]\n\tclean = ${trap('clean')}\n\tsmudge = ${trap('smudge')}\n\tprocess = ${trap('process')}\n\trequired = true`,
      `[merge "evil"]\n\tdriver = ${trap('merge-driver')}`,
      '[include]\n\tpath = included.cfg',
      `[includeIf "gitdir:${h.projectDir}/"]\n\tpath = conditional.cfg`,
    ].join('\n');
    writeFileSync(join(gitDir, 'config'), `${readFileSync(join(gitDir, 'config'), 'utf8')}${config}\n`);
    // The user edits line 11 while the child edits line 2: merge-tree merges shared.txt's content.
    const userEdit = `node -e 'const f=process.argv[1]; const fs=require("fs"); fs.writeFileSync(f, fs.readFileSync(f, "utf8").replace("line 11\\n", "line 11 (user)\\n"))' ${join(h.projectDir, 'shared.txt')}`;
    scriptConversations(h.server, {
      'work on it': [reply(isolated('edit the top')), text('done')],
      'edit the top': [
        reply(toolUse('read', { file_path: 'shared.txt' })),
        reply(toolUse('edit', { file_path: 'shared.txt', old_string: 'line 2\n', new_string: 'line 2 (child)\n' })),
        reply(toolUse('read', { file_path: 'notes.inc' })),
        reply(toolUse('write', { file_path: 'notes.inc', content: 'changed by the child\n' })),
        reply(toolUse('bash', { command: userEdit })),
        text('edited'),
      ],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'work on it')).status).toBe('completed');
    await h.engine.workspacesSettled();
    await h.engine.sessionDiff(root.id).catch(() => undefined);

    expect(markers(dir)).toEqual([]);
    const [outcome] = taskOutcomes(h.events);
    // The snapshot, the worktree, the child's commit and the merge all ran: the merge driver was
    // replaced by a conflict for the file it was asked to merge, and the work kept on its branch.
    expect(outcome?.merge?.state).toBe('conflict');
    expect(outcome?.merge?.files).toEqual(['shared.txt']);
    expect(git(h.projectDir, 'diff', '--no-ext-diff', '--no-textconv', 'main', outcome!.merge!.branch!, '--', 'notes.inc')).toContain('+changed by the child');
    expect(markers(dir)).toEqual([]);
  });

  it('refuse a repository whose .git file points anywhere but a linked worktree of its own, naming the file', async () => {
    h = await repoHarness({ files: { 'a.txt': 'a\n' } });
    rmSync(join(h.projectDir, '.git'), { recursive: true, force: true });
    writeFileSync(join(h.projectDir, '.git'), `gitdir: ${h.dir}\n`);
    scriptConversations(h.server, { 'isolate me': [reply(isolated('never starts')), text('done')] });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'isolate me')).status).toBe('completed');
    const result = h.events.find((e) => e.type === 'tool.completed' && e.tool === 'task');
    expect(result?.type === 'tool.completed' && result.output).toMatch(new RegExp(`${join(h.projectDir, '.git')} names .*git is not run there`));
  });
});

describe('the repository a git call runs in', () => {
  let dir: string;
  const made = () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'oci-git-layout-')));
    const main = join(dir, 'main');
    mkdirSync(main);
    git(main, 'init', '-q', '-b', 'main');
    writeFileSync(join(main, 'a.txt'), 'a\n');
    git(main, 'add', '-A');
    git(main, 'commit', '-qm', 'init');
    git(main, 'worktree', 'add', '-q', join(dir, 'linked'));
    return { main, linked: join(dir, 'linked'), worktreeGitDir: join(main, '.git', 'worktrees', 'linked') };
  };
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const head = (cwd: string) => hostGit(['rev-parse', 'HEAD'], { cwd }).then((r) => r.stdout.toString().trim());
  const refusal = (cwd: string) => hostGit(['rev-parse', 'HEAD'], { cwd }).then(() => undefined, (err: unknown) => err);

  it('may be a main working tree or a linked worktree whose files agree with each other', async () => {
    const { main, linked } = made();
    expect(await head(join(linked))).toBe(await head(main));
  });

  it('is refused when the main .git names another repository through a commondir file', async () => {
    const { main } = made();
    writeFileSync(join(main, '.git', 'commondir'), `${join(dir, 'elsewhere')}\n`);
    const err = await refusal(main);
    expect(err).toBeInstanceOf(GitError);
    expect((err as GitError).failure).toBe('refused');
    expect((err as GitError).message).toBe(`${join(main, '.git', 'commondir')} exists: a repository's own git directory must not name another one, so git is not run there.`);
  });

  it("is refused when a linked worktree's git directory does not point back at it", async () => {
    const { linked, worktreeGitDir } = made();
    writeFileSync(join(worktreeGitDir, 'gitdir'), `${join(dir, 'other', '.git')}\n`);
    expect(((await refusal(linked)) as GitError).message).toMatch(new RegExp(`^${join(worktreeGitDir, 'gitdir')} \\(the git directory ${join(linked, '.git')} names\\) does not point back`));
  });
});

/** A .gitignore line git backtracks on for minutes over a deep enough folder (issue 35, item 8). */
const SLOW_PATTERN = '**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/b';

/** A folder 40 levels deep under `dir`, with a few files. */
function deepFolder(dir: string): void {
  const deep = join(dir, ...Array.from({ length: 40 }, () => 'a'));
  mkdirSync(deep, { recursive: true });
  for (const name of ['one', 'two', 'three']) writeFileSync(join(deep, name), `${name}\n`);
}

async function slowRepoHarness(warnings: string[]): Promise<Harness> {
  const harness = await repoHarness({ files: { '.gitignore': `${SLOW_PATTERN}\n`, 'top.txt': 'top\n' }, engine: { onWarning: (line) => warnings.push(line), autoApprove: true } });
  deepFolder(harness.projectDir);
  return harness;
}

describe('every git call', () => {
  const slowRepo = () => {
    const dir = mkdtempSync(join(tmpdir(), 'oci-slow-git-'));
    git(dir, 'init', '-q');
    writeFileSync(join(dir, '.gitignore'), `${SLOW_PATTERN}\n`);
    deepFolder(dir);
    return dir;
  };
  const list = ['ls-files', '-o', '--exclude-standard'];

  it('is stopped past its deadline, with a message saying how long it took and what it was doing', async () => {
    const dir = slowRepo();
    try {
      const failure = await hostGit(list, { cwd: dir, timeoutMs: 300, doing: 'listing the slow files' }).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(GitError);
      expect((failure as GitError).failure).toBe('timeout');
      expect((failure as GitError).message).toBe('git ls-files -o took longer than 0.3 s while listing the slow files, and was stopped.');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is stopped when its signal aborts', async () => {
    const dir = slowRepo();
    try {
      const controller = new AbortController();
      const running = hostGit(list, { cwd: dir, signal: controller.signal, doing: 'listing the slow files' }).catch((err: unknown) => err);
      controller.abort();
      const failure = await running;
      expect(failure).toBeInstanceOf(GitError);
      expect((failure as GitError).failure).toBe('aborted');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a repository git needs minutes for', () => {
  it('lets a prompt run without undo, saying so once and why', async () => {
    const warnings: string[] = [];
    h = await slowRepoHarness(warnings);
    // A turn that changes a file needs the snapshot (one that changes nothing takes none).
    scriptConversations(h.server, { 'hello': [reply(toolUse('write', { file_path: 'made.txt', content: 'made\n' })), text('hi')] });
    const root = h.engine.createSession();
    const started = Date.now();
    expect((await h.engine.prompt(root.id, 'hello')).status).toBe('completed');
    // Far below the minutes git would take; the deadline is a few seconds.
    expect(Date.now() - started).toBeLessThan(45_000);
    expect(readFileSync(join(h.projectDir, 'made.txt'), 'utf8')).toBe('made\n');
    const notices = warnings.filter((w) => /undo/i.test(w));
    expect(notices).toEqual([
      `Undo is not available for this prompt: the snapshot of ${h.projectDir} took longer than 5 s (a .gitignore pattern may be very slow).`,
    ]);
    expect(h.engine.prompts(root.id)[0]?.has_snapshot).toBe(false);
  }, 60_000);

  it('ends the turn when it is cancelled while its snapshot is being taken', async () => {
    const warnings: string[] = [];
    h = await slowRepoHarness(warnings);
    // The model asks for a write: its snapshot starts as the call streams in, and the write waits for it.
    scriptConversations(h.server, { 'hello': [reply(toolUse('write', { file_path: 'made.txt', content: 'made\n' })), text('too late')] });
    const root = h.engine.createSession();
    const turn = h.engine.prompt(root.id, 'hello');
    // The shadow repository's excludes are written last before the walk of the tree starts.
    const snapshots = join(h.dir, 'data', 'snapshots');
    await waitFor(() => existsSync(snapshots) && readdirSync(snapshots).some((d) => existsSync(join(snapshots, d, 'info', 'exclude'))), 'the snapshot to start', {
      timeoutMs: 20_000,
    });
    expect(h.engine.cancel(root.id)).toBe(true);
    expect((await turn).status).toBe('cancelled');
    // Cancelled, not timed out: no notice, and the write never ran.
    expect(warnings.filter((w) => /undo/i.test(w))).toEqual([]);
    expect(existsSync(join(h.projectDir, 'made.txt'))).toBe(false);
    expect(h.server.requests.length).toBe(1);
  }, 60_000);
});
