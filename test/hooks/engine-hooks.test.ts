// Claude Code's hooks (DESIGN §20) through the real engine, tools and Anthropic SDK against the
// fake server, with real hook commands (node scripts): what each event's hook is given on
// stdin, and what its exit code and JSON answer do to the tool call, the prompt, the end of a
// turn, a sub-agent and compaction, as the model sees it in the recorded requests.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreEvent, EventOf } from '../../src/core/events.js';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { lastUserText, reply, systemText, text, toolResults, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../support/harness.js';
import { waitFor } from '../support/wait.js';
import { HookScripts, hookConfig } from './scripts.js';

let h: Harness | undefined;
let scriptsDir: string | undefined;
afterEach(async () => {
  h?.engine.cancelAll();
  await h?.engine.close();
  await h?.close();
  h = undefined;
  if (scriptsDir) rmSync(scriptsDir, { recursive: true, force: true });
  scriptsDir = undefined;
});

function scripts(): HookScripts {
  scriptsDir = mkdtempSync(join(tmpdir(), 'oci-hooks-'));
  return new HookScripts(scriptsDir);
}

let seq = 0;
const call = (name: string, input: Record<string, unknown>) => ({ type: 'tool_use' as const, name, input, id: `toolu_hook_${++seq}` });
const results = (req: RecordedRequest) => toolResults(req).map((r) => ({ text: String(r.content), isError: r.is_error === true }));
const notices = (events: CoreEvent[]) => events.filter((e): e is EventOf<'hook.notice'> => e.type === 'hook.notice');

describe('PreToolUse', () => {
  it('exit 2 blocks the call: the model gets an error tool result with the hook\'s stderr, and the command never runs', async () => {
    const s = scripts();
    const guard = s.command('guard', `if (input.tool_input.command.includes('touch')) { process.stderr.write('No touching in this repo.'); process.exit(2); }`);
    const editOnly = s.command('edit-only', '');
    h = await startHarness({
      config: { permission: { bash: 'allow' }, hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: guard }] }, { matcher: 'Write|Edit', hooks: [{ type: 'command', command: editOnly }] }] } },
    });
    scriptConversations(h.server, { go: [reply(call('bash', { command: 'touch marker.txt' }), call('bash', { command: 'echo fine' })), text('done')] });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'go')).status).toBe('completed');

    const [blocked, fine] = results(requestsOf(h.server, 'go')[1]!);
    expect(blocked).toEqual({ text: 'Blocked by a PreToolUse hook: No touching in this repo.', isError: true });
    expect(fine).toEqual({ text: 'fine', isError: false });
    expect(existsSync(join(h.projectDir, 'marker.txt'))).toBe(false);
    // Given as Claude Code gives it; the Write|Edit group never matched a bash call.
    const [first] = s.calls('guard');
    expect(first).toMatchObject({ session_id: root.id, cwd: h.projectDir, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'touch marker.txt' } });
    expect(first!.tool_use_id).toEqual(expect.any(String));
    expect(first!.agent).toBeUndefined();
    expect(s.calls('guard')).toHaveLength(2);
    expect(s.calls('edit-only')).toHaveLength(0);
    expect(notices(h.events)).toEqual([expect.objectContaining({ hook_event: 'PreToolUse', kind: 'blocked', session_id: root.id })]);
  });

  it('matches our tool names as well as Claude Code\'s, and sends paths absolute', async () => {
    const s = scripts();
    const log = s.command('log', '');
    h = await startHarness({ config: { permission: { edit: 'allow' }, hooks: hookConfig('PreToolUse', log, 'write') }, files: { 'a.txt': 'a\n' } });
    scriptConversations(h.server, { go: [reply(call('read', { file_path: 'a.txt' })), reply(call('write', { file_path: 'b.txt', content: 'b\n' })), text('done')] });
    await h.engine.prompt(h.engine.createSession().id, 'go');
    expect(s.calls('log')).toEqual([expect.objectContaining({ tool_name: 'Write', tool_input: { file_path: join(h.projectDir, 'b.txt'), content: 'b\n' } })]);
  });

  it('a JSON `deny` denies with its reason; another non-zero exit is only a warning', async () => {
    const s = scripts();
    const deny = s.command('deny', `if (input.tool_input.file_path.endsWith('secret.txt')) console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'Secrets stay secret.' } }));`);
    const broken = s.command('broken', `process.stderr.write('oops'); process.exit(1);`);
    h = await startHarness({ config: { hooks: { PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: deny }, { type: 'command', command: broken }] }] } }, files: { 'secret.txt': 's\n', 'open.txt': 'o\n' } });
    scriptConversations(h.server, { go: [reply(call('read', { file_path: 'secret.txt' }), call('read', { file_path: 'open.txt' })), text('done')] });
    await h.engine.prompt(h.engine.createSession().id, 'go');
    const [secret, open] = results(requestsOf(h.server, 'go')[1]!);
    expect(secret).toEqual({ text: 'Blocked by a PreToolUse hook: Secrets stay secret.', isError: true });
    expect(open!.isError).toBe(false);
    expect(open!.text).toContain('o');
    const warnings = notices(h.events).filter((n) => n.kind === 'warning');
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings[0]!.message).toMatch(/PreToolUse hook `node .*broken\.mjs"?` failed \(exit code 1\): oops; going on\./);
  });

  it('`allow` skips the built-in ask but never a deny rule', async () => {
    const s = scripts();
    const allow = s.command('allow', `console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'trusted' } }));`);
    h = await startHarness({ config: { permission: { bash: { 'touch denied*': 'deny' } }, hooks: hookConfig('PreToolUse', allow, 'Bash') } });
    scriptConversations(h.server, { go: [reply(call('bash', { command: 'touch allowed.txt' })), reply(call('bash', { command: 'touch denied.txt' })), text('done')] });
    await h.engine.prompt(h.engine.createSession().id, 'go');
    const [req1, req2] = [requestsOf(h.server, 'go')[1]!, requestsOf(h.server, 'go')[2]!];
    // The built-in `bash: ask` would be refused in this non-interactive run; the hook's allow lets it run.
    expect(results(req1)[0]!.isError).toBe(false);
    expect(existsSync(join(h.projectDir, 'allowed.txt'))).toBe(true);
    expect(results(req2)[0]).toEqual({ text: expect.stringMatching(/^Permission denied by the configured rules: bash `touch denied\.txt`/), isError: true });
    expect(existsSync(join(h.projectDir, 'denied.txt'))).toBe(false);
  });

  it('`ask` asks a person even where a rule allows the call', async () => {
    const s = scripts();
    const ask = s.command('ask', `console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'Reads outside the usual files.' } }));`);
    h = await startHarness({ config: { hooks: hookConfig('PreToolUse', ask, 'Read') }, files: { 'a.txt': 'a\n' } });
    const engine = h.newEngine({ interactive: true });
    scriptConversations(h.server, { go: [reply(call('read', { file_path: 'a.txt' })), text('done')] });
    const asked = waitForEvent(engine, (e) => e.type === 'permission.asked');
    const turn = engine.prompt(engine.createSession().id, 'go');
    const event = (await asked) as EventOf<'permission.asked'>;
    expect(event.reason).toBe('a PreToolUse hook asks for approval: Reads outside the usual files.');
    engine.replyPermission(event.request_id, 'reject');
    expect((await turn).status).toBe('completed');
    expect(results(requestsOf(h.server, 'go')[1]!)[0]!.isError).toBe(true);
    await engine.close();
  });
});

describe('PostToolUse', () => {
  it('runs after a successful call with its response, and exit 2 feeds stderr back to the model', async () => {
    const s = scripts();
    const format = s.command('format', `process.stderr.write('Formatted ' + input.tool_input.file_path + '; line 1 is too long.'); process.exit(2);`);
    h = await startHarness({ config: { permission: { edit: 'allow' }, hooks: hookConfig('PostToolUse', format, 'Write|Edit') } });
    scriptConversations(h.server, { go: [reply(call('write', { file_path: 'src/x.ts', content: 'export {};\n' })), text('done')] });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'go');
    const file = join(h.projectDir, 'src/x.ts');
    expect(readFileSync(file, 'utf8')).toBe('export {};\n');
    const [result] = results(requestsOf(h.server, 'go')[1]!);
    expect(result!.isError).toBe(false);
    expect(result!.text).toContain(`PostToolUse hook feedback: Formatted ${file}; line 1 is too long.`);
    expect(s.calls('format')[0]).toMatchObject({ hook_event_name: 'PostToolUse', tool_name: 'Write', tool_response: { success: true, filePath: file } });
  });

  it('`continue: false` ends the turn after the call, telling the user why', async () => {
    const s = scripts();
    const halt = s.command('halt', `console.log(JSON.stringify({ continue: false, stopReason: 'Build is broken; stopping.' }));`);
    h = await startHarness({ config: { hooks: hookConfig('PostToolUse', halt) }, files: { 'a.txt': 'a\n' } });
    scriptConversations(h.server, { go: [reply(call('read', { file_path: 'a.txt' })), text('never asked for')] });
    const outcome = await h.engine.prompt(h.engine.createSession().id, 'go');
    expect(outcome.status).toBe('completed');
    expect(requestsOf(h.server, 'go')).toHaveLength(1);
    expect(notices(h.events)).toContainEqual(expect.objectContaining({ hook_event: 'PostToolUse', kind: 'stopped', message: 'Build is broken; stopping.' }));
  });
});

describe('PostToolUseFailure, async and once', () => {
  it('PostToolUseFailure runs after a failed call with its error, and what it says reaches the model; PostToolUse does not run', async () => {
    const s = scripts();
    const failed = s.command('failed', `process.stderr.write('Hint: the file was moved to docs/.'); process.exit(2);`);
    const post = s.command('post', '');
    h = await startHarness({ config: { hooks: { ...hookConfig('PostToolUseFailure', failed, 'Read'), ...hookConfig('PostToolUse', post) } } });
    scriptConversations(h.server, { go: [reply(call('read', { file_path: 'missing.md' })), text('done')] });
    await h.engine.prompt(h.engine.createSession().id, 'go');
    const [result] = results(requestsOf(h.server, 'go')[1]!);
    expect(result!.isError).toBe(true);
    expect(result!.text).toContain('PostToolUseFailure hook feedback: Hint: the file was moved to docs/.');
    expect(s.calls('failed')[0]).toMatchObject({ hook_event_name: 'PostToolUseFailure', tool_name: 'Read', error: expect.stringContaining('missing.md') });
    expect(s.calls('post')).toHaveLength(0);
  });

  it('an async hook is not waited for and decides nothing; a once hook runs once in a session', async () => {
    const s = scripts();
    const release = join(scriptsDir!, 'release');
    const slow = s.command('slow', `while (!fs.existsSync(${JSON.stringify(release)})) await new Promise((r) => setTimeout(r, 20)); process.stderr.write('too late'); process.exit(2);`);
    const first = s.command('first', '');
    h = await startHarness({
      config: { hooks: { PostToolUse: [{ hooks: [{ type: 'command', command: slow, async: true, timeout: 30 }] }], PreToolUse: [{ hooks: [{ type: 'command', command: first, once: true }] }] } },
      files: { 'a.txt': 'a\n' },
    });
    scriptConversations(h.server, { go: [reply(call('read', { file_path: 'a.txt' }), call('read', { file_path: 'a.txt' })), text('done')] });
    try {
      // The turn ends while the async hook still waits for its release.
      expect((await h.engine.prompt(h.engine.createSession().id, 'go')).status).toBe('completed');
      await waitFor(() => s.calls('slow').length === 2, 'both async hooks to start', { timeoutMs: 10_000 });
      const texts = results(requestsOf(h.server, 'go')[1]!).map((r) => r.text);
      expect(texts).toHaveLength(2);
      for (const text of texts) expect(text).not.toContain('hook feedback');
      expect(s.calls('first')).toHaveLength(1);
    } finally {
      writeFileSync(release, '');
    }
  });
});

describe('UserPromptSubmit and SessionStart', () => {
  it('add their stdout to the prompt the model reads; SessionStart once per session', async () => {
    const s = scripts();
    const start = s.command('start', `console.log('Branch: main, 3 open issues.');`);
    const submit = s.command('submit', `console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'Current sprint: hooks.' } }));`);
    h = await startHarness({ config: { hooks: { ...hookConfig('SessionStart', start), ...hookConfig('UserPromptSubmit', submit) } } });
    h.server.setHandler(() => text('ok'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'first');
    await h.engine.prompt(root.id, 'second');
    const [first, second] = h.server.requests;
    expect(lastUserText(first!)).toContain('first');
    expect(lastUserText(first!)).toContain('Branch: main, 3 open issues.');
    expect(lastUserText(first!)).toContain('Current sprint: hooks.');
    expect(lastUserText(second!)).toContain('Current sprint: hooks.');
    expect(lastUserText(second!)).not.toContain('Branch: main');
    expect(s.calls('start')).toEqual([expect.objectContaining({ hook_event_name: 'SessionStart', source: 'startup', session_id: root.id })]);
    expect(s.calls('submit').map((c) => c.prompt)).toEqual(['first', 'second']);
  });

  it('exit 2 refuses the prompt with the reason: nothing is sent or stored', async () => {
    const s = scripts();
    const refuse = s.command('refuse', `if (/password/i.test(input.prompt)) { process.stderr.write('Do not paste passwords.'); process.exit(2); }`);
    h = await startHarness({ config: { hooks: hookConfig('UserPromptSubmit', refuse) } });
    h.server.setHandler(() => text('ok'));
    const root = h.engine.createSession();
    const outcome = await h.engine.prompt(root.id, 'my password is hunter2');
    expect(outcome).toMatchObject({ status: 'failed', error: 'A UserPromptSubmit hook refused the prompt: Do not paste passwords.' });
    expect(h.server.requests).toHaveLength(0);
    expect(h.store.loadMessages(root.id)).toEqual([]);
    expect(notices(h.events)).toEqual([expect.objectContaining({ hook_event: 'UserPromptSubmit', kind: 'blocked' })]);
    expect((await h.engine.prompt(root.id, 'hello')).status).toBe('completed');
  });
});

describe('Stop and SubagentStop', () => {
  it('exit 2 sends the agent back to work with the reason; the next Stop hook sees stop_hook_active', async () => {
    const s = scripts();
    const tests = s.command('tests', `if (!input.stop_hook_active) { process.stderr.write('Run the tests before stopping.'); process.exit(2); }`);
    h = await startHarness({ config: { hooks: hookConfig('Stop', tests) } });
    scriptConversations(h.server, { go: [text('all done'), text('tests pass, done')] });
    const outcome = await h.engine.prompt(h.engine.createSession().id, 'go');
    expect(outcome).toMatchObject({ status: 'completed', text: 'tests pass, done' });
    const requests = requestsOf(h.server, 'go');
    expect(requests).toHaveLength(2);
    expect(lastUserText(requests[1]!)).toBe('Stop hook feedback: Run the tests before stopping.');
    expect(s.calls('tests').map((c) => c.stop_hook_active)).toEqual([false, true]);
  });

  it('fire for a sub-agent\'s tool calls and its end, naming the agent and its parent', async () => {
    const s = scripts();
    const pre = s.command('pre', '');
    const sub = s.command('sub', `if (!input.stop_hook_active) { process.stderr.write('Also list the folder.'); process.exit(2); }`);
    const stop = s.command('stop', '');
    h = await startHarness({
      config: { hooks: { ...hookConfig('PreToolUse', pre, 'Read|Task'), ...hookConfig('SubagentStop', sub), ...hookConfig('Stop', stop) } },
      files: { 'notes.txt': 'n\n' },
    });
    scriptConversations(h.server, {
      parent: [reply(call('task', { description: 'Read notes', prompt: 'child prompt', subagent_type: 'general' })), text('parent done')],
      'child prompt': [reply(call('read', { file_path: 'notes.txt' })), text('child first end'), text('child done')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'parent')).status).toBe('completed');
    const child = h.store.children(root.id)[0]!;
    const [taskCall, childRead] = s.calls('pre');
    expect(taskCall).toMatchObject({ tool_name: 'Task', session_id: root.id, tool_input: { subagent_type: 'general' } });
    expect(childRead).toMatchObject({ tool_name: 'Read', session_id: child.id, agent: 'general', parent_session_id: root.id, tool_input: { file_path: join(h.projectDir, 'notes.txt') } });
    expect(s.calls('sub')).toEqual([
      expect.objectContaining({ hook_event_name: 'SubagentStop', session_id: child.id, agent: 'general', parent_session_id: root.id, stop_hook_active: false }),
      expect.objectContaining({ stop_hook_active: true }),
    ]);
    expect(lastUserText(requestsOf(h.server, 'child prompt')[2]!)).toBe('Stop hook feedback: Also list the folder.');
    expect(s.calls('stop').map((c) => c.session_id)).toEqual([root.id]);
  });
});

describe('PreCompact and Notification', () => {
  it('PreCompact runs before a summary is asked for, with the trigger and the focus', async () => {
    const s = scripts();
    const pre = s.command('pre', '');
    h = await startHarness({ config: { model: 'anthropic/claude-test', provider: { anthropic: { models: { 'claude-test': { limit: { context: 100_000 } } } } }, hooks: hookConfig('PreCompact', pre, 'manual') } });
    h.server.setHandler((req) => (systemText(req).includes('You summarise a coding session') ? text('summary') : text(`reply ${'and more '.repeat(1_000)}`)));
    const root = h.engine.createSession();
    for (const p of ['one', 'two', 'three']) await h.engine.prompt(root.id, p);
    const before = h.server.requests.length;
    const result = await h.engine.compact(root.id, 'the greetings');
    expect('skipped' in result).toBe(false);
    expect(h.server.requests.length).toBe(before + 1);
    expect(s.calls('pre')).toEqual([expect.objectContaining({ hook_event_name: 'PreCompact', trigger: 'manual', custom_instructions: 'the greetings', session_id: root.id })]);
  });

  it('Notification fires when a permission ask waits for the user', async () => {
    const s = scripts();
    const notify = s.command('notify', '');
    h = await startHarness({ config: { hooks: hookConfig('Notification', notify) } });
    const engine = h.newEngine({ interactive: true });
    scriptConversations(h.server, { go: [reply(call('bash', { command: 'touch x' })), text('done')] });
    const asked = waitForEvent(engine, (e) => e.type === 'permission.asked');
    const turn = engine.prompt(engine.createSession().id, 'go');
    const event = (await asked) as EventOf<'permission.asked'>;
    const [note] = await waitFor(() => (s.calls('notify').length ? s.calls('notify') : undefined), 'the Notification hook', { timeoutMs: 10_000 });
    expect(note).toMatchObject({ hook_event_name: 'Notification', notification_type: 'permission_prompt', message: 'build needs your permission to use Bash' });
    engine.replyPermission(event.request_id, 'reject');
    await turn;
    await engine.close();
  });
});

describe('hooks that misbehave', () => {
  it('a hook that hangs is stopped at its timeout, its whole process group with it, and the turn goes on', async () => {
    const s = scripts();
    const pidFile = join(s.dir, 'pids');
    // The hook starts a grandchild in its group, writes both pids, and never ends.
    const hang = s.command(
      'hang',
      `const { spawn } = await import('node:child_process');
const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
fs.writeFileSync(${JSON.stringify(pidFile)}, process.pid + ' ' + child.pid);
setInterval(() => {}, 1000);`,
    );
    h = await startHarness({ config: { hooks: hookConfig('PreToolUse', hang, 'Read', 1) }, files: { 'a.txt': 'alpha\n' } });
    scriptConversations(h.server, { go: [reply(call('read', { file_path: 'a.txt' })), text('done')] });
    const started = Date.now();
    const outcome = await h.engine.prompt(h.engine.createSession().id, 'go');
    expect(outcome.status).toBe('completed');
    expect(Date.now() - started).toBeLessThan(15_000);
    const [result] = results(requestsOf(h.server, 'go')[1]!);
    expect(result!.isError).toBe(false);
    expect(result!.text).toContain('alpha');
    expect(notices(h.events)).toContainEqual(expect.objectContaining({ kind: 'warning', message: expect.stringMatching(/did not finish within 1 s and was stopped; going on without it\.$/) }));
    const pids = readFileSync(pidFile, 'utf8').split(' ').map(Number);
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await waitFor(() => pids.every((pid) => !alive(pid)) || undefined, 'the hook and its child to be gone', { timeoutMs: 10_000 });
  });

  it('a hook printing 10 MB neither blocks nor bloats: its output is capped and the turn goes on', async () => {
    const s = scripts();
    const flood = s.command('flood', `const chunk = 'x'.repeat(1024 * 1024);
for (let i = 0; i < 10; i++) { process.stdout.write(chunk); process.stderr.write(chunk); }`);
    h = await startHarness({ config: { hooks: hookConfig('UserPromptSubmit', flood) } });
    h.server.setHandler(() => text('ok'));
    const outcome = await h.engine.prompt(h.engine.createSession().id, 'go');
    expect(outcome.status).toBe('completed');
    // Plain stdout is context: only the capped 64 KB of it reaches the model.
    const sent = lastUserText(h.server.requests[0]!);
    expect(sent.length).toBeGreaterThan(60 * 1024);
    expect(sent.length).toBeLessThan(70 * 1024);
    expect(notices(h.events)).toContainEqual(expect.objectContaining({ kind: 'warning', message: expect.stringContaining('printed more than 64 KB; the rest was dropped.') }));
  });
});
