// The sandbox through the real engine, tools and SDK against the fake server: commands that
// would ask run unasked inside it, rules from the config still hold, leaving it always needs
// a person, children inherit it and may only tighten it, and without bubblewrap every command
// asks as before.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { reply, text, toolResults, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../support/harness.js';
import type { EventOf } from '../../src/core/events.js';
import { bwrapMissing, makeVisibleTempDir } from './support.js';
import { removeDir } from '../tools/context.js';

let h: Harness | undefined;
const dirs: string[] = [];
afterEach(async () => {
  h?.engine.cancelAll();
  await h?.close();
  h = undefined;
  for (const d of dirs.splice(0)) removeDir(d);
});

let seq = 0;
const bash = (command: string, extra: Record<string, unknown> = {}) => ({
  type: 'tool_use' as const,
  name: 'bash',
  input: { command, ...extra },
  id: `toolu_sb_${++seq}`,
});
const spawn = (prompt: string, subagent_type: string) => ({
  type: 'tool_use' as const,
  name: 'task',
  input: { description: 'sandboxed child', prompt, subagent_type },
  id: `toolu_sb_${++seq}`,
});
const results = (req: RecordedRequest) => toolResults(req).map((r) => ({ text: String(r.content), isError: r.is_error === true }));
const asked = (harness: Harness) => harness.events.filter((e): e is EventOf<'permission.asked'> => e.type === 'permission.asked');

describe.skipIf(bwrapMissing !== undefined)('a sandbox that auto-allows, in a run nobody answers', () => {
  it('runs commands that would ask without asking, inside the sandbox', async () => {
    h = await startHarness({ config: { sandbox: { mode: 'workspace-write' } } });
    const outside = makeVisibleTempDir('oci-engine-outside-');
    dirs.push(outside);
    scriptConversations(h.server, { work: [reply(bash('echo built > out.txt && cat out.txt'), bash(`touch ${outside}/x`)), text('done')] });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'work')).status).toBe('completed');
    const [inside, elsewhere] = results(requestsOf(h.server, 'work')[1]!);
    expect(inside).toEqual({ text: 'built', isError: false });
    expect(elsewhere!.text).toMatch(/blocked by the sandbox/);
    expect(existsSync(join(outside, 'x'))).toBe(false);
    expect(asked(h)).toHaveLength(0);
  });

  it('still applies deny and ask rules from the config', async () => {
    h = await startHarness({ config: { sandbox: { mode: 'workspace-write' }, permission: { bash: { 'rm *': 'deny', 'git push*': 'ask' } } } });
    writeFileSync(join(h.projectDir, 'victim.txt'), 'keep me');
    scriptConversations(h.server, { rules: [reply(bash('rm victim.txt'), bash('git push origin main'), bash('echo fine')), text('done')] });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'rules')).status).toBe('completed');
    const [denied, push, fine] = results(requestsOf(h.server, 'rules')[1]!);
    expect(denied!.text).toMatch(/denied by the configured rules: bash `rm victim.txt`/);
    expect(push!.text).toMatch(/nobody can approve/);
    expect(fine).toEqual({ text: 'fine', isError: false });
    expect(existsSync(join(h.projectDir, 'victim.txt'))).toBe(true);
  });

  it('refuses dangerously_disable_sandbox, even with --yes', async () => {
    for (const autoApprove of [false, true]) {
      h = await startHarness({ config: { sandbox: { mode: 'workspace-write' }, permission: { bash: 'allow' } }, engine: { autoApprove } });
      scriptConversations(h.server, { escape: [reply(bash('touch escaped.txt', { dangerously_disable_sandbox: true })), text('done')] });
      const root = h.engine.createSession();
      expect((await h.engine.prompt(root.id, 'escape')).status).toBe('completed');
      const [refused] = results(requestsOf(h.server, 'escape')[1]!);
      expect(refused!.isError).toBe(true);
      expect(refused!.text).toMatch(/would run outside the sandbox, which only a person can approve.*--yes does not approve it/);
      expect(asked(h)[0]).toMatchObject({ outside_sandbox: expect.stringMatching(/dangerously_disable_sandbox/) });
      expect(existsSync(join(h.projectDir, 'escaped.txt'))).toBe(false);
      h.engine.cancelAll();
      await h.close();
      h = undefined;
    }
  });
});

describe.skipIf(bwrapMissing !== undefined)('leaving the sandbox with someone to answer', () => {
  it('asks even where a rule allows, says it runs outside, and runs on the host once approved', async () => {
    h = await startHarness({ config: { sandbox: { mode: 'read-only' }, permission: { bash: 'allow' } }, engine: { interactive: true } });
    scriptConversations(h.server, {
      escape: [reply(bash('touch inside.txt')), reply(bash('touch outside.txt', { dangerously_disable_sandbox: true })), text('done')],
    });
    const root = h.engine.createSession();
    const running = h.engine.prompt(root.id, 'escape');
    const ask = (await waitForEvent(h.engine, (e) => e.type === 'permission.asked')) as EventOf<'permission.asked'>;
    expect(ask.subject).toBe('touch outside.txt');
    expect(ask.outside_sandbox).toMatch(/outside the sandbox/);
    h.engine.replyPermission(ask.request_id, 'once');
    expect((await running).status).toBe('completed');
    const [inside] = results(requestsOf(h.server, 'escape')[1]!);
    expect(inside!.text).toMatch(/blocked by the sandbox/);
    expect(existsSync(join(h.projectDir, 'inside.txt'))).toBe(false);
    expect(existsSync(join(h.projectDir, 'outside.txt'))).toBe(true);
    expect(asked(h)).toHaveLength(1);
  });
});

describe.skipIf(bwrapMissing !== undefined)('sub-agents', () => {
  const agents = {
    reader: { mode: 'subagent', description: 'Reads only.', prompt: 'Read.', sandbox: 'read-only' },
    loose: { mode: 'subagent', description: 'Wants more.', prompt: 'Write.', sandbox: 'workspace-write' },
  };

  it('a child whose agent asks for read-only cannot write, while its parent can', async () => {
    h = await startHarness({ config: { sandbox: { mode: 'workspace-write' }, agent: agents } });
    scriptConversations(h.server, {
      parent: [reply(bash('touch parent.txt')), reply(spawn('child writes', 'reader')), text('parent done')],
      'child writes': [reply(bash('touch child.txt')), text('child done')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'parent')).status).toBe('completed');
    const [child] = results(requestsOf(h.server, 'child writes')[1]!);
    expect(child!.text).toMatch(/blocked by the sandbox: .*read-only sandbox/);
    expect(existsSync(join(h.projectDir, 'parent.txt'))).toBe(true);
    expect(existsSync(join(h.projectDir, 'child.txt'))).toBe(false);
    expect(asked(h)).toHaveLength(0);
  });

  it('a child cannot loosen the sandbox it inherits', async () => {
    h = await startHarness({ config: { sandbox: { mode: 'read-only' }, agent: agents, permission: { task: 'allow' } } });
    scriptConversations(h.server, {
      parent: [reply(spawn('child writes', 'loose')), text('parent done')],
      'child writes': [reply(bash('touch child.txt')), text('child done')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'parent')).status).toBe('completed');
    const [child] = results(requestsOf(h.server, 'child writes')[1]!);
    expect(child!.text).toMatch(/blocked by the sandbox: .*read-only sandbox/);
    expect(existsSync(join(h.projectDir, 'child.txt'))).toBe(false);
  });
});

describe('without a working sandbox', () => {
  it('asks for every command as without a sandbox, and the ask says it runs outside', async () => {
    h = await startHarness({
      config: { sandbox: { mode: 'workspace-write' } },
      env: { OPENCODE_INK_BWRAP: '/nonexistent/bwrap' },
      engine: { interactive: true },
    });
    scriptConversations(h.server, { work: [reply(bash('touch made.txt')), text('done')] });
    const root = h.engine.createSession();
    const running = h.engine.prompt(root.id, 'work');
    const ask = (await waitForEvent(h.engine, (e) => e.type === 'permission.asked')) as EventOf<'permission.asked'>;
    expect(ask.outside_sandbox).toMatch(/workspace-write sandbox is unavailable \(\/nonexistent\/bwrap was not found/);
    h.engine.replyPermission(ask.request_id, 'reject');
    expect((await running).status).toBe('completed');
    expect(existsSync(join(h.projectDir, 'made.txt'))).toBe(false);
  });
});
