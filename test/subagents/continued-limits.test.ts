// A continued sub-agent keeps what its first `task` call fixed (DESIGN §7, §17, §23): its tools
// narrowing and its worktree isolation hold again when the parent resumes it with `session_id`
// and when the user continues it through `sendToSession`. Real engine, real git and processes,
// the children scripted through the fake Messages API.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { reply, text, toolResults, type RecordedRequest, type ScriptedBlock } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

let seq = 0;
const use = (name: string, input: Record<string, unknown>): ScriptedBlock => ({ type: 'tool_use', name, input, id: `toolu_limits_${name}_${++seq}` });
const task = (prompt: string, extra: Record<string, unknown> = {}) => use('task', { description: prompt.slice(0, 20), prompt, subagent_type: 'general', ...extra });
const resultsText = (req: RecordedRequest) => toolResults(req).map((r) => (typeof r.content === 'string' ? r.content : JSON.stringify(r.content)));
const taskIdIn = (output: string | undefined) => /<task id="([^"]+)"/.exec(output ?? '')?.[1] ?? 'missing';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();
}

async function repoHarness(): Promise<Harness> {
  const harness = await startHarness({ engine: { autoApprove: true }, files: { 'notes.txt': 'notes\n' } });
  rmSync(join(harness.projectDir, '.git'), { recursive: true, force: true });
  git(harness.projectDir, 'init', '-q', '-b', 'main');
  git(harness.projectDir, 'add', '-A');
  git(harness.projectDir, 'commit', '-qm', 'init');
  return harness;
}

describe('a continued sub-agent keeps the limits of its first call', () => {
  it('a child narrowed to read is refused write when the parent resumes it with session_id', async () => {
    h = await startHarness({ engine: { autoApprove: true }, files: { 'notes.txt': 'notes\n' } });
    let childId = '';
    scriptConversations(h.server, {
      'narrow then resume': [
        reply(task('reader child', { tools: ['read'] })),
        (req) => {
          childId = taskIdIn(resultsText(req)[0]);
          return reply(task('now write it', { session_id: childId }));
        },
        text('parent done'),
      ],
      'reader child': [text('read it'), reply(use('write', { file_path: 'escaped.txt', content: 'x' })), text('tried')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'narrow then resume')).text).toBe('parent done');

    const [, second] = requestsOf(h.server, 'reader child');
    expect(second!.body.tools?.map((t) => t.name)).toEqual(['read', 'ask_user']);
    const [refusal] = resultsText(requestsOf(h.server, 'reader child')[2]!);
    expect(refusal).toMatch(/Unknown tool "write"/);
    expect(existsSync(join(h.projectDir, 'escaped.txt'))).toBe(false);
  });

  it('a resume may narrow further but never widen: its tools meet the first call\'s', async () => {
    h = await startHarness({ engine: { autoApprove: true } });
    scriptConversations(h.server, {
      'narrow twice': [
        reply(task('twice child', { tools: ['read', 'grep'] })),
        (req) => reply(task('more', { session_id: taskIdIn(resultsText(req)[0]), tools: ['grep', 'write', 'bash'] })),
        text('parent done'),
      ],
      'twice child': [text('first'), text('second')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'narrow twice');
    const [first, second] = requestsOf(h.server, 'twice child');
    expect(first!.body.tools?.map((t) => t.name)).toEqual(['read', 'grep', 'ask_user']);
    expect(second!.body.tools?.map((t) => t.name)).toEqual(['grep', 'ask_user']);
  });

  it('a child narrowed to read is refused write when the user continues it through sendToSession', async () => {
    h = await startHarness({ engine: { autoApprove: true } });
    scriptConversations(h.server, {
      'narrow then continue': [reply(task('user reader', { tools: ['read'], max_turns: 3 })), text('parent done'), text('parent read the follow-up')],
      'user reader': [text('read it'), reply(use('write', { file_path: 'escaped.txt', content: 'x' })), text('tried')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'narrow then continue');
    const childId = h.store.children(root.id)[0]!.id;
    expect(h.engine.sendToSession(childId, 'write escaped.txt').outcome).toBe('continued');
    await h.engine.settled(root.id);

    const requests = requestsOf(h.server, 'user reader');
    expect(requests[1]!.body.tools?.map((t) => t.name)).toEqual(['read', 'ask_user']);
    expect(resultsText(requests[2]!)[0]).toMatch(/Unknown tool "write"/);
    expect(existsSync(join(h.projectDir, 'escaped.txt'))).toBe(false);
  });

  it('an isolated child resumed with session_id runs in a new worktree again and its change is merged back', async () => {
    h = await repoHarness();
    scriptConversations(h.server, {
      'isolate then resume': [
        reply(task('isolated child', { isolation: 'worktree' })),
        (req) => reply(task('again', { session_id: taskIdIn(resultsText(req)[0]) })),
        text('parent done'),
      ],
      'isolated child': [text('first run'), reply(use('bash', { command: 'pwd && echo resumed > resumed.txt' })), text('wrote it')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'isolate then resume')).text).toBe('parent done');

    const pwd = resultsText(requestsOf(h.server, 'isolated child')[2]!)[0]!;
    expect(pwd).not.toContain(h.projectDir);
    expect(pwd).toContain(join(h.dir, 'data', 'worktrees'));
    expect(readFileSync(join(h.projectDir, 'resumed.txt'), 'utf8')).toBe('resumed\n');
    expect(resultsText(requestsOf(h.server, 'isolate then resume')[2]!)[0]).toMatch(/merge="merged"[\s\S]*resumed\.txt/);
    await h.engine.workspacesSettled();
    expect(git(h.projectDir, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  }, 90_000);

  it('an isolated child continued through sendToSession runs in a new worktree and its change is merged back', async () => {
    h = await repoHarness();
    scriptConversations(h.server, {
      'isolate then continue': [reply(task('user isolated', { isolation: 'worktree' })), text('parent done'), text('parent read the follow-up')],
      'user isolated': [text('first run'), reply(use('bash', { command: 'pwd && echo continued > continued.txt' })), text('wrote it')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'isolate then continue');
    const childId = h.store.children(root.id)[0]!.id;
    expect(h.engine.sendToSession(childId, 'write continued.txt').outcome).toBe('continued');
    await h.engine.settled(root.id);

    const pwd = resultsText(requestsOf(h.server, 'user isolated')[2]!)[0]!;
    expect(pwd).not.toContain(h.projectDir);
    expect(pwd).toContain(join(h.dir, 'data', 'worktrees'));
    expect(readFileSync(join(h.projectDir, 'continued.txt'), 'utf8')).toBe('continued\n');
    await h.engine.workspacesSettled();
    expect(git(h.projectDir, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  }, 90_000);
});
