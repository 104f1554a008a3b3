// `opencode-ink acp` as an editor runs it: the built binary as a subprocess, driven over its
// stdio by the SDK's client side, against the fake Messages server.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { type CliProject } from '../support/cli.js';
import { reply, systemText, text, toolResults, toolUse, type RecordedRequest, type ScriptedReply } from '../support/fake-anthropic.js';
import { REPO_ROOT } from '../support/harness.js';
import { uiChunksAmong } from '../support/ui-chunks.js';
import { editorsPerTest, initialize, startEditor, type Editor, type EditorOptions } from './support.js';

const isChildRequest = (req: RecordedRequest) => systemText(req).includes('sub-agent of opencode-ink');

/** Replies for the root agent and for the sub-agent, each in order, whichever asks first. */
function script(p: CliProject, root: ScriptedReply[], sub: ScriptedReply[]) {
  p.server.setHandler((req) => {
    const next = isChildRequest(req) ? sub.shift() : root.shift();
    return next ?? text('(script exhausted)');
  });
}

const kindOf = (n: SessionNotification) => n.update.sessionUpdate;

describe('opencode-ink acp', () => {
  let p!: CliProject;
  const editors = editorsPerTest((project) => (p = project));
  const open = (opts?: EditorOptions) => editors.start(opts);

  it('runs a sub-agent whose approval and question reach the editor labelled, streaming only the root text, and loads no UI', async () => {
    script(
      p,
      [toolUse('task', { description: 'Find API routes', prompt: 'Find the API routes.', subagent_type: 'general' }), text('All done.')],
      [
        toolUse('bash', { command: 'echo routes > found.txt' }),
        toolUse('ask_user', { question: 'Which framework?', options: ['express', 'fastify'] }),
        text('child finished: fastify routes'),
      ],
    );
    const e = open({
      env: { NODE_OPTIONS: `--import=${join(REPO_ROOT, 'test', 'support', 'trace-loads.mjs')}`, OPENCODE_INK_TRACE_LOADS: join(p.dir, 'loads.txt') },
      answerElicitation: () => 'fastify',
    });
    const init = await initialize(e);
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    expect(init.authMethods ?? []).toEqual([]);

    const { sessionId, modes } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    // The modes are the permission modes (DESIGN §26), as in Claude Code's adapter.
    expect(modes?.currentModeId).toBe('default');
    expect(modes?.availableModes.map((m) => m.id)).toEqual(['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions']);

    const res = await e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Map the API.' }] });
    expect(res.stopReason).toBe('end_turn');

    // The approval names the asking sub-agent by its path and offers the exact pattern.
    expect(e.permissions).toHaveLength(1);
    const ask = e.permissions[0]!;
    expect(ask.sessionId).toBe(sessionId);
    expect(ask.toolCall.title).toContain('build › general (Find API routes)');
    expect(ask.toolCall.title).toContain('echo routes > found.txt');
    expect(ask.options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once']);
    expect(ask.options[1]!.name).toContain('echo routes');
    expect(existsSync(join(p.project, 'found.txt'))).toBe(true);

    // The question became a form with the answers as choices, and the answer reached the child.
    expect(e.elicitations).toHaveLength(1);
    expect(e.elicitations[0]!.message).toContain('build › general (Find API routes) asks: Which framework?');
    const childRequests = p.server.requests.filter(isChildRequest);
    expect(childRequests).toHaveLength(3);
    expect(JSON.stringify(toolResults(childRequests[2]!))).toContain('fastify');

    // The task is one tool call whose updates carry the child's progress; the child's own
    // text never reaches the root's message stream.
    const mine = e.updates.filter((n) => n.sessionId === sessionId);
    const taskCall = mine.find((n) => n.update.sessionUpdate === 'tool_call')!.update;
    expect(taskCall).toMatchObject({ sessionUpdate: 'tool_call', kind: 'think', title: 'general (Find API routes)' });
    const taskId = taskCall.sessionUpdate === 'tool_call' ? taskCall.toolCallId : '';
    const progress = mine.filter((n) => n.update.sessionUpdate === 'tool_call_update' && n.update.toolCallId === taskId);
    expect(progress.some((n) => JSON.stringify(n.update).includes('latest: bash: echo routes'))).toBe(true);
    expect(progress.at(-1)!.update).toMatchObject({ status: 'completed' });
    const said = mine
      .filter((n) => kindOf(n) === 'agent_message_chunk')
      .map((n) => (n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'text' ? n.update.content.text : ''))
      .join('');
    expect(said).toBe('All done.');
    // In order: the task call, its progress, then the root's answer.
    const order = mine.map(kindOf);
    expect(order.indexOf('tool_call')).toBeLessThan(order.lastIndexOf('tool_call_update'));
    expect(order.lastIndexOf('tool_call_update')).toBeLessThan(order.indexOf('agent_message_chunk'));

    e.child.stdin!.end();
    expect(await e.exited).toBe(0);
    // stdout carried JSON-RPC messages only, one a line.
    for (const line of e.stdout().split('\n').filter(Boolean)) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    const loads = readFileSync(join(p.dir, 'loads.txt'), 'utf8').split('\n').filter(Boolean);
    expect(loads.some((url) => url.includes('/dist/acp-'))).toBe(true);
    expect(uiChunksAmong(loads, join(REPO_ROOT, 'dist'))).toEqual([]);
  });

  it('keeps reporting a background task on its returned call without reopening it', async () => {
    script(
      p,
      [toolUse('task', { description: 'Index files', prompt: 'List the markdown files.', subagent_type: 'general', run_in_background: true }), text('Started it.'), text('Noted the result.')],
      [toolUse('glob', { pattern: '*.md' }), text('no markdown files')],
    );
    const e = open();
    await initialize(e);
    const { sessionId } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    expect((await e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'index' }] })).stopReason).toBe('end_turn');
    const taskCall = e.updates.find((n) => n.update.sessionUpdate === 'tool_call')!.update;
    const taskId = taskCall.sessionUpdate === 'tool_call' ? taskCall.toolCallId : '';
    const onTask = (n: SessionNotification) => n.update.sessionUpdate === 'tool_call_update' && n.update.toolCallId === taskId;
    // The child finishes after the call returned: its final state still reaches the call.
    await e.waitForUpdate((n) => onTask(n) && JSON.stringify(n.update).includes('general (Index files) · completed'));
    const updates = e.updates.filter(onTask).map((n) => n.update);
    const returned = updates.findIndex((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed');
    expect(returned).toBeGreaterThanOrEqual(0);
    expect(updates.slice(returned + 1).every((u) => u.sessionUpdate === 'tool_call_update' && u.status === undefined)).toBe(true);
  });

  it('names a grandchild by its whole path when it asks for approval', async () => {
    mkdirSync(p.env.OPENCODE_INK_CONFIG_DIR!, { recursive: true });
    writeFileSync(join(p.env.OPENCODE_INK_CONFIG_DIR!, 'config.json'), JSON.stringify({ subagents: { max_depth: 2 } }));
    const root = [toolUse('task', { description: 'Survey', prompt: 'Survey the code.', subagent_type: 'general' }), text('Surveyed.')];
    const general = [toolUse('task', { description: 'Find API routes', prompt: 'Find them.', subagent_type: 'explore' }), text('general done')];
    const explore = [toolUse('bash', { command: 'ls routes' }), text('explore done')];
    p.server.setHandler((req) => {
      const system = systemText(req);
      const queue = system.includes('code exploration sub-agent') ? explore : system.includes('sub-agent of opencode-ink') ? general : root;
      return queue.shift() ?? text('(script exhausted)');
    });
    const e = open({ answerPermission: () => 'reject' });
    await initialize(e);
    const { sessionId } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    expect((await e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'survey' }] })).stopReason).toBe('end_turn');
    expect(e.permissions.map((r) => r.toolCall.title)).toEqual(['build › general (Survey) › explore (Find API routes): bash ls routes']);
    // Only the root's own task call reached the stream as a tool call; the grandchild shows in its progress.
    const calls = e.updates.filter((n) => n.update.sessionUpdate === 'tool_call');
    expect(calls).toHaveLength(1);
    expect(e.updates.some((n) => JSON.stringify(n.update).includes('explore: bash: ls routes'))).toBe(true);
  });

  it('offers the answers as permission options when the editor has no forms, and rejects what the editor rejects', async () => {
    script(p, [toolUse('ask_user', { question: 'Tabs or spaces?', options: ['tabs', 'spaces'] }), toolUse('bash', { command: 'touch nope.txt' }), text('ok')], []);
    const e = open({ answerPermission: (req) => (req.options.some((o) => o.name === 'spaces') ? 'answer-1' : 'reject') });
    await initialize(e, false);
    const { sessionId } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    const res = await e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'style?' }] });
    expect(res.stopReason).toBe('end_turn');
    expect(e.permissions[0]!.toolCall.title).toBe('build asks: Tabs or spaces?');
    expect(e.permissions[0]!.options.map((o) => o.name)).toEqual(['tabs', 'spaces', 'Decline']);
    expect(JSON.stringify(toolResults(p.server.requests[1]!))).toContain('spaces');
    expect(toolResults(p.server.requests[2]!)[0]!.is_error).toBe(true);
    expect(existsSync(join(p.project, 'nope.txt'))).toBe(false);
  });

  it('asks the editor before a control-file write that the rules allow, saying why first', async () => {
    mkdirSync(join(p.dir, 'config'), { recursive: true });
    writeFileSync(join(p.dir, 'config', 'config.json'), JSON.stringify({ permission: { edit: 'allow' } }));
    script(p, [toolUse('write', { file_path: 'notes.md', content: 'fine' }), toolUse('write', { file_path: '.mcp.json', content: '{"mcpServers":{}}' }), text('ok')], []);
    const e = open({ answerPermission: () => 'reject' });
    await initialize(e);
    const { sessionId } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    expect((await e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'configure' }] })).stopReason).toBe('end_turn');
    expect(e.permissions).toHaveLength(1);
    // Who, what and on which file in one line; the diff is the content, never the title.
    expect(e.permissions[0]!.toolCall.title).toBe('build: write .mcp.json — writes .mcp.json, which controls which MCP servers start: always asked');
    expect(JSON.stringify(e.permissions[0]!.toolCall.content)).toContain('+{\\"mcpServers\\":{}}');
    expect(readFileSync(join(p.project, 'notes.md'), 'utf8')).toBe('fine');
    expect(existsSync(join(p.project, '.mcp.json'))).toBe(false);
  });

  it('cancels a turn mid-tool: stop reason cancelled and the process is gone', async () => {
    script(p, [toolUse('bash', { command: 'echo $$ > sleeper.tmp && mv sleeper.tmp sleeper.pid && exec sleep 30' }), text('never')], []);
    const e = open();
    await initialize(e);
    const { sessionId } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    const turn = e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'sleep' }] });
    await e.waitForUpdate((n) => n.update.sessionUpdate === 'tool_call' && n.update.kind === 'execute');
    const pidFile = join(p.project, 'sleeper.pid');
    await until(() => existsSync(pidFile));
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    await e.conn.agent.notify('session/cancel', { sessionId });
    expect((await turn).stopReason).toBe('cancelled');
    await until(() => !alive(pid));
    expect(p.server.requests).toHaveLength(1);
  });

  it('stops the turn and its processes when the editor closes the connection', async () => {
    script(p, [toolUse('bash', { command: 'echo $$ > sleeper.tmp && mv sleeper.tmp sleeper.pid && exec sleep 30' }), text('never')], []);
    const e = open();
    await initialize(e);
    const { sessionId } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    void e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'sleep' }] }).catch(() => {});
    const pidFile = join(p.project, 'sleeper.pid');
    await until(() => existsSync(pidFile));
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    e.child.stdin!.end();
    expect(await e.exited).toBe(0);
    await until(() => !alive(pid));
  });

  it('streams thinking and text in order, edits as diffs, todowrite as a plan, and follows mode and model changes', async () => {
    writeFileSync(join(p.project, 'app.ts'), 'const port = 3000;\n');
    script(
      p,
      [
        toolUse('todowrite', { todos: [{ id: '1', content: 'Change the port', status: 'in_progress' }, { id: '2', content: 'Dropped idea', status: 'cancelled' }] }),
        toolUse('read', { file_path: 'app.ts' }),
        toolUse('edit', { file_path: 'app.ts', old_string: 'const port = 3000;', new_string: 'const port = 8080;' }),
        reply({ type: 'thinking', thinking: 'The port is changed.' }, { type: 'text', text: 'Changed the port to 8080.' }),
        text('planned'),
      ],
      [],
    );
    const e = open({ answerPermission: () => 'once' });
    await initialize(e);
    const created = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [{ name: 'docs', command: 'docs-mcp', args: [], env: [] }] });
    const { sessionId } = created;
    expect(created.configOptions?.[0]).toMatchObject({ id: 'model', type: 'select', currentValue: 'anthropic/claude-sonnet-4-6' });
    expect((await e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Use port 8080.' }] })).stopReason).toBe('end_turn');
    expect(readFileSync(join(p.project, 'app.ts'), 'utf8')).toBe('const port = 8080;\n');
    expect(e.stderr()).toContain('ignoring 1 MCP server');

    const updates = e.updates.map((n) => n.update);
    expect(updates).toContainEqual({ sessionUpdate: 'plan', entries: [{ content: 'Change the port', priority: 'medium', status: 'in_progress' }] });
    const edit = updates.find((u) => u.sessionUpdate === 'tool_call' && u.kind === 'edit');
    expect(edit).toMatchObject({
      title: 'edit app.ts',
      locations: [{ path: join(p.project, 'app.ts') }],
      content: [{ type: 'diff', path: join(p.project, 'app.ts'), oldText: 'const port = 3000;', newText: 'const port = 8080;' }],
    });
    const chunkTexts = (kind: string) =>
      updates.flatMap((u) =>
        (u.sessionUpdate === 'agent_message_chunk' || u.sessionUpdate === 'agent_thought_chunk') && u.sessionUpdate === kind && u.content.type === 'text' ? [u.content.text] : [],
      );
    expect(chunkTexts('agent_thought_chunk').join('')).toBe('The port is changed.');
    expect(chunkTexts('agent_message_chunk').length).toBeGreaterThan(1);
    expect(chunkTexts('agent_message_chunk').join('')).toBe('Changed the port to 8080.');
    const kinds = updates.map((u) => u.sessionUpdate);
    expect(kinds.lastIndexOf('agent_thought_chunk')).toBeLessThan(kinds.indexOf('agent_message_chunk'));

    // The agent is a session option beside the model (which maps to -m).
    const agent = await e.conn.agent.request('session/set_config_option', { sessionId, configId: 'agent', value: 'plan' });
    expect(agent.configOptions[1]).toMatchObject({ id: 'agent', currentValue: 'plan' });
    const set = await e.conn.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'haiku' });
    expect(set.configOptions[0]).toMatchObject({ currentValue: 'anthropic/claude-haiku-4-5' });
    await e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'plan it' }] });
    const last = p.server.requests.at(-1)!;
    expect(last.body.model).toBe('claude-haiku-4-5');
    expect(systemText(last)).toContain('plan mode');
    await expect(e.conn.agent.request('session/set_mode', { sessionId, modeId: 'nope' })).rejects.toThrow(/nope/);
  });

  it('session/set_mode switches the permission mode: acceptEdits writes without asking the editor, plan refuses, a bad mode is refused', async () => {
    script(
      p,
      [toolUse('write', { file_path: 'a.txt', content: 'A\n' }), text('wrote a'), toolUse('write', { file_path: 'b.txt', content: 'B\n' }), text('refused b')],
      [],
    );
    const e = open({ answerPermission: () => 'reject' });
    await initialize(e);
    const { sessionId } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    await e.conn.agent.request('session/set_mode', { sessionId, modeId: 'acceptEdits' });
    await e.waitForUpdate((n) => n.update.sessionUpdate === 'current_mode_update' && n.update.currentModeId === 'acceptEdits');
    await e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write a' }] });
    expect(readFileSync(join(p.project, 'a.txt'), 'utf8')).toBe('A\n');
    expect(e.permissions).toHaveLength(0);

    await e.conn.agent.request('session/set_mode', { sessionId, modeId: 'plan' });
    await e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write b' }] });
    expect(existsSync(join(p.project, 'b.txt'))).toBe(false);
    expect(String(toolResults(p.server.requests.at(-1)!)[0]?.content)).toMatch(/^Plan mode is read-only/);
    expect(e.permissions).toHaveLength(0);
    await expect(e.conn.agent.request('session/set_mode', { sessionId, modeId: 'build' })).rejects.toThrow(/modeId must be one of default, acceptEdits/);
  });

  it('withdraws a sub-agent\'s pending approval from the editor when the turn is cancelled', async () => {
    script(p, [toolUse('task', { description: 'Clean up', prompt: 'Remove the build folder.', subagent_type: 'general' }), text('never')], [toolUse('bash', { command: 'rm -rf build' })]);
    let withdrawn = false;
    const child = spawnEditorWithPendingPermission(p, () => (withdrawn = true));
    editors.track(child.editor);
    await initialize(child.editor);
    const { sessionId } = await child.editor.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    const turn = child.editor.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'clean' }] });
    await child.asked;
    await child.editor.conn.agent.notify('session/cancel', { sessionId });
    expect((await turn).stopReason).toBe('cancelled');
    await until(() => withdrawn);
    // The child never got a model request after the ask, and the root stopped too.
    expect(p.server.requests.filter(isChildRequest)).toHaveLength(1);
    expect(p.server.requests).toHaveLength(2);
  });

  it('lists stored sessions and replays one on load', async () => {
    script(p, [toolUse('read', { file_path: 'notes.md' }), text('The notes are empty.')], []);
    const first = open();
    await initialize(first);
    const { sessionId } = await first.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    await first.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Read my notes.' }] });
    first.child.stdin!.end();
    await first.exited;

    const second = open();
    await initialize(second);
    const list = await second.conn.agent.request('session/list', { cwd: p.project });
    expect(list.sessions.map((s) => s.sessionId)).toContain(sessionId);
    const loaded = await second.conn.agent.request('session/load', { sessionId, cwd: p.project, mcpServers: [] });
    expect(loaded?.modes?.currentModeId).toBe('default');
    expect(loaded?.configOptions?.[1]).toMatchObject({ id: 'agent', currentValue: 'build' });
    // The command menu follows the answer to session/load; it is not part of the replay.
    const replay = second.updates.filter((n) => n.sessionId === sessionId && kindOf(n) !== 'available_commands_update').map((n) => n.update);
    expect(replay[0]).toMatchObject({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Read my notes.' } });
    expect(replay).toContainEqual(expect.objectContaining({ sessionUpdate: 'tool_call', kind: 'read', title: 'read notes.md' }));
    // notes.md does not exist: the read failed, and the replay says so as the live turn did.
    const call = replay.find((u) => u.sessionUpdate === 'tool_call')! as { toolCallId: string };
    const result = replay.find((u) => u.sessionUpdate === 'tool_call_update' && (u as { toolCallId: string }).toolCallId === call.toolCallId);
    expect(result).toMatchObject({ sessionUpdate: 'tool_call_update', status: 'failed', rawOutput: { output: expect.stringMatching(/notes\.md/) } });
    expect(first.updates.map((n) => n.update)).toContainEqual(expect.objectContaining({ sessionUpdate: 'tool_call_update', toolCallId: call.toolCallId, status: 'failed' }));
    expect(replay.at(-1)).toMatchObject({ sessionUpdate: 'agent_message_chunk', content: { text: 'The notes are empty.' } });

    // The loaded session continues with its history.
    p.server.setHandler(() => text('Still empty.'));
    const res = await second.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'And now?' }] });
    expect(res.stopReason).toBe('end_turn');
    expect(p.server.requests.at(-1)!.body.messages.length).toBeGreaterThan(3);
  });

  it('steers a running sub-agent with a prompt to its session id, delivered after its running tool', async () => {
    let openChild: () => void = () => {};
    const held = new Promise<void>((resolve) => (openChild = resolve));
    const root: ScriptedReply[] = [toolUse('task', { description: 'Scan', prompt: 'Scan the project.', subagent_type: 'general' }), text('Root done.')];
    const sub: Array<ScriptedReply | (() => Promise<ScriptedReply>)> = [async () => (await held, toolUse('list', { path: '.' })), text('Scanned.')];
    p.server.setHandler(async (req) => {
      const next = isChildRequest(req) ? sub.shift() : root.shift();
      if (typeof next === 'function') return next();
      return next ?? text('(script exhausted)');
    });
    const e = open();
    await initialize(e);
    const { sessionId } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    const turn = e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'scan it' }] });
    // The task call's progress names the child's session id.
    const progress = await e.waitForUpdate((n) => n.update.sessionUpdate === 'tool_call_update' && JSON.stringify(n.update.rawOutput ?? {}).includes('"session_id"'));
    const childId = progress.update.sessionUpdate === 'tool_call_update' ? String((progress.update.rawOutput as { session_id?: unknown }).session_id) : '';
    await vi.waitFor(() => expect(p.server.requests.filter(isChildRequest)).toHaveLength(1), { timeout: 10_000 });
    expect((await e.conn.agent.request('session/prompt', { sessionId: childId, prompt: [{ type: 'text', text: 'also count the files' }] })).stopReason).toBe('end_turn');
    openChild();
    expect((await turn).stopReason).toBe('end_turn');
    const childRequests = p.server.requests.filter(isChildRequest);
    expect(JSON.stringify(childRequests[0]!.body.messages)).not.toContain('also count the files');
    expect(JSON.stringify(childRequests[1]!.body.messages.at(-1)!.content)).toMatch(/tool_result[\s\S]*also count the files/);
    for (const req of p.server.requests.filter((r) => !isChildRequest(r))) expect(JSON.stringify(req.body.messages)).not.toContain('also count the files');
  });

  it('refuses unknown sessions with a clear error and offers auth methods without a key', async () => {
    const { ANTHROPIC_API_KEY: _key, ...noKey } = p.env;
    const e = startEditor({ ...p, env: noKey });
    editors.track(e);
    const init = await initialize(e);
    expect(init.authMethods?.length).toBe(1);
    await expect(e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] })).rejects.toThrow(/ANTHROPIC_API_KEY/);
    await expect(e.conn.agent.request('session/prompt', { sessionId: 'ses_nope', prompt: [{ type: 'text', text: 'x' }] })).rejects.toThrow(/No open session/);
    await expect(e.conn.agent.request('session/load', { sessionId: 'ses_nope', cwd: p.project, mcpServers: [] })).rejects.toThrow(/No session with id "ses_nope"/);
  });

  it('survives garbage on stdin and keeps stdout to JSON-RPC', async () => {
    // The agent answers each bad line with an error response, which the test's client logs.
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    onTestFinished(() => logged.mockRestore());
    const e = open();
    e.child.stdin!.write('this is not json\n{"jsonrpc":"2.0","id":"x","method":"no/such"}\n[1,2]\n');
    const init = await initialize(e);
    expect(init.protocolVersion).toBe(1);
    const { sessionId } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    await expect(e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '   ' }] })).rejects.toThrow(/no text/);
    await expect(e.conn.agent.request('session/set_config_option', { sessionId, configId: 'colour', value: 'red' })).rejects.toThrow(/colour/);
    e.child.stdin!.end();
    expect(await e.exited).toBe(0);
    for (const line of e.stdout().split('\n').filter(Boolean)) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  });
});

/** An editor that leaves every permission request open until the agent withdraws it. */
function spawnEditorWithPendingPermission(p: CliProject, onWithdrawn: () => void): { editor: Editor; asked: Promise<void> } {
  let asked!: () => void;
  const askedPromise = new Promise<void>((resolve) => (asked = resolve));
  const editor = startEditor(p, {
    answerPermission: (_req, signal) =>
      new Promise<undefined>((resolve) => {
        asked();
        signal.addEventListener('abort', () => {
          onWithdrawn();
          resolve(undefined);
        });
      }),
  });
  return { editor, asked: askedPromise };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits for a condition on the file system or process table, with a deadline. */
async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
