import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { text, toolResults, toolUse, type FakeServer } from '../support/fake-anthropic.js';
import { runCli, startCli, startCliProject, type CliProject } from '../support/cli.js';
import { firstUserText } from '../support/conversations.js';
import { validStreamLines } from '../support/events.js';
import { REPO_ROOT } from '../support/repo-root.js';
import { uiChunksAmong } from '../support/ui-chunks.js';
import { waitFor } from '../tools/context.js';

let ctx: CliProject;
let server: FakeServer;
let dir: string;
let project: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ctx = await startCliProject();
  ({ server, dir, project, env } = ctx);
});

afterEach(() => ctx.close());

interface SessionJson {
  id: string;
  parent_id: string | null;
  status: string;
  title: string;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  total_cost: number;
  total_tokens: number;
}

describe('opencode-ink run', () => {
  it('prints the final text and records the session with its totals', async () => {
    server.enqueue({ type: 'message', content: [{ type: 'text', text: 'Hi from the model' }], usage: { input_tokens: 100, output_tokens: 20 } });
    const result = await runCli(['run', 'say', 'hi'], { cwd: project, env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Hi from the model\n');

    const listed = await runCli(['sessions', '--json'], { cwd: project, env });
    const sessions = JSON.parse(listed.stdout) as SessionJson[];
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ parent_id: null, status: 'idle', title: 'say hi', input_tokens: 100, output_tokens: 20, total_tokens: 120 });
    expect(sessions[0]!.total_cost).toBeGreaterThan(0);
  });

  it('completes a multi-tool task with --yes and prints every event as JSON lines', async () => {
    server.enqueue(
      toolUse('write', { file_path: 'src/hello.txt', content: 'hello world\n' }),
      toolUse('bash', { command: 'wc -c src/hello.txt' }),
      toolUse('grep', { pattern: 'world', output_mode: 'content' }),
      text('All done.'),
    );
    const result = await runCli(['run', '--yes', '--format', 'json', 'make a file'], { cwd: project, env });
    expect(result.code).toBe(0);
    expect(readFileSync(join(project, 'src/hello.txt'), 'utf8')).toBe('hello world\n');
    expect(JSON.stringify(toolResults(server.requests[2]!))).toContain('12');
    expect(JSON.stringify(toolResults(server.requests[3]!))).toContain('hello.txt:1:hello world');

    type Line = { type: string; session_id: string; path: string[]; ts: number; status?: string; call_id?: string; tool?: string; request_id?: string; mode?: string };
    // Each line matches the published schema; the first one names the protocol version.
    expect(validStreamLines(result.stdout)[0]).toMatchObject({ type: 'protocol', version: 1 });
    const events = result.stdout.trim().split('\n').slice(1).map((l) => JSON.parse(l) as Line);
    // The exact order, leaving out the streamed pieces (checked below), which vary in number.
    const streamed = new Set(['text.delta', 'tool.progress']);
    const seq = events.filter((e) => !streamed.has(e.type)).map((e) => (e.status ? `${e.type}:${e.status}` : e.type));
    // --yes is bypassPermissions: what would ask runs, each one told by a `permission.auto`.
    const askedTool = ['tool.started', 'permission.auto', 'tool.completed'];
    expect(seq).toEqual([
      'session.created',
      'session.status:running',
      ...['message.started', 'message.completed', ...askedTool], // write
      ...['message.started', 'message.completed', ...askedTool], // bash
      ...['message.started', 'message.completed', 'tool.started', 'tool.completed'], // grep: read-only, no ask
      ...['message.started', 'message.completed'], // the final text
      'session.status:idle',
      'turn.completed',
    ]);
    // Each tool call is one bracket, in the order the model made them, with its skipped ask inside.
    const tools = events.filter((e) => e.type.startsWith('tool.') && e.type !== 'tool.progress');
    expect(tools.map((e) => `${e.type}:${e.tool}`)).toEqual(['write', 'bash', 'grep'].flatMap((t) => [`tool.started:${t}`, `tool.completed:${t}`]));
    for (let i = 0; i < tools.length; i += 2) expect(tools[i + 1]!.call_id).toBe(tools[i]!.call_id);
    const asks = events.filter((e) => e.type.startsWith('permission.'));
    expect(asks.map((e) => `${e.type} ${e.mode} ${e.tool}`)).toEqual(['permission.auto bypassPermissions write', 'permission.auto bypassPermissions bash']);
    expect(asks.map((e) => e.call_id)).toEqual([tools[0]!.call_id, tools[2]!.call_id]);
    // Streamed pieces only while their message or tool call is open.
    let openMessage = false;
    let openCall: string | undefined;
    for (const e of events) {
      if (e.type === 'message.started' || e.type === 'message.completed') openMessage = e.type === 'message.started';
      if (e.type === 'tool.started') openCall = e.call_id;
      if (e.type === 'tool.completed') openCall = undefined;
      if (e.type === 'text.delta') expect(openMessage).toBe(true);
      if (e.type === 'tool.progress') expect(e.call_id).toBe(openCall);
    }
    expect(events.some((e) => e.type === 'text.delta')).toBe(true);
    for (const e of events) expect(e.path).toEqual([e.session_id]);
    const ts = events.map((e) => e.ts);
    expect([...ts].sort((a, b) => a - b)).toEqual(ts);
  });

  it('continues the most recent session with -c', async () => {
    server.enqueue(text('one'), text('two'));
    await runCli(['run', 'first'], { cwd: project, env });
    const second = await runCli(['run', '-c', 'second'], { cwd: project, env });
    expect(second.stdout).toBe('two\n');
    expect(server.requests[1]!.body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('exits 1 with one line when no API key is set', async () => {
    const { ANTHROPIC_API_KEY: _k, ...noKey } = env;
    const result = await runCli(['run', 'hi'], { cwd: project, env: noKey });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/ANTHROPIC_API_KEY/);
    expect(server.requests).toHaveLength(0);
  });

  it('accepts ANTHROPIC_AUTH_TOKEN instead of an API key and sends it to the API', async () => {
    server.enqueue(text('token accepted'));
    const { ANTHROPIC_API_KEY: _k, ...noKey } = env;
    const result = await runCli(['run', 'hi'], { cwd: project, env: { ...noKey, ANTHROPIC_AUTH_TOKEN: 'token-789' } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('token accepted\n');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer token-789');
  });

  it('never loads the UI chunks, which the interactive entry does load', async () => {
    const dist = join(REPO_ROOT, 'dist');
    // Every module URL the process resolves, written by an `--import` hook as it happens.
    const traced = (name: string): NodeJS.ProcessEnv => ({
      ...env,
      NODE_OPTIONS: `--import=${join(REPO_ROOT, 'test', 'support', 'trace-loads.mjs')}`,
      OPENCODE_INK_TRACE_LOADS: join(dir, name),
    });
    const loaded = (name: string): string[] => readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean);

    server.enqueue(text('ok'));
    const run = await runCli(['run', 'say ok'], { cwd: project, env: traced('run.txt') });
    expect(run.code).toBe(0);
    const runLoads = loaded('run.txt');
    // `run` is served by dist/run.js, a script dist/boot.cjs compiles (no module load to trace),
    // which is built without the UI (test/boot); the module bundle is not loaded at all.
    expect(runLoads.some((url) => url.endsWith('/dist/boot.cjs'))).toBe(true);
    expect(runLoads.some((url) => url.endsWith('/dist/cli.js'))).toBe(false);
    expect(uiChunksAmong(runLoads, dist)).toEqual([]);

    // The control: the TUI entry imports the UI before it finds there is no terminal.
    const tui = await runCli([], { cwd: project, env: traced('tui.txt') });
    expect(tui.code).toBe(2);
    expect(uiChunksAmong(loaded('tui.txt'), dist)).toContainEqual(expect.stringMatching(/^launch-.*\.js$/));
  });

  it('exits 2 naming the file and key for a bad config', async () => {
    writeFileSync(join(project, '.opencoderc.json'), JSON.stringify({ subagents: { max_depth: 0 } }));
    const result = await runCli(['run', 'hi'], { cwd: project, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('.opencoderc.json');
    expect(result.stderr).toContain('subagents.max_depth');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 for bad usage', async () => {
    const result = await runCli(['run', '--format', 'xml', 'hi'], { cwd: project, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/xml/);
  });

  it('marks a session interrupted after the process is killed mid-run, keeping finished messages, and resumes it', async () => {
    // The shell writes its pid (atomically, via mv) once it runs, so the test knows the
    // tool is under way and can stop the orphaned sleep afterwards.
    const pidFile = join(project, 'sleeper.pid');
    server.enqueue(
      toolUse('read', { file_path: 'missing.txt' }),
      toolUse('bash', { command: 'echo $$ > sleeper.tmp && mv sleeper.tmp sleeper.pid && exec sleep 30' }),
      text('Picked up where we left off.'),
    );
    const { child, done } = startCli(['run', '--yes', 'look around'], { cwd: project, env });
    let sleeper: number | undefined;
    try {
      await waitFor(() => existsSync(pidFile), 10_000, 'the bash tool to start');
      sleeper = Number(readFileSync(pidFile, 'utf8'));
      child.kill('SIGKILL');
      await done;

      const shown = await runCli(['sessions', '--json'], { cwd: project, env });
      const [session] = JSON.parse(shown.stdout) as SessionJson[];
      expect(session!.status).toBe('interrupted');
      const detail = JSON.parse((await runCli(['sessions', 'show', session!.id, '--json'], { cwd: project, env })).stdout) as {
        messages: Array<{ role: string; seq: number }>;
      };
      // The bash call's assistant message was stored before the tool ran; its result never was,
      // so the next start stored an "interrupted" result for it.
      expect(detail.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);

      const resumed = await runCli(['run', '-s', session!.id, 'continue'], { cwd: project, env });
      expect(resumed.stderr).toBe('');
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toBe('Picked up where we left off.\n');

      // The request after the restart carries a valid history: every tool_use is answered
      // in the next message, the killed call with an "interrupted" error result.
      const sent = server.requests[2]!.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
      expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
      const results = new Map<unknown, Record<string, unknown>>();
      sent.forEach((m, i) => {
        for (const use of m.content.filter((b) => b.type === 'tool_use')) {
          const result = sent[i + 1]?.content.find((b) => b.type === 'tool_result' && b.tool_use_id === use.id);
          expect(result, `result for ${String(use.name)}`).toBeDefined();
          results.set(use.name, result!);
        }
      });
      expect([...results.keys()]).toEqual(['read', 'bash']);
      expect(String(results.get('read')!.content)).not.toMatch(/interrupted/);
      expect(results.get('bash')).toMatchObject({ is_error: true, content: expect.stringMatching(/interrupted/) });
      expect(JSON.stringify(sent[4]!.content)).toContain('continue');
    } finally {
      if (sleeper) {
        try {
          process.kill(sleeper, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  });
});

describe('opencode-ink run with sub-agents', () => {
  it('after a kill with a child in flight, answers the task call with the child id so the model can resume it', async () => {
    const pidFile = join(project, 'sleeper.pid');
    server.setHandler((req) => {
      if (firstUserText(req) === 'child: wait') {
        return toolUse('bash', { command: 'echo $$ > sleeper.tmp && mv sleeper.tmp sleeper.pid && exec sleep 30' });
      }
      return req.body.messages.length === 1
        ? toolUse('task', { description: 'Long job', prompt: 'child: wait', subagent_type: 'general' })
        : text('Resumed.');
    });
    const { child, done } = startCli(['run', '--yes', 'delegate then crash'], { cwd: project, env });
    let sleeper: number | undefined;
    try {
      await waitFor(() => existsSync(pidFile), 15_000, 'the child to start its bash call');
      sleeper = Number(readFileSync(pidFile, 'utf8'));
      child.kill('SIGKILL');
      await done;

      const all = JSON.parse((await runCli(['sessions', '--all', '--json'], { cwd: project, env })).stdout) as SessionJson[];
      const root = all.find((s) => s.parent_id === null)!;
      const sub = all.find((s) => s.parent_id === root.id)!;
      expect([root.status, sub.status]).toEqual(['interrupted', 'interrupted']);
      const detail = JSON.parse((await runCli(['sessions', 'show', root.id, '--json'], { cwd: project, env })).stdout) as {
        messages: Array<{ role: string; content: Array<{ type: string; content?: string; is_error?: boolean }> }>;
      };
      const last = detail.messages.at(-1)!;
      expect(last.role).toBe('user');
      expect(last.content[0]).toMatchObject({ type: 'tool_result', is_error: true });
      expect(last.content[0]!.content).toContain(`<task id="${sub.id}" state="interrupted">`);
      expect(last.content[0]!.content).toContain(`task(session_id="${sub.id}"`);

      const resumed = await runCli(['run', '-s', root.id, 'go on'], { cwd: project, env });
      expect(resumed.stderr).toBe('');
      expect(resumed.stdout).toBe('Resumed.\n');
      const results = toolResults(server.requests.at(-1)!);
      expect(results).toHaveLength(1);
      expect(String(results[0]!.content)).toContain(`session_id="${sub.id}"`);
    } finally {
      if (sleeper) {
        try {
          process.kill(sleeper, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  });

  it('streams child events live with their path and stores the child under its parent', async () => {
    server.setHandler((req) => {
      const key = firstUserText(req);
      if (key === 'delegate it') {
        return req.body.messages.length === 1
          ? toolUse('task', { description: 'Look around', prompt: 'child: look around', subagent_type: 'explore' })
          : text('Parent done.');
      }
      return req.body.messages.length === 1 ? toolUse('list', {}) : text('Child report.', { input_tokens: 1000, output_tokens: 100 });
    });
    const result = await runCli(['run', '--format', 'json', 'delegate it'], { cwd: project, env });
    expect(result.code).toBe(0);
    validStreamLines(result.stdout);
    const events = result.stdout.trim().split('\n').slice(1).map((l) => JSON.parse(l) as { type: string; session_id: string; path: string[]; parent_id?: string });
    const root = events[0]!.session_id;
    const created = events.find((e) => e.type === 'session.created' && e.parent_id === root)!;
    const child = created.session_id;
    expect(created.path).toEqual([root, child]);
    const childTool = events.findIndex((e) => e.type === 'tool.completed' && e.session_id === child);
    const parentTask = events.findIndex((e) => e.type === 'tool.completed' && e.session_id === root);
    // Live: the child's tool finished before the parent's task call returned.
    expect(childTool).toBeGreaterThan(-1);
    expect(childTool).toBeLessThan(parentTask);
    expect(events.some((e) => e.type === 'tool.progress' && e.session_id === root)).toBe(true);

    const roots = JSON.parse((await runCli(['sessions', '--json'], { cwd: project, env })).stdout) as Array<{ id: string; total_tokens: number; input_tokens: number }>;
    expect(roots.map((r) => r.id)).toEqual([root]);
    expect(roots[0]!.total_tokens).toBeGreaterThan(1100);
    const all = JSON.parse((await runCli(['sessions', '--all', '--json'], { cwd: project, env })).stdout) as Array<{ id: string; parent_id: string | null; agent: string }>;
    expect(all.find((s) => s.id === child)).toMatchObject({ parent_id: root, agent: 'explore' });
    const shown = (await runCli(['sessions', 'show', root], { cwd: project, env })).stdout;
    expect(shown).toContain('Sub-agent sessions:');
    expect(shown).toContain(child);
  });
});

describe('opencode-ink agents and sessions', () => {
  it('lists the built-in primary agents as JSON', async () => {
    const result = await runCli(['agents', '--json'], { cwd: project, env });
    expect(result.code).toBe(0);
    const agents = JSON.parse(result.stdout) as Array<{ name: string; mode: string; source: string; tools: string[] }>;
    const build = agents.find((a) => a.name === 'build');
    const plan = agents.find((a) => a.name === 'plan');
    expect(build).toMatchObject({ mode: 'primary' });
    expect(build!.source).toMatch(/agents[/\\]build\.md$/);
    expect(plan!.tools).not.toContain('write');
    expect(plan!.tools).toContain('read');
    expect(build!.tools).toContain('task');
    // A sub-agent is listed with the tools it gets as a child: no task at the default max_depth of 1.
    const general = agents.find((a) => a.name === 'general')!;
    expect(general).toMatchObject({ mode: 'subagent' });
    expect(general.tools).toContain('write');
    expect(general.tools).not.toContain('task');
    expect(general.tools).not.toContain('todowrite');
    expect(agents.find((a) => a.name === 'explore')!.tools.sort()).toEqual(['ask_user', 'bash', 'bash_output', 'glob', 'grep', 'kill_shell', 'list', 'read']);
  });

  it('reports an unknown session id in one line with exit 2', async () => {
    const result = await runCli(['sessions', 'show', 'nope'], { cwd: project, env });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(/No session with id "nope"/);
  });

  it('prints the version', async () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect((await runCli(['--version'], { cwd: project, env })).stdout.trim()).toBe(pkg.version);
  });
});
