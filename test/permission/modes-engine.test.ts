// Permission modes (DESIGN §26) through the real engine, tools and Anthropic SDK against the
// fake server: what each mode lets run unasked, refuses or still asks; deny rules, control
// files and paths outside the project against the loose modes; `permission.auto` events and
// their stored rows; sub-agents' own modes combined with their parent's; a mode changed while
// a sub-agent runs.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { held, requestsOf, scriptConversations, taskUse, toolUse } from '../support/conversations.js';
import { reply, text, toolResults, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../support/harness.js';
import type { EventOf } from '../../src/core/events.js';
import type { PermissionMode } from '../../src/core/permission/modes.js';
import { HookScripts, hookConfig } from '../hooks/scripts.js';

let h: Harness | undefined;
let outside: string | undefined;
afterEach(async () => {
  h?.engine.cancelAll();
  await h?.engine.close();
  await h?.close();
  h = undefined;
  if (outside) rmSync(outside, { recursive: true, force: true });
  outside = undefined;
});

const write = (file_path: string, content = 'new\n') => toolUse('write', { file_path, content });
const bash = (command: string) => toolUse('bash', { command });
const results = (req: RecordedRequest) => toolResults(req).map((r) => ({ text: String(r.content), isError: r.is_error === true }));
const asks = (harness: Harness) => harness.events.filter((e): e is EventOf<'permission.asked'> => e.type === 'permission.asked');
const autos = (harness: Harness) => harness.events.filter((e): e is EventOf<'permission.auto'> => e.type === 'permission.auto');

/** An interactive engine in `mode` that answers every ask with `reject`, so a test sees what asked. */
async function interactive(mode: PermissionMode, extra: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  const harness = await startHarness({ ...extra, engine: { interactive: true, permissionMode: mode, ...extra.engine } });
  harness.engine.on((e) => {
    if (e.type === 'permission.asked') harness.engine.replyPermission(e.request_id, 'reject');
  });
  return harness;
}

describe('acceptEdits', () => {
  it('writes inside the project unasked and records it, while control files, paths outside and commands still ask', async () => {
    outside = mkdtempSync(join(tmpdir(), 'oci-outside-'));
    h = await interactive('acceptEdits');
    scriptConversations(h.server, {
      edit: [reply(write('src/a.ts'), write('.claude/settings.json', '{}'), write(join(outside, 'b.txt')), bash('touch c.txt')), text('done')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'edit')).status).toBe('completed');
    expect(readFileSync(join(h.projectDir, 'src/a.ts'), 'utf8')).toBe('new\n');
    const [ok, control, far, cmd] = results(requestsOf(h.server, 'edit')[1]!);
    expect(ok!.isError).toBe(false);
    expect(control!.isError).toBe(true);
    expect(far!.isError).toBe(true);
    expect(cmd!.isError).toBe(true);
    expect(asks(h).map((a) => a.permission)).toEqual(['edit', 'external_directory', 'bash']);
    expect(asks(h)[0]!.reason).toMatch(/settings\.json/);
    expect(existsSync(join(h.projectDir, '.claude/settings.json'))).toBe(false);
    expect(existsSync(join(outside, 'b.txt'))).toBe(false);
    expect(autos(h)).toEqual([expect.objectContaining({ mode: 'acceptEdits', tool: 'write', permission: 'edit', file: 'src/a.ts', session_id: root.id })]);
    expect(h.store.autoApprovals(root.id)).toEqual([expect.objectContaining({ mode: 'acceptEdits', tool: 'write', subject: 'src/a.ts', session_id: root.id })]);
  });
});

describe('plan', () => {
  it('refuses writes with a readable reason, keeps reads, and still asks for commands', async () => {
    h = await interactive('plan', { files: { 'notes.txt': 'hello\n' } });
    scriptConversations(h.server, {
      look: [reply(toolUse('read', { file_path: 'notes.txt' }), write('notes.txt', 'changed\n'), bash('ls')), text('planned')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'look');
    const [read, wrote, listed] = results(requestsOf(h.server, 'look')[1]!);
    expect(read!.isError).toBe(false);
    expect(wrote).toEqual({ isError: true, text: expect.stringMatching(/^Plan mode is read-only: the write tool can change things/) });
    expect(listed!.isError).toBe(true);
    expect(asks(h).map((a) => a.permission)).toEqual(['bash']);
    expect(readFileSync(join(h.projectDir, 'notes.txt'), 'utf8')).toBe('hello\n');
  });

  it('keeps commands asked even where a rule allows them, as the plan agent does', async () => {
    h = await interactive('plan', { config: { permission: { bash: { 'ls*': 'allow' } } } });
    scriptConversations(h.server, { list: [reply(bash('ls')), text('ok')] });
    await h.engine.prompt(h.engine.createSession().id, 'list');
    expect(asks(h).map((a) => a.subject)).toEqual(['ls']);
  });
});

describe('dontAsk', () => {
  it('refuses what would ask, saying so, and asks nobody; what the rules allow still runs', async () => {
    h = await interactive('dontAsk', { config: { permission: { bash: { 'echo *': 'allow' } } } });
    scriptConversations(h.server, { go: [reply(write('a.txt'), bash('echo hi')), text('ok')] });
    await h.engine.prompt(h.engine.createSession().id, 'go');
    const [wrote, echoed] = results(requestsOf(h.server, 'go')[1]!);
    expect(wrote).toEqual({ isError: true, text: expect.stringContaining('write a.txt needs approval, and the session is in dontAsk mode') });
    expect(echoed).toEqual({ isError: false, text: expect.stringContaining('hi') });
    expect(asks(h)).toEqual([]);
  });
});

describe('bypassPermissions', () => {
  it('runs what would ask unasked, but a deny rule still denies and a control file still asks', async () => {
    h = await interactive('bypassPermissions', { config: { permission: { bash: { 'rm *': 'deny' } } }, files: { 'keep.txt': 'x' } });
    scriptConversations(h.server, { go: [reply(write('a.txt'), bash('touch b.txt'), bash('rm keep.txt'), write('.mcp.json', '{}')), text('ok')] });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'go');
    const [wrote, touched, removed, control] = results(requestsOf(h.server, 'go')[1]!);
    expect(wrote!.isError).toBe(false);
    expect(touched!.isError).toBe(false);
    expect(removed).toEqual({ isError: true, text: expect.stringContaining('Permission denied by the configured rules') });
    expect(control!.isError).toBe(true);
    expect(existsSync(join(h.projectDir, 'keep.txt'))).toBe(true);
    expect(existsSync(join(h.projectDir, 'b.txt'))).toBe(true);
    expect(asks(h).map((a) => a.subject.split('\n')[0])).toHaveLength(1);
    expect(asks(h)[0]!.reason).toMatch(/\.mcp\.json/);
    expect(autos(h).map((a) => `${a.mode} ${a.tool}`)).toEqual(['bypassPermissions write', 'bypassPermissions bash']);
  });
});

describe('sub-agents', () => {
  const agentFile = (mode: string) => `---\ndescription: worker\nmode: subagent\npermissionMode: ${mode}\n---\nYou work.\n`;

  it('a child’s own mode only tightens: bypassPermissions under a default parent still asks, dontAsk refuses', async () => {
    h = await interactive('default', { files: { '.opencode/agents/loose.md': agentFile('bypassPermissions'), '.opencode/agents/strict.md': agentFile('dontAsk') } });
    scriptConversations(h.server, {
      top: [reply(toolUse('task', { description: 'w', prompt: 'loose work', subagent_type: 'loose' }), toolUse('task', { description: 's', prompt: 'strict work', subagent_type: 'strict' })), text('done')],
      'loose work': [reply(write('c.txt')), text('child done')],
      'strict work': [reply(write('d.txt')), text('child done')],
    });
    await h.engine.prompt(h.engine.createSession().id, 'top');
    expect(results(requestsOf(h.server, 'loose work')[1]!)[0]!.isError).toBe(true);
    expect(results(requestsOf(h.server, 'strict work')[1]!)[0]!.text).toMatch(/dontAsk mode/);
    expect(asks(h).map((a) => `${a.permission} ${a.file}`)).toEqual(['edit c.txt']);
    expect(autos(h)).toEqual([]);
  });

  it('a child in plan under a default parent cannot write; a parent in acceptEdits passes its mode down', async () => {
    h = await interactive('default', { files: { '.opencode/agents/planner.md': agentFile('plan') } });
    scriptConversations(h.server, {
      top: [reply(toolUse('task', { description: 'w', prompt: 'plan work', subagent_type: 'planner' })), text('done')],
      'plan work': [reply(write('p.txt')), text('child done')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'top');
    expect(results(requestsOf(h.server, 'plan work')[1]!)[0]!.text).toMatch(/^Plan mode is read-only/);

    const loose = h.engine.createSession();
    h.engine.setPermissionMode(loose.id, 'acceptEdits');
    expect(h.engine.permissionMode(root.id)).toBe('default');
    scriptConversations(h.server, {
      again: [reply(toolUse('task', { description: 'w', prompt: 'plan again', subagent_type: 'planner' })), text('done')],
      'plan again': [reply(write('p.txt')), text('child done')],
    });
    await h.engine.prompt(loose.id, 'again');
    expect(results(requestsOf(h.server, 'plan again')[1]!)[0]!.isError).toBe(false);
    const child = h.store.children(loose.id).at(-1)!;
    expect(h.store.autoApprovals(child.id)).toEqual([expect.objectContaining({ mode: 'acceptEdits', tool: 'write', subject: 'p.txt' })]);
  });

  it('a dontAsk parent makes a plan child refuse what plan alone would ask', async () => {
    h = await interactive('dontAsk', { files: { '.opencode/agents/planner.md': agentFile('plan') } });
    scriptConversations(h.server, {
      top: [reply(toolUse('task', { description: 'w', prompt: 'plan cmd', subagent_type: 'planner' })), text('done')],
      'plan cmd': [reply(bash('ls')), text('child done')],
    });
    await h.engine.prompt(h.engine.createSession().id, 'top');
    expect(results(requestsOf(h.server, 'plan cmd')[1]!)[0]!.text).toMatch(/dontAsk mode/);
    expect(asks(h)).toEqual([]);
  });

  it('a mode changed while a child runs applies to that child at its next check', async () => {
    h = await interactive('default');
    const gate = held(reply(write('late.txt')));
    scriptConversations(h.server, {
      top: [reply(taskUse('running child')), text('done')],
      'running child': [gate.reply, text('child done')],
    });
    const root = h.engine.createSession();
    const running = h.engine.prompt(root.id, 'top');
    await waitForEvent(h.engine, (e) => e.type === 'session.created' && e.parent_id === root.id);
    h.engine.setPermissionMode(root.id, 'acceptEdits');
    expect(h.engine.permissionMode(root.id)).toBe('acceptEdits');
    gate.open();
    await running;
    expect(readFileSync(join(h.projectDir, 'late.txt'), 'utf8')).toBe('new\n');
    expect(asks(h)).toEqual([]);
  });
});

describe('hooks', () => {
  it('are told the session’s current mode as permission_mode, as Claude Code tells them', async () => {
    outside = mkdtempSync(join(tmpdir(), 'oci-mode-hooks-'));
    const s = new HookScripts(outside);
    const log = s.command('log', '');
    h = await interactive('acceptEdits', { config: { hooks: hookConfig('PreToolUse', log, 'Write') } });
    scriptConversations(h.server, { go: [reply(write('a.txt')), text('ok')], third: [reply(write('c.txt')), text('ok')] });
    await h.engine.prompt(h.engine.createSession().id, 'go');
    const other = h.engine.createSession();
    h.engine.setPermissionMode(other.id, 'plan');
    await h.engine.prompt(other.id, 'third');
    expect(s.calls('log').map((c) => c.permission_mode)).toEqual(['acceptEdits', 'plan']);
  });
});
