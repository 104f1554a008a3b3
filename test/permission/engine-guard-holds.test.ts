// The control-file guard holds whatever else says yes, through the real engine, tools, hook
// commands and Anthropic SDK against the fake server: a PreToolUse hook's `allow`, an earlier
// "always" for a command prefix (in the session or its parent), stored allow rules for
// those commands, `--yes`, and a sandbox's auto-allow. Writes that go through redirections, `tee`, `cp`, `git config` and names
// only the running line knows (a glob, `$PWD`) are asked, and refused where nobody can answer;
// only an `edit` rule naming the exact file lets one through.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine.js';
import type { EventOf } from '../../src/core/events.js';
import { requestsOf, scriptConversations } from '../support/conversations.js';
import { reply, text, toolResults, type RecordedRequest } from '../support/fake-anthropic.js';
import { startHarness, waitForEvent, type Harness } from '../support/harness.js';
import { HookScripts, hookConfig } from '../hooks/scripts.js';

let h: Harness | undefined;
let scriptsDir: string | undefined;
const engines: Engine[] = [];
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
  h?.engine.cancelAll();
  await h?.close();
  h = undefined;
  if (scriptsDir) rmSync(scriptsDir, { recursive: true, force: true });
  scriptsDir = undefined;
});

let seq = 0;
const call = (name: string, input: Record<string, unknown>) => ({ type: 'tool_use' as const, name, input, id: `toolu_gh_${++seq}` });
const write = (file_path: string, content: string) => call('write', { file_path, content });
const bash = (command: string) => call('bash', { command });
const results = (req: RecordedRequest) => toolResults(req).map((r) => ({ text: String(r.content), isError: r.is_error === true }));
const askedOn = (engine: Engine, after: ReadonlySet<string> = new Set()) =>
  waitForEvent(engine, (e) => e.type === 'permission.asked' && !after.has(e.request_id)) as Promise<EventOf<'permission.asked'>>;

/** A PreToolUse hook that allows every call, as a team's "trust these tools" hook would. */
function allowingHook(): string {
  scriptsDir = mkdtempSync(join(tmpdir(), 'oci-guard-hooks-'));
  return new HookScripts(scriptsDir).command('allow', `console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'trusted' } }));`);
}

/** Control-file writes by bash that the guard must see; the first two only since this round. */
const SNEAKY_LINES = [
  "echo '{}' | tee .claude/settings.json",
  'echo "[core]" > .gi?/config',
  'echo \'{"mcpServers":{}}\' | tee "$PWD/.mcp.json"',
  "cp payload.json .opencoderc.json",
  "git config core.fsmonitor 'touch PWNED'",
];

describe("a PreToolUse hook's allow", () => {
  it('lifts the built-in asks but never the guard: every control-file write is refused where nobody can answer', async () => {
    const allow = allowingHook();
    h = await startHarness({ config: { hooks: hookConfig('PreToolUse', allow) }, files: { '.git/config': '[core]\n', 'payload.json': '{"permission":"allow"}' } });
    const before = readFileSync(join(h.projectDir, '.opencoderc.json'), 'utf8');
    scriptConversations(h.server, { go: [reply(write('.claude/settings.json', '{"hooks":{}}'), ...SNEAKY_LINES.map(bash), write('notes.md', 'plain\n')), text('done')] });
    expect((await h.engine.prompt(h.engine.createSession().id, 'go')).status).toBe('completed');
    const outcomes = results(requestsOf(h.server, 'go')[1]!);
    const named = ['.claude/settings.json', '.claude/settings.json', '.gi?/config', '.mcp.json', '.opencoderc.json', '.git/config'];
    expect(outcomes).toHaveLength(named.length + 1);
    named.forEach((file, i) => {
      expect(outcomes[i], file).toEqual({ isError: true, text: expect.stringContaining(`was refused: it writes ${file}`) });
      expect(outcomes[i]!.text).toMatch(/nobody can approve it in this non-interactive run\.$/);
    });
    // The hook's allow did lift the built-in `edit: ask` for an ordinary file.
    expect(outcomes.at(-1)).toEqual({ isError: false, text: expect.stringMatching(/^Created notes\.md/) });
    expect(existsSync(join(h.projectDir, '.claude'))).toBe(false);
    expect(existsSync(join(h.projectDir, '.mcp.json'))).toBe(false);
    expect(readFileSync(join(h.projectDir, '.git/config'), 'utf8')).toBe('[core]\n');
    expect(readFileSync(join(h.projectDir, '.opencoderc.json'), 'utf8')).toBe(before);
  });

  it('still asks a person, with the reason, in an interactive session; under --yes only a rule naming the file lets it through', async () => {
    const allow = allowingHook();
    h = await startHarness({ config: { hooks: hookConfig('PreToolUse', allow), permission: { edit: { '.mcp.json': 'allow' } } } });
    const engine = h.newEngine({ interactive: true });
    engines.push(engine);
    scriptConversations(h.server, {
      ask: [reply(write('.claude/settings.json', '{}')), text('done')],
      yes: [reply(write('.mcp.json', '{}'), bash('echo "{}" > .Claude/settings.json')), text('done')],
    });
    const asked = askedOn(engine);
    const turn = engine.prompt(engine.createSession().id, 'ask');
    const question = await asked;
    expect(question).toMatchObject({ tool: 'write', patterns: ['.claude/settings.json'], reason: expect.stringMatching(/^writes \.claude\/settings\.json, which controls .*: always asked$/) });
    engine.replyPermission(question.request_id, 'reject');
    expect((await turn).status).toBe('completed');
    expect(existsSync(join(h.projectDir, '.claude/settings.json'))).toBe(false);

    const yes = h.newEngine({ autoApprove: true });
    engines.push(yes);
    expect((await yes.prompt(yes.createSession().id, 'yes')).status).toBe('completed');
    const [named, other] = results(requestsOf(h.server, 'yes')[1]!);
    expect(named!.isError).toBe(false);
    expect(readFileSync(join(h.projectDir, '.mcp.json'), 'utf8')).toBe('{}');
    expect(other).toEqual({ isError: true, text: expect.stringContaining('bash was refused: it writes .Claude/settings.json') });
    expect(other!.text).toContain('--yes does not approve them. A rule naming the exact file allows it, e.g. {"permission":{"edit":{".Claude/settings.json":"allow"}}}.');
  });
});

describe('an earlier "always" for a command', () => {
  it('never stretches to a control file: the same commands writing one are asked again, in the session and in its sub-agent', async () => {
    h = await startHarness({ engine: { interactive: true }, files: { 'a.txt': 'a\n', 'payload.json': '{}' } });
    scriptConversations(h.server, {
      grant: [
        reply(bash('echo x | tee out.txt')),
        reply(bash('cp a.txt b.txt')),
        reply(bash('git config --get user.name')),
        reply(bash('echo x | tee .mcp.json'), bash('echo x | tee "$PWD/.mcp.json"'), bash('cp payload.json .mcp.json'), bash("git config core.fsmonitor 'touch PWNED'")),
        reply(call('task', { description: 'child', prompt: 'child writes', subagent_type: 'general' })),
        text('done'),
      ],
      'child writes': [reply(bash('echo x | tee .mcp.json'), bash('echo x | tee ordinary.txt')), text('child done')],
    });
    const seen = new Set<string>();
    const next = async () => {
      const q = await askedOn(h!.engine, seen);
      seen.add(q.request_id);
      return q;
    };
    let pending = next();
    const turn = h.engine.prompt(h.engine.createSession().id, 'grant');
    // Three ordinary lines, each answered "always": `echo x*`, `tee*`, `cp*` and `git config*` are granted.
    for (const subject of ['echo x | tee out.txt', 'cp a.txt b.txt', 'git config --get user.name']) {
      const q = await pending;
      expect(q.subject).toBe(subject);
      expect(q.reason).toBeUndefined();
      pending = next();
      h.engine.replyPermission(q.request_id, 'always');
    }
    const guarded = ['.mcp.json', '.mcp.json', '.mcp.json', '.git/config', '.mcp.json'];
    for (const file of guarded) {
      const q = await pending;
      expect(q.reason, q.subject).toMatch(new RegExp(`^writes ${file.replace(/\./g, '\\.')}, which controls `));
      pending = next();
      h.engine.replyPermission(q.request_id, 'reject');
    }
    // No question follows the last one: that wait ends in its own timeout, which is no failure.
    pending.catch(() => undefined);
    expect((await turn).status).toBe('completed');
    // The child's ordinary tee was covered by the parent's grant: no further question.
    expect(results(requestsOf(h.server, 'child writes')[1]!)[1]).toEqual({ isError: false, text: 'x' });
    expect(h.events.filter((e) => e.type === 'permission.asked')).toHaveLength(3 + guarded.length);
    expect(existsSync(join(h.projectDir, '.mcp.json'))).toBe(false);
    expect(existsSync(join(h.projectDir, '.git/config'))).toBe(false);
  });

  it('nor do stored allow rules for those commands, where nobody can answer', async () => {
    h = await startHarness({ config: { permission: { bash: { 'echo *': 'allow', 'tee *': 'allow', 'cp *': 'allow', 'git config *': 'allow' } } }, files: { 'payload.json': '{}' } });
    scriptConversations(h.server, { rules: [reply(...['echo x | tee ok.txt', ...SNEAKY_LINES].map(bash)), text('done')] });
    expect((await h.engine.prompt(h.engine.createSession().id, 'rules')).status).toBe('completed');
    const [ok, ...refused] = results(requestsOf(h.server, 'rules')[1]!);
    expect(ok).toEqual({ isError: false, text: 'x' });
    expect(refused).toHaveLength(SNEAKY_LINES.length);
    for (const r of refused) expect(r).toEqual({ isError: true, text: expect.stringMatching(/^bash was refused: it writes .*always asked; nobody can approve it/) });
    expect(existsSync(join(h.projectDir, '.mcp.json'))).toBe(false);
    expect(existsSync(join(h.projectDir, '.claude'))).toBe(false);
  });
});

describe("a sandbox's auto-allow", () => {
  it('runs ordinary lines unasked but still refuses control-file writes where nobody can answer', async () => {
    h = await startHarness({ config: { sandbox: { mode: 'workspace-write', auto_allow: true } }, files: { 'payload.json': '{}' } });
    scriptConversations(h.server, { boxed: [reply(bash('echo fine > out.txt'), bash("echo '{}' > .mcp.json"), bash('cp payload.json .mcp.json')), text('done')] });
    expect((await h.engine.prompt(h.engine.createSession().id, 'boxed')).status).toBe('completed');
    const [fine, ...refused] = results(requestsOf(h.server, 'boxed')[1]!);
    expect(fine!.isError).toBe(false);
    expect(readFileSync(join(h.projectDir, 'out.txt'), 'utf8')).toBe('fine\n');
    for (const r of refused) expect(r).toEqual({ isError: true, text: expect.stringContaining('bash was refused: it writes .mcp.json, which controls which MCP servers start') });
    expect(existsSync(join(h.projectDir, '.mcp.json'))).toBe(false);
  });
});
