// The library as a program that depends on it uses it: scripts in a folder of their own import
// `opencode-ink/sdk` through a node_modules link to the built package (its `exports`), run
// in a separate Node process against the fake API server, and report what they saw as JSON.
// The docs' example is run exactly as docs/sdk.md prints it.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCliProject, type CliProject } from '../support/cli.js';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { text, toolNames, toolResults, toolUse } from '../support/fake-anthropic.js';
import { REPO_ROOT } from '../support/repo-root.js';
import { waitFor } from '../support/wait.js';

interface AppRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

let app: string;

beforeAll(() => {
  app = mkdtempSync(join(tmpdir(), 'oci-sdk-app-'));
  mkdirSync(join(app, 'node_modules'));
  symlinkSync(REPO_ROOT, join(app, 'node_modules', 'opencode-ink'), 'dir');
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'sdk-user', type: 'module', private: true }));
});

afterAll(() => rmSync(app, { recursive: true, force: true }));

/** Starts `node <app>/<name>` in the project folder; `stdin` stays open for the test. */
function startApp(name: string, source: string, ctx: CliProject, extraEnv: NodeJS.ProcessEnv = {}) {
  writeFileSync(join(app, name), source);
  const child = spawn(process.execPath, [join(app, name)], {
    cwd: ctx.project,
    env: { PATH: process.env.PATH, ...ctx.env, ...extraEnv },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<AppRun>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}

/** The last stdout line, which the scripts below print as their report. */
function report<T>(run: AppRun): T {
  const lines = run.stdout.trim().split('\n');
  try {
    return JSON.parse(lines[lines.length - 1]!) as T;
  } catch {
    throw new Error(`The script printed no report (exit ${run.code}).\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
  }
}

let ctx: CliProject;
beforeEach(async () => {
  ctx = await startCliProject();
});
afterEach(async () => {
  await ctx.close();
});

describe('opencode-ink/sdk, imported from a separate folder', () => {
  it('runs the example of docs/sdk.md as printed', async () => {
    const docs = readFileSync(join(REPO_ROOT, 'docs', 'sdk.md'), 'utf8');
    const example = /```js\n([\s\S]*?)```/.exec(docs)?.[1];
    expect(example, 'docs/sdk.md has a js example').toBeDefined();
    scriptConversations(ctx.server, {
      'Plan a weekend in Lisbon: check the weather, then have the planner write plan.md.': [
        toolUse('weather', { city: 'Lisbon' }),
        toolUse('task', { description: 'Write the plan', prompt: 'Write plan.md for a sunny Lisbon weekend.', subagent_type: 'planner' }),
        text('The plan is in plan.md.'),
      ],
      'Write plan.md for a sunny Lisbon weekend.': [toolUse('write', { file_path: 'plan.md', content: '# Lisbon\nBeach on Saturday.\n' }), text('Wrote plan.md.')],
    });
    const run = await startApp('example.mjs', example!, ctx).done;
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('@build calls weather');
    expect(run.stdout).toContain('sub-agent @planner started');
    expect(run.stdout).toContain('approval: @planner (1 deep) wants write');
    expect(run.stdout).toContain('answer: The plan is in plan.md.');
    expect(run.stdout).toMatch(/session \S+: \d+ in, \d+ out, \$\d+\.\d{4}/);
    expect(readFileSync(join(ctx.project, 'plan.md'), 'utf8')).toBe('# Lisbon\nBeach on Saturday.\n');
    const root = requestsOf(ctx.server, 'Plan a weekend in Lisbon: check the weather, then have the planner write plan.md.');
    expect(JSON.stringify(toolResults(root[1]!))).toContain('Sunny, 24 °C in Lisbon all week.');
    // The planner's allowlist names the in-process tool, so it has it (and nothing it did not name but ask_user).
    expect(toolNames(requestsOf(ctx.server, 'Write plan.md for a sunny Lisbon weekend.')[0]!).sort()).toEqual(['ask_user', 'weather', 'write']);
  });

  it('gives a child\'s permission ask to canUseTool labelled with its agent and path, runs in-process tools at every depth, and loads no terminal code', async () => {
    scriptConversations(ctx.server, {
      'Use the tools.': [
        toolUse('lookup', { word: 'ink' }),
        toolUse('task', { description: 'Check', prompt: 'Run the check.', subagent_type: 'general' }),
        text('All done.', { input_tokens: 10, output_tokens: 3 }),
      ],
      'Run the check.': [
        toolUse('lookup', { word: 'child' }),
        toolUse('ask_user', { question: 'Which check?', options: ['fast', 'full'] }),
        toolUse('write', { file_path: 'plan.md', content: '# Plan\n' }),
        toolUse('bash', { command: 'echo checked' }),
        text('checked', { input_tokens: 7, output_tokens: 2 }),
      ],
    });
    const loads = join(ctx.dir, 'loads.txt');
    const run = await startApp(
      'tree.mjs',
      `import { query, tool, z } from 'opencode-ink/sdk';
const lookup = tool({
  name: 'lookup',
  description: 'Looks a word up.',
  input: z.object({ word: z.string() }),
  run: async ({ word }, context) => word + ': found by ' + context.agent,
});
const asks = [];
const events = [];
const q = query({
  prompt: 'Use the tools.',
  tools: [lookup],
  canUseTool: async (r) => {
    asks.push({ tool: r.tool, title: r.title, agent: r.agent, path: r.path, session_id: r.session_id, input: r.input });
    return 'once';
  },
  onQuestion: async (question) => question.agent + ' at depth ' + (question.path.length - 1) + ' picks ' + question.options[0],
});
for await (const e of q) events.push(e);
const result = await q.result();
console.log(JSON.stringify({ asks, result, events }));
`,
      ctx,
      { NODE_OPTIONS: `--import=${join(REPO_ROOT, 'test', 'support', 'trace-loads.mjs')}`, OPENCODE_INK_TRACE_LOADS: loads },
    ).done;
    expect(run.code, run.stderr).toBe(0);
    const { asks, result, events } = report<{
      asks: Array<{ tool: string; title: string; agent: string; path: string[]; session_id: string; input: unknown }>;
      result: { text: string; sessionId: string; status: string; usage: { input_tokens: number; output_tokens: number }; cost: number };
      events: Array<{ type: string; session_id: string; agent: string; path: string[]; parent_id?: string | null; usage?: { output_tokens: number } }>;
    }>(run);

    const rootId = result.sessionId;
    const child = events.find((e) => e.type === 'session.created' && e.parent_id === rootId);
    expect(child?.agent).toBe('general');
    // Titled by tool and target: the file a write changes, never its diff.
    expect(asks).toEqual([
      { tool: 'write', title: 'write plan.md', agent: 'general', path: [rootId, child!.session_id], session_id: child!.session_id, input: { file_path: 'plan.md', content: '# Plan\n' } },
      { tool: 'bash', title: 'bash echo checked', agent: 'general', path: [rootId, child!.session_id], session_id: child!.session_id, input: { command: 'echo checked' } },
    ]);
    expect(result).toMatchObject({ text: 'All done.', status: 'completed' });
    // The tree's usage: the child's turn counts too.
    expect(result.usage.output_tokens).toBeGreaterThanOrEqual(5);
    const rootTurn = events.find((e) => e.type === 'turn.completed' && e.session_id === rootId);
    expect(result.usage.output_tokens).toBeGreaterThan(rootTurn!.usage!.output_tokens);
    // Events are the protocol's, children's included, each with its path.
    expect(events.some((e) => e.type === 'tool.completed' && e.path.length === 2)).toBe(true);
    expect(JSON.stringify(toolResults(requestsOf(ctx.server, 'Use the tools.')[1]!))).toContain('ink: found by build');
    const childResults = JSON.stringify(requestsOf(ctx.server, 'Run the check.').map((r) => toolResults(r)));
    expect(childResults).toContain('child: found by general');
    expect(childResults).toContain('checked');
    expect(childResults).toContain('The user answered: general at depth 1 picks fast');

    const loaded = readFileSync(loads, 'utf8').split('\n').filter(Boolean);
    expect(loaded.some((url) => url.includes('/dist/sdk/'))).toBe(true);
    const terminal = loaded.filter((url) => /\/node_modules\/(ink|react|react-reconciler|yoga-layout|commander|chalk)\/|\/dist\/(cli|tui|run|boot)\.js|\/dist\/boot\.cjs|\/src\/(ui|cli)\//.test(url));
    expect(terminal).toEqual([]);
  });

  it('takes permissionMode: acceptEdits writes without asking canUseTool, commands still ask, and the skipped ask is an event', async () => {
    scriptConversations(ctx.server, {
      'Write and run.': [toolUse('write', { file_path: 'made.md', content: '# Made\n' }), toolUse('bash', { command: 'echo ran' }), text('Done.')],
    });
    const run = await startApp(
      'modes.mjs',
      `import { query } from 'opencode-ink/sdk';
const asks = [];
const q = query({ prompt: 'Write and run.', permissionMode: 'acceptEdits', canUseTool: (r) => (asks.push(r.title), 'once') });
const autos = [];
for await (const e of q) if (e.type === 'permission.auto') autos.push(e.mode + ' ' + e.tool + ' ' + e.file);
await q.result();
console.log(JSON.stringify({ asks, autos }));
`,
      ctx,
    ).done;
    expect(run.code, run.stderr).toBe(0);
    expect(report<{ asks: string[]; autos: string[] }>(run)).toEqual({ asks: ['bash echo ran'], autos: ['acceptEdits write made.md'] });
    expect(readFileSync(join(ctx.project, 'made.md'), 'utf8')).toBe('# Made\n');
  });

  it('steers a running child through sendToSession: the message reaches it at its next turn boundary', async () => {
    scriptConversations(ctx.server, {
      'Delegate the wait.': [toolUse('task', { description: 'Wait', prompt: 'Hold on.', subagent_type: 'general' }), text('Root done.')],
      'Hold on.': [toolUse('hold', {}), text('Child done.')],
    });
    const run = await startApp(
      'steer.mjs',
      `import { query, tool, z } from 'opencode-ink/sdk';
let q;
const outcomes = [];
const deliveries = [];
const hold = tool({
  name: 'hold',
  description: 'Waits for the program.',
  input: z.object({}),
  // While the child is inside this tool, the program sends it a message: it must wait for the turn boundary.
  run: async (_input, context) => {
    const receipt = q.sendToSession(context.sessionId, 'Also check the README.');
    outcomes.push(receipt.outcome);
    deliveries.push(receipt.delivery);
    return 'held';
  },
});
q = query({ prompt: 'Delegate the wait.', tools: [hold] });
const delivered = [];
for await (const e of q) if (e.type === 'message.delivered') delivered.push({ text: e.text, sender: e.sender, continued: e.continued, depth: e.path.length - 1 });
const result = await q.result();
let late;
try {
  q.sendToSession(result.sessionId, 'too late');
} catch (err) {
  late = err.message;
}
const fates = await Promise.all(deliveries);
console.log(JSON.stringify({ outcomes, fates, delivered, text: result.text, late }));
`,
      ctx,
    ).done;
    expect(run.code, run.stderr).toBe(0);
    const { outcomes, fates, delivered, text: answer, late } = report<{ outcomes: string[]; fates: unknown[]; delivered: unknown[]; text: string; late?: string }>(run);
    expect(outcomes).toEqual(['queued']);
    expect(fates).toEqual([{ delivered: true }]);
    expect(delivered).toEqual([{ text: 'Also check the README.', sender: 'user', continued: false, depth: 1 }]);
    expect(answer).toBe('Root done.');
    expect(late).toMatch(/not running/);
    // The child's second request carries the tool result, then the message as the user's.
    const child = requestsOf(ctx.server, 'Hold on.');
    expect(child).toHaveLength(2);
    const second = JSON.stringify(child[1]!.body);
    expect(second).toContain('held');
    expect(second.indexOf('Also check the README.')).toBeGreaterThan(second.indexOf('held'));
    expect(JSON.stringify(requestsOf(ctx.server, 'Delegate the wait.').map((r) => r.body))).not.toContain('Also check the README.');
  });

  it('cancels the whole tree, children\'s processes included, when the signal aborts', async () => {
    scriptConversations(ctx.server, {
      'Start the long job.': [
        // canUseTool but no onQuestion: the question is answered "nobody can", not left waiting.
        toolUse('ask_user', { question: 'Go ahead?' }),
        toolUse('task', { description: 'Long job', prompt: 'Run the long job.', subagent_type: 'general' }),
        text('never'),
      ],
      'Run the long job.': [toolUse('bash', { command: 'echo $$ > sleeper.tmp && mv sleeper.tmp sleeper.pid && exec sleep 30' }), text('never')],
    });
    const app = startApp(
      'abort.mjs',
      `import { query } from 'opencode-ink/sdk';
const controller = new AbortController();
process.stdin.once('data', () => controller.abort());
const statuses = [];
const q = query({ prompt: 'Start the long job.', canUseTool: () => 'once', signal: controller.signal });
let error;
try {
  for await (const e of q) if (e.type === 'session.status') statuses.push({ path: e.path.length, status: e.status });
} catch (err) {
  error = { name: err.name, message: err.message };
}
const rejected = await q.result().then(() => undefined, (err) => err.name);
process.stdin.destroy();
console.log(JSON.stringify({ error, rejected, statuses }));
`,
      ctx,
    );
    const pidFile = join(ctx.project, 'sleeper.pid');
    await waitFor(() => existsSync(pidFile), 'the child\'s command to start', { timeoutMs: 15_000 });
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    app.child.stdin.write('abort\n');
    const run = await app.done;
    expect(run.code, run.stderr).toBe(0);
    const { error, rejected, statuses } = report<{ error: { name: string; message: string }; rejected: string; statuses: Array<{ path: number; status: string }> }>(run);
    expect(error).toEqual({ name: 'AbortError', message: 'The query was cancelled.' });
    expect(rejected).toBe('AbortError');
    expect(statuses).toContainEqual({ path: 2, status: 'cancelled' });
    expect(statuses).toContainEqual({ path: 1, status: 'cancelled' });
    await waitFor(() => !alive(pid), `the child's sleep (pid ${pid}) to be gone`);
    expect(JSON.stringify(toolResults(requestsOf(ctx.server, 'Start the long job.')[1]!))).toContain('The user is not available to answer questions in this run.');
  });
});

describe('the types of opencode-ink/sdk', () => {
  it('type-check a TypeScript program through the package exports, and catch a wrong answer', async () => {
    writeFileSync(
      join(app, 'consumer.ts'),
      `import { query, tool, z, type PermissionRequest, type QueryResult } from 'opencode-ink/sdk';
const add = tool({ name: 'add_one', description: 'Adds one.', input: z.object({ n: z.number() }), run: ({ n }) => String(n + 1) });
const q = query({ prompt: 'p', tools: [add], canUseTool: (r: PermissionRequest) => (r.agent === 'build' && r.path.length === 1 ? 'once' : 'reject') });
for await (const e of q) if (e.type === 'text.delta') console.log(e.text.toUpperCase());
const r: QueryResult = await q.result();
const cost: number = r.cost + r.usage.output_tokens;
console.log(cost, r.sessionId.length);
// @ts-expect-error -- not an answer canUseTool may give
query({ prompt: 'p', canUseTool: () => 'maybe' });
// @ts-expect-error -- run gets the input its schema describes
tool({ name: 'x', description: 'd', input: z.object({ n: z.number() }), run: ({ n }) => n.toUpperCase() });
`,
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(REPO_ROOT, 'node_modules', '@types')],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = spawn(process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(app, 'tsconfig.json')], { cwd: app });
    let out = '';
    tsc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    tsc.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => tsc.on('close', resolve));
    expect(out).toBe('');
    expect(code).toBe(0);
  }, 60_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
