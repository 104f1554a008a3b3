// Background shells in a real engine: a root's shell outlives its turn and ends with the
// engine; a sub-agent's shells end with its run (cancelled or finished); deny rules apply to
// background commands; the shell events are valid protocol events; and the background-shell
// tools come with bash, whatever the agent's allowlist. Processes are found by a sleep
// duration unique to the test, with a deadline.
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreEvent } from '../../src/core/events.js';
import { selectToolNames } from '../../src/core/subagents/index.js';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { reply, text, toolResults, toolUse } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { liveProcesses, liveProcessesWhere } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

let h: Harness | undefined;
const durations: string[] = [];

afterEach(async () => {
  await h?.engine.close();
  await h?.close();
  h = undefined;
  for (const d of durations.splice(0)) for (const pid of liveProcesses(d)) process.kill(pid, 'SIGKILL');
});

function uniqueSleep(): string {
  const d = `${500000 + Math.floor(Math.random() * 99999)}.${process.pid}${durations.length}`;
  durations.push(d);
  return d;
}

function sleeps(d: string): number[] {
  return liveProcessesWhere((cmdline) => cmdline === `sleep ${d} `);
}

const background = (command: string, id?: string) => toolUse('bash', { command, run_in_background: true }, id);
const resultText = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));
const shellEvents = (events: CoreEvent[]) => events.filter((e) => e.type === 'shell.started' || e.type === 'shell.exited');

describe('background shells in the engine', { timeout: 60_000 }, () => {
  it("keeps a root session's shell running after its turn and ends it when the engine closes", async () => {
    h = await startHarness({ config: { permission: { bash: 'allow' } } });
    const d = uniqueSleep();
    h.server.enqueue(background(`echo up; sleep ${d}`), text('Started.'));
    const root = h.engine.createSession();
    const outcome = await h.engine.prompt(root.id, 'start a server');
    expect(outcome.text).toBe('Started.');
    const [started] = toolResults(h.server.requests[1]!);
    expect(resultText(started!.content)).toMatch(/^Started in the background as shell_1 \(pid \d+\)/);
    await waitFor(() => sleeps(d).length === 1, 'the background sleep', { timeoutMs: 10_000 });
    expect(h.engine.runningShells()).toEqual([expect.objectContaining({ sessionId: root.id, shellId: 'shell_1', command: `echo up; sleep ${d}` })]);

    // The next turn reads it: still running, and what it printed.
    h.server.enqueue(toolUse('bash_output', { shell_id: 'shell_1' }), text('Read.'));
    await h.engine.prompt(root.id, 'how is it');
    const [read] = toolResults(h.server.requests[3]!);
    expect(resultText(read!.content)).toMatch(/^up\n\n\[shell_1 is still running/);

    await h.engine.close();
    expect(sleeps(d)).toEqual([]);
    expect(h.engine.runningShells()).toEqual([]);
    expect(shellEvents(h.events).map((e) => [e.type, e.session_id, 'reason' in e ? e.reason : undefined])).toEqual([
      ['shell.started', root.id, undefined],
      ['shell.exited', root.id, 'session_ended'],
    ]);
  });

  it("ends a sub-agent's shells when it is cancelled", async () => {
    h = await startHarness({ config: { permission: { bash: 'allow' } } });
    const d = uniqueSleep();
    scriptConversations(h.server, {
      'delegate it': [reply({ type: 'tool_use', name: 'task', input: { description: 'Serve', prompt: 'serve it', subagent_type: 'general' }, id: 'toolu_t1' })],
      // The child starts its shell, then its next request never answers: it is still running when cancelled.
      'serve it': [background(`sleep ${d}`), { type: 'stall' }],
    });
    const root = h.engine.createSession();
    const turn = h.engine.prompt(root.id, 'delegate it');
    await waitFor(() => sleeps(d).length === 1, 'the child\'s background sleep', { timeoutMs: 10_000 });
    const child = h.engine.children(root.id)[0]!;
    expect(h.engine.runningShells().map((s) => s.sessionId)).toEqual([child.id]);

    h.engine.cancel(root.id);
    await turn;
    await waitFor(() => sleeps(d).length === 0, 'the child\'s shell to end', { timeoutMs: 10_000 });
    await waitFor(() => shellEvents(h!.events).some((e) => e.type === 'shell.exited'), 'shell.exited', { timeoutMs: 10_000 });
    expect(shellEvents(h.events).at(-1)).toMatchObject({ type: 'shell.exited', session_id: child.id, reason: 'session_ended' });
  });

  it("ends a sub-agent's shells when its task finishes, before the root settles", async () => {
    h = await startHarness({ config: { permission: { bash: 'allow' } } });
    const d = uniqueSleep();
    scriptConversations(h.server, {
      'delegate and wait': [reply({ type: 'tool_use', name: 'task', input: { description: 'Serve', prompt: 'serve and return', subagent_type: 'general' }, id: 'toolu_t2' }), text('All done.')],
      'serve and return': [background(`sleep ${d}`), text('Served.')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'delegate and wait');
    await h.engine.settled(root.id);
    expect(sleeps(d)).toEqual([]);
    expect(h.engine.runningShells()).toEqual([]);
  });

  it('denies a background command that a deny rule matches, starting nothing', async () => {
    h = await startHarness({ config: { permission: { bash: { '*': 'allow', 'sleep *': 'deny' } } } });
    const d = uniqueSleep();
    h.server.enqueue(background(`sleep ${d}`), text('Refused.'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'try it');
    const [refused] = toolResults(requestsOf(h.server, 'try it')[1]!);
    expect(refused!.is_error).toBe(true);
    expect(resultText(refused!.content)).toMatch(/denied/i);
    expect(sleeps(d)).toEqual([]);
    expect(h.engine.runningShells()).toEqual([]);
    expect(shellEvents(h.events)).toEqual([]);
  });
});

describe('which sessions get bash_output and kill_shell', () => {
  const base = { available: ['read', 'bash', 'bash_output', 'kill_shell', 'ask_user'], chain: [], depth: 0, maxDepth: 1 };

  it('gives them with bash, even when an allowlist names only bash', () => {
    expect(selectToolNames({ ...base, agent: {} }).names).toEqual(['read', 'bash', 'bash_output', 'kill_shell', 'ask_user']);
    expect(selectToolNames({ ...base, agent: { tools: ['read', 'bash'] } }).names).toEqual(['read', 'bash', 'bash_output', 'kill_shell', 'ask_user']);
  });

  it('leaves them out without bash, when switched off, or denied by name', () => {
    expect(selectToolNames({ ...base, agent: { tools: ['read'] } }).names).toEqual(['read', 'ask_user']);
    expect(selectToolNames({ ...base, agent: { tools: ['read', 'bash_output'] } }).names).toEqual(['read', 'ask_user']);
    expect(selectToolNames({ ...base, agent: { disabledTools: ['bash'] } }).names).toEqual(['read', 'ask_user']);
    expect(selectToolNames({ ...base, agent: { disabledTools: ['kill_shell'] } }).names).toEqual(['read', 'bash', 'bash_output', 'ask_user']);
    expect(selectToolNames({ ...base, agent: {}, chain: [[{ permission: 'kill_shell', pattern: '*', action: 'deny' }]] }).names).toEqual([
      'read',
      'bash',
      'bash_output',
      'ask_user',
    ]);
    expect(selectToolNames({ ...base, agent: {}, narrow: ['read'] }).names).toEqual(['read', 'ask_user']);
  });
});
