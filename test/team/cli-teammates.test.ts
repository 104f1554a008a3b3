// Teammates through the built binary (DESIGN §24): the team lives in the store, so a program
// killed with SIGKILL mid-team and continued with `-c` finds it again — the idle teammate idle,
// the one that was working `failed`, and the task it held back to pending for someone else —
// and `sessions show <root> --json` gives the teammates with their states.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/core/store/index.js';
import { firstUserText, toolUse } from '../support/conversations.js';
import { lastUserText, reply, text, toolResults, type RecordedRequest, type ScriptedReply } from '../support/fake-anthropic.js';
import { runCli, startCli, startCliProject, type CliProject } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

const teammate = (name: string, prompt: string) => toolUse('task', { description: `${name} teammate`, prompt, subagent_type: 'general', name });
const taskList = (input: Record<string, unknown>) => toolUse('task_list', input);

/** A tool result's text, whether the SDK sent a string or text blocks. */
const contentText = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((b: { text?: string }) => b.text ?? '').join('') : '';

describe('a team survives a crash', () => {
  let ctx: CliProject;
  beforeEach(async () => {
    ctx = await startCliProject();
  });
  afterEach(() => ctx.close());

  it('kill -9 mid-team, then -c: the idle teammate is idle, the working one failed, and its task is pending again', async () => {
    /** Never answered: the "busy" teammate is mid-request when the program is killed. */
    const never = new Promise<ScriptedReply>(() => {});
    let busyRequests = 0;
    ctx.server.setHandler((req: RecordedRequest) => {
      const key = firstUserText(req);
      if (key === 'you are busy') return ++busyRequests === 1 ? reply(taskList({ action: 'claim', id: '1' })) : never;
      if (key === 'you are steady') return text('steady: ready');
      // The lead: start a team and a task, then (after -c) look at the list. The kill may come
      // before the lead's own reply to its tool results was stored: the new prompt then joins them.
      const last = lastUserText(req);
      if (last.includes('how is the team')) return reply(taskList({ action: 'list' }));
      if (toolResults(req).length > 0) return text('ok');
      if (last.includes('start the team')) return reply(taskList({ action: 'create', title: 'Long job' }), teammate('busy', 'you are busy'), teammate('steady', 'you are steady'));
      return text('noted');
    });
    const first = startCli(['run', 'start the team'], { cwd: ctx.project, env: ctx.env });
    // Wait for the busy teammate to hold its task and be mid-request, and the steady one to be idle.
    await waitFor(() => busyRequests >= 2, 'the busy teammate to send its second request', { timeoutMs: 20_000 });
    const dataDir = ctx.env.OPENCODE_INK_DATA_DIR!;
    await waitFor(
      () => {
        const store = SessionStore.open(dataDir);
        try {
          const root = store.mostRecentRoot(ctx.project);
          return root && store.teamMembers.list(root.id).find((m) => m.name === 'steady')?.state === 'idle';
        } finally {
          store.close();
        }
      },
      'the steady teammate to be idle',
      { timeoutMs: 20_000 },
    );
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');

    const again = await runCli(['run', '-c', 'how is the team'], { cwd: ctx.project, env: ctx.env });
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    const listed = ctx.server.requests
      .filter((r) => firstUserText(r) === 'start the team')
      .map((r) => toolResults(r).map((x) => contentText(x.content)).join('\n'))
      .find((t) => t.includes('Teammates:'));
    if (!listed) throw new Error(`no list among the lead's requests:\n${ctx.server.requests.map((r) => `${firstUserText(r).slice(0, 20)} | ${JSON.stringify(r.body.messages.at(-1)).slice(0, 300)}`).join('\n')}\n${again.stdout}\n${again.stderr}`);
    expect(listed).toMatch(/#1 \[pending\] Long job/);
    expect(listed).toMatch(/Teammates: busy \(failed\), steady \(idle\)\./);

    const root = (() => {
      const store = SessionStore.open(dataDir);
      try {
        return store.mostRecentRoot(ctx.project)!.id;
      } finally {
        store.close();
      }
    })();
    const shown = await runCli(['sessions', 'show', root, '--json'], { cwd: ctx.project, env: ctx.env });
    const team = (JSON.parse(shown.stdout) as { team: { teammates: Array<{ name: string; state: string; session_id: string }>; tasks: Array<{ status: string; owner: string | null }> } }).team;
    expect(team.teammates.map((t) => [t.name, t.state])).toEqual([
      ['busy', 'failed'],
      ['steady', 'idle'],
    ]);
    expect(team.tasks).toMatchObject([{ status: 'pending', owner: null }]);
  });
});
