// End-to-end in a real terminal (tmux): steering a running grandchild (DESIGN §23). The built
// binary runs build → general (Plan work) → general (Find routes) against this process's fake
// API server; the grandchild's first model call is held open while the user walks down into its
// view and types a message there. The message must reach that grandchild only, and only after
// the tool call it was running — at its next model request.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startCliProject, type CliProject } from '../support/cli.js';
import { firstUserText } from '../support/conversations.js';
import { reply, text, type RecordedRequest, type ScriptedReply } from '../support/fake-anthropic.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';
import { waitFor } from '../support/wait.js';

const server = tmuxServer(`oci-steer-${process.pid}`);
const tmux = server.run;
const NAME = 'steer';
let ctx: CliProject;

const STEER = 'steer: check the admin routes too';
const task = (description: string, prompt: string, id: string) => ({ type: 'tool_use' as const, name: 'task', input: { description, prompt, subagent_type: 'general' }, id });

function screen(): string {
  return tmux('capture-pane', '-p', '-t', NAME);
}

async function waitForScreen(predicate: (s: string) => boolean, what: string): Promise<string> {
  return waitFor(() => {
    const s = screen();
    return predicate(s) ? s : undefined;
  }, what, { timeoutMs: 20_000, intervalMs: 50, last: screen });
}

const mentions = (req: RecordedRequest, needle: string) => JSON.stringify(req.body.messages).includes(needle);

describe.runIf(hasTmux || process.env.CI)('steering a running grandchild in the terminal', () => {
  let openGrandchild: () => void = () => {};
  const grandchildHeld = new Promise<void>((resolve) => {
    openGrandchild = resolve;
  });
  const conversations: Record<string, Array<ScriptedReply | (() => Promise<ScriptedReply>)>> = {
    'start the tree': [reply(task('Plan work', 'plan the route work', 'toolu_plan')), text('root finished')],
    'plan the route work': [reply(task('Find routes', 'find the routes', 'toolu_find')), text('child finished')],
    'find the routes': [async () => (await grandchildHeld, reply({ type: 'tool_use', name: 'list', input: { path: '.' }, id: 'toolu_list' })), text('grandchild finished')],
  };

  beforeAll(async () => {
    ctx = await startCliProject();
    mkdirSync(ctx.env.OPENCODE_INK_CONFIG_DIR!, { recursive: true });
    // Depth 2: the child may start its own sub-agent.
    writeFileSync(join(ctx.env.OPENCODE_INK_CONFIG_DIR!, 'config.json'), JSON.stringify({ subagents: { max_depth: 2 } }));
    ctx.server.setHandler(async (req) => {
      const next = conversations[firstUserText(req)]?.shift();
      if (!next) return text('(no script)');
      return typeof next === 'function' ? next() : next;
    });
  });
  afterAll(async () => {
    openGrandchild();
    server.kill();
    await ctx.close();
  });

  it('a message typed in a running grandchild view reaches that grandchild only, at its next turn boundary', async () => {
    const env = Object.entries({ ...ctx.env, TERM: 'xterm-256color' }).map(([k, v]) => `${k}=${v ?? ''}`);
    tmux('new-session', '-d', '-s', NAME, '-x', '110', '-y', '32', '-c', ctx.project, `env ${env.join(' ')} node ${BIN}; sleep 30`);
    await waitForScreen((s) => s.includes('Ask anything'), 'the prompt');
    tmux('send-keys', '-t', NAME, '-l', 'start the tree');
    tmux('send-keys', '-t', NAME, 'Enter');

    const byPrompt = (prompt: string) => ctx.server.requests.filter((r) => firstUserText(r) === prompt);
    await waitFor(() => byPrompt('find the routes').length === 1, 'the grandchild to call the model');

    // Down into the child, then into its child.
    tmux('send-keys', '-t', NAME, 'C-x');
    tmux('send-keys', '-t', NAME, 'Down');
    await waitForScreen((s) => s.includes('to general › Plan work'), 'the child view');
    tmux('send-keys', '-t', NAME, 'C-x');
    tmux('send-keys', '-t', NAME, 'Down');
    await waitForScreen((s) => s.includes('to general › Find routes'), 'the grandchild view');

    tmux('send-keys', '-t', NAME, '-l', STEER);
    tmux('send-keys', '-t', NAME, 'Enter');
    await waitForScreen((s) => s.includes('Queued for general › Find routes'), 'the queued notice');
    // Queued, not delivered: the grandchild's model call is still open.
    expect(ctx.server.requests.some((r) => mentions(r, STEER))).toBe(false);

    openGrandchild();
    await waitFor(() => byPrompt('find the routes').length === 2, 'the grandchild to call the model again');
    const [first, second] = byPrompt('find the routes');
    expect(mentions(first!, STEER)).toBe(false);
    // After the list call's result, in the same user message: between model calls, not mid-tool.
    const last = second!.body.messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(JSON.stringify(last.content)).toMatch(new RegExp(`tool_result[\\s\\S]*${STEER}`));
    await waitForScreen((s) => s.includes(`${STEER} (from you)`), 'the message in the grandchild transcript');

    await waitFor(() => byPrompt('start the tree').length === 2, 'the root to read its child result');
    // The grandchild only: neither its parent nor the root ever saw the message.
    for (const req of [...byPrompt('start the tree'), ...byPrompt('plan the route work')]) expect(mentions(req, STEER)).toBe(false);
    expect(ctx.server.requests.filter((r) => mentions(r, STEER))).toEqual([second]);
  });
});
