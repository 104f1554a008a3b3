// Teammates (DESIGN §24) through the real engine, store and Anthropic SDK against the fake
// model server: a lead starts named teammates, which go idle instead of ending, wake up on a
// message or on a task assigned to them, and are never started twice. Read top to bottom,
// these tests are the feature's documentation.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreEvent, EventOf } from '../../src/core/events.js';
import { firstUserText, requestsOf, scriptConversations, toolUse } from '../support/conversations.js';
import { lastUserText, reply, text, toolResults, type RecordedRequest, type ScriptedReply } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { HookScripts } from '../hooks/scripts.js';

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

const teammate = (name: string, prompt: string, extra: Record<string, unknown> = {}) =>
  toolUse('task', { description: `${name} teammate`, prompt, subagent_type: 'general', name, ...extra });
const taskList = (input: Record<string, unknown>) => toolUse('task_list', input);
const sendMessage = (input: Record<string, unknown>) => toolUse('send_message', input);
const results = (req: RecordedRequest) => toolResults(req).map((r) => ({ text: String(r.content), isError: r.is_error === true }));
const repeat = <T,>(n: number, item: T): T[] => Array.from({ length: n }, () => item);

/** Every text the model has read in this conversation: user text blocks and tool results, in order. */
function readSoFar(req: RecordedRequest): string {
  const out: string[] = [];
  for (const message of req.body.messages) {
    if (message.role !== 'user') continue;
    const parts = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as Array<{ type: string; text?: string; content?: unknown }>);
    for (const part of parts) out.push(part.type === 'text' ? (part.text ?? '') : String(part.content ?? ''));
  }
  return out.join('\n');
}

/**
 * A teammate that works on the tasks the team tells it about: claim a task assigned to it (or
 * unblocked for it), complete it, and go idle when nothing it was told of is left.
 */
function worker(name: string) {
  return (req: RecordedRequest): ScriptedReply => {
    const seen = readSoFar(req);
    const last = results(req)[0]?.text ?? '';
    const claimed = /^You have claimed task (\d+)/.exec(last);
    if (claimed) return reply(taskList({ action: 'complete', id: claimed[1], result: `done by ${name}` }));
    const told = [...seen.matchAll(/Task (\d+) is assigned to you: [^\n]*Claim it|Task (\d+) \([^)]*\), assigned to you, is no longer blocked/g)].map((m) => m[1] ?? m[2]!);
    const done = new Set([...seen.matchAll(/Completed task (\d+)/g)].map((m) => m[1]!));
    const next = told.find((id) => !done.has(id));
    if (next && !last.startsWith(`Task ${next} is blocked`)) return reply(taskList({ action: 'claim', id: next }));
    return text(`${name}: nothing to do right now`);
  };
}

const teamEvents = <T extends CoreEvent['type']>(events: CoreEvent[], type: T) => events.filter((e): e is EventOf<T> => e.type === type);

describe('teammates: named children that go idle instead of ending', () => {
  it('a team of three splits five tasks with dependencies and finishes with every task completed exactly once', async () => {
    h = await startHarness({ config: { subagents: { max_turns: 50 } } });
    scriptConversations(h.server, {
      'split the work': [
        // The lead starts its team; each `task` with `name` returns at once.
        reply(teammate('alpha', 'you are alpha'), teammate('beta', 'you are beta'), teammate('gamma', 'you are gamma')),
        // Then hands out the work: 1 ← 2, 3 ← 4 ← 5, each task to a teammate by name.
        reply(
          taskList({ action: 'create', title: 'Write the schema', owner: 'alpha' }),
          taskList({ action: 'create', title: 'Build the API', blocked_by: ['1'], owner: 'beta' }),
          taskList({ action: 'create', title: 'Build the UI', blocked_by: ['1'], owner: 'gamma' }),
          taskList({ action: 'create', title: 'Write the docs', blocked_by: ['2', '3'], owner: 'alpha' }),
          taskList({ action: 'create', title: 'Release notes', blocked_by: ['4'], owner: 'beta' }),
        ),
        text('the team is on it'),
        // Every idle teammate is announced to the lead, which has nothing to add.
        ...repeat(40, text('noted')),
      ],
      'you are alpha': repeat(40, worker('alpha')),
      'you are beta': repeat(40, worker('beta')),
      'you are gamma': repeat(40, worker('gamma')),
    });
    const lead = h.engine.createSession();
    // Teammates that go idle while the lead's turn runs are announced at its next step.
    expect(await h.engine.prompt(lead.id, 'split the work')).toMatchObject({ status: 'completed' });
    const [started] = requestsOf(h.server, 'split the work').slice(1).map(results);
    expect(started!.map((r) => r.text)).toEqual([
      expect.stringMatching(/^<task id="ses_\w+" state="running">[\s\S]*Teammate "alpha" started/),
      expect.stringMatching(/Teammate "beta" started/),
      expect.stringMatching(/Teammate "gamma" started/),
    ]);
    // The run is over once the lead has answered and every teammate is idle with nothing undelivered.
    await h.engine.settled(lead.id);

    const tasks = h.store.teamTasks.list(lead.id);
    expect(tasks.map((t) => [t.id, t.status, t.owner])).toEqual([
      ['1', 'completed', 'alpha'],
      ['2', 'completed', 'beta'],
      ['3', 'completed', 'gamma'],
      ['4', 'completed', 'alpha'],
      ['5', 'completed', 'beta'],
    ]);
    const completed = teamEvents(h.events, 'team.task').filter((e) => e.action === 'completed');
    expect(completed.map((e) => e.task.id).sort()).toEqual(['1', '2', '3', '4', '5']);
    // Three teammates, three sessions, all idle — not ended — and the store says so.
    expect(h.store.children(lead.id)).toHaveLength(3);
    expect(h.store.teamMembers.list(lead.id).map((m) => [m.name, m.state])).toEqual([
      ['alpha', 'idle'],
      ['beta', 'idle'],
      ['gamma', 'idle'],
    ]);
    // The lead was told each time a teammate went idle, with its last line, through its inbox.
    const leadRead = requestsOf(h.server, 'split the work').map(readSoFar).pop()!;
    expect(leadRead).toMatch(/Teammate "alpha" is idle\. Its last line: alpha: nothing to do right now/);
    // sessions show --json's team: the teammates with their states, and the tasks.
    const snapshot = (await import('../../src/core/team/index.js')).teamSnapshot(h.store, lead.id);
    expect(snapshot.teammates.map((t) => [t.name, t.state])).toEqual([
      ['alpha', 'idle'],
      ['beta', 'idle'],
      ['gamma', 'idle'],
    ]);
  });

  it('send_message wakes an idle teammate; a task naming a live teammate messages it instead of starting a second one', async () => {
    h = await startHarness();
    const lead = (req: RecordedRequest): ScriptedReply => {
      if (results(req).length > 0) return text('ok');
      const last = lastUserText(req);
      if (last.includes('start scout')) return reply(teammate('scout', 'you are scout'));
      if (last.includes('message scout')) return reply(sendMessage({ to: 'scout', text: 'look at the logs' }));
      if (last.includes('task scout again')) return reply(teammate('scout', 'check the tests too'));
      return text('noted');
    };
    const lastLead = (req: RecordedRequest) => [...readSoFar(req).matchAll(/from="lead">\n([^\n]*)/g)].pop()?.[1];
    const scoutSaid = (req: RecordedRequest) => text(`scout read: ${lastLead(req) ?? lastUserText(req)}`);
    scriptConversations(h.server, { 'start scout': repeat(20, lead), 'you are scout': repeat(5, scoutSaid) });
    const session = h.engine.createSession();
    await h.engine.prompt(session.id, 'start scout');
    await h.engine.settled(session.id);
    const scout = h.store.teamMembers.byName(session.id, 'scout')!;
    expect(scout.state).toBe('idle');
    expect(requestsOf(h.server, 'you are scout')).toHaveLength(1);

    // The lead writes to its idle teammate: it wakes, reads the message, and goes idle again.
    await h.engine.prompt(session.id, 'message scout');
    await h.engine.settled(session.id);
    expect(requestsOf(h.server, 'you are scout')).toHaveLength(2);
    expect(h.store.teamMembers.get(scout.session_id)).toMatchObject({ state: 'idle', last_line: 'scout read: look at the logs' });
    expect(teamEvents(h.events, 'team.message').map((e) => [e.session_id, e.from, e.to, e.text])).toEqual([[session.id, 'lead', 'scout', 'look at the logs']]);

    // `task` naming scout again: the prompt goes to the same teammate as a message; no second session.
    await h.engine.prompt(session.id, 'task scout again');
    await h.engine.settled(session.id);
    expect(h.store.children(session.id).map((c) => c.id)).toEqual([scout.session_id]);
    const taskResult = requestsOf(h.server, 'start scout')
      .flatMap(results)
      .find((r) => r.text.includes('already exists'));
    expect(taskResult?.text).toMatch(/Teammate "scout" already exists \(idle\): the prompt was sent to it as a message, and it woke up to read it/);
    expect(h.store.teamMembers.get(scout.session_id)).toMatchObject({ state: 'idle', last_line: 'scout read: check the tests too' });
  });

  it('the user can message an idle teammate from its view: the message wakes it', async () => {
    h = await startHarness();
    scriptConversations(h.server, {
      'start helper': [reply(teammate('helper', 'you are helper')), ...repeat(10, text('noted'))],
      'you are helper': [text('helper: ready'), (req) => text(`helper heard: ${lastUserText(req)}`)],
    });
    const session = h.engine.createSession();
    await h.engine.prompt(session.id, 'start helper');
    await h.engine.settled(session.id);
    const helper = h.store.teamMembers.byName(session.id, 'helper')!;
    expect(helper.state).toBe('idle');
    const receipt = h.engine.sendToSession(helper.session_id, 'please rename the file');
    expect(receipt.outcome).toBe('continued');
    await h.engine.settled(session.id);
    expect(h.store.teamMembers.get(helper.session_id)).toMatchObject({ state: 'idle', last_line: expect.stringContaining('please rename the file') });
    expect(requestsOf(h.server, 'you are helper')).toHaveLength(2);
  });

  it('max_teammates bounds a team: one more is refused with a readable tool error, and nothing is started', async () => {
    h = await startHarness({ config: { team: { max_teammates: 2 } } });
    scriptConversations(h.server, {
      'three of them': [reply(teammate('one', 'you are one'), teammate('two', 'you are two'), teammate('three', 'you are three')), ...repeat(10, text('noted'))],
      'you are one': [text('one: ready')],
      'you are two': [text('two: ready')],
    });
    const session = h.engine.createSession();
    await h.engine.prompt(session.id, 'three of them');
    await h.engine.settled(session.id);
    const [started] = requestsOf(h.server, 'three of them').slice(1).map(results);
    expect(started![2]).toEqual({
      isError: true,
      text: expect.stringMatching(/^The team is full: 2 teammates \(one: (working|idle), two: (working|idle)\) and team\.max_teammates is 2\. "three" was not started/),
    });
    expect(h.store.children(session.id)).toHaveLength(2);
    expect(requestsOf(h.server, 'you are three')).toHaveLength(0);
  });

  it('a teammate cannot start teammates, and a bad name is refused', async () => {
    h = await startHarness({ config: { subagents: { max_depth: 2 } } });
    scriptConversations(h.server, {
      lead: [reply(teammate('worker', 'you are worker'), teammate('bad name!', 'x')), ...repeat(10, text('noted'))],
      'you are worker': [reply(teammate('sub', 'you are sub')), (req) => text(results(req)[0]?.text ?? '')],
    });
    const session = h.engine.createSession();
    await h.engine.prompt(session.id, 'lead');
    await h.engine.settled(session.id);
    const [started] = requestsOf(h.server, 'lead').slice(1).map(results);
    expect(started![1]).toEqual({ isError: true, text: expect.stringMatching(/^"bad name!" cannot name a teammate/) });
    expect(h.store.teamMembers.byName(session.id, 'worker')!.last_line).toMatch(/^You are teammate "worker": teammates cannot start teammates/);
    expect(h.store.teamMembers.list(session.id).map((m) => m.name)).toEqual(['worker']);
  });

  it('the lead compacted mid-team still knows its teammates: the summary names them, and task_list list shows them', async () => {
    h = await startHarness({ config: { provider: { anthropic: { models: { 'claude-test': { limit: { context: 100_000 } } } } }, model: 'anthropic/claude-test' } });
    const isSummary = (req: RecordedRequest) => JSON.stringify(req.body.system ?? '').includes('You summarise a coding session');
    const long = 'and more '.repeat(1_000);
    const lead = (req: RecordedRequest): ScriptedReply => {
      if (isSummary(req)) return text('The user asked for a team.');
      if (results(req).length > 0) return text(`ok ${long}`);
      const last = lastUserText(req);
      if (last.includes('start two')) return reply(teammate('north', 'you are north'), teammate('south', 'you are south'));
      if (last.includes('who is on the team')) return reply(taskList({ action: 'list' }));
      return text(`noted ${long}`);
    };
    h.server.setHandler((req) => (firstUserText(req).startsWith('you are ') ? text(`${firstUserText(req).slice(8)}: ready`) : lead(req)));
    const session = h.engine.createSession();
    await h.engine.prompt(session.id, 'start two');
    await h.engine.settled(session.id);
    for (const p of ['second question', 'third question']) await h.engine.prompt(session.id, p);

    const compacted = await h.engine.compact(session.id);
    if ('skipped' in compacted) throw new Error(`compaction skipped: ${compacted.skipped}`);
    const summary = h.engine.history(session.id)!.messages.find((m) => JSON.stringify(m).includes('<summary>'))!;
    expect(JSON.stringify(summary)).toMatch(/<team>\\nYou lead this team; its members, as they are now:\\n- north: idle\\n- south: idle/);

    await h.engine.prompt(session.id, 'who is on the team');
    // The lead's conversation now starts with the summary.
    const listed = h.server.requests.flatMap(results).find((r) => r.text.includes('Teammates:'));
    expect(listed?.text).toMatch(/Teammates: north \(idle\), south \(idle\)\./);
  });

  it('a TeammateIdle hook that exits 2 keeps the teammate working, with the hook\'s stderr as its next message', async () => {
    scriptsDir = mkdtempSync(join(tmpdir(), 'oci-teammate-hooks-'));
    const scripts = new HookScripts(scriptsDir);
    const gate = scripts.command(
      'not-yet',
      `const flag = ${JSON.stringify(join(scriptsDir, 'once'))}; if (!fs.existsSync(flag)) { fs.writeFileSync(flag, ''); process.stderr.write('Run the tests before you stop.'); process.exit(2); }`,
    );
    h = await startHarness({ config: { hooks: { TeammateIdle: [{ hooks: [{ type: 'command', command: gate }] }] } } });
    scriptConversations(h.server, {
      'start tester': [reply(teammate('tester', 'you are tester')), ...repeat(10, text('noted'))],
      'you are tester': [text('tester: done'), (req) => text(`tester was told: ${lastUserText(req)}`)],
    });
    const session = h.engine.createSession();
    await h.engine.prompt(session.id, 'start tester');
    await h.engine.settled(session.id);
    // Claude Code's input: the teammate's name and the team's.
    expect(scripts.calls('not-yet').map((c) => [c.hook_event_name, c.teammate_name, c.team_name])).toEqual([
      ['TeammateIdle', 'tester', session.id],
      ['TeammateIdle', 'tester', session.id],
    ]);
    const tester = h.store.teamMembers.byName(session.id, 'tester')!;
    expect(tester.state).toBe('idle');
    expect(tester.last_line).toBe('</hook-feedback>');
    expect(requestsOf(h.server, 'you are tester').map(lastUserText).pop()).toContain('Run the tests before you stop.');
  });

  it('an isolated teammate works in its own worktree across idle periods; shut down, it ends and its work is merged back', async () => {
    h = await startHarness({ engine: { autoApprove: true } });
    rmSync(join(h.projectDir, '.git'), { recursive: true, force: true });
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: h!.projectDir, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(h.projectDir, 'README.md'), 'hello\n');
    git('add', '-A');
    git('commit', '-qm', 'init');
    const lead = (req: RecordedRequest): ScriptedReply => {
      if (results(req).length > 0) return text('ok');
      const last = lastUserText(req);
      if (last.includes('start builder')) return reply(teammate('builder', 'you are builder', { isolation: 'worktree' }));
      if (last.includes('stop builder')) return reply(sendMessage({ to: 'builder', text: '', shutdown: true }));
      return text('noted');
    };
    scriptConversations(h.server, {
      'start builder': repeat(20, lead),
      'you are builder': [reply(toolUse('write', { file_path: 'built.txt', content: 'built\n' })), text('builder: wrote built.txt')],
    });
    const session = h.engine.createSession();
    await h.engine.prompt(session.id, 'start builder');
    await h.engine.settled(session.id);
    const builder = h.store.teamMembers.byName(session.id, 'builder')!;
    expect(builder.state).toBe('idle');
    // Idle: its work is still in its worktree, not in the project.
    expect(existsSync(join(h.projectDir, 'built.txt'))).toBe(false);

    await h.engine.prompt(session.id, 'stop builder');
    await h.engine.settled(session.id);
    expect(h.store.teamMembers.get(builder.session_id)!.state).toBe('ended');
    expect(readFileSync(join(h.projectDir, 'built.txt'), 'utf8')).toBe('built\n');
    const told = requestsOf(h.server, 'start builder').map(readSoFar).pop()!;
    expect(told).toMatch(/Teammate "builder" has ended, as asked\./);
    expect(told).toMatch(/merge="merged"/);
  });
});

