// `--debug` is accepted after a command's name as well as before it (the README lists it as an
// option of `run`), and a message that starts many sub-agents prints none of Node's
// listener-leak warnings on stderr.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { scriptConversations } from '../support/conversations.js';
import { reply, text } from '../support/fake-anthropic.js';

let ctx: CliProject;
beforeEach(async () => {
  ctx = await startCliProject();
});
afterEach(() => ctx.close());

describe('--debug', () => {
  it('is accepted after `run` and prints the stack trace of an error', async () => {
    const result = await runCli(['run', '--debug', '-m', 'nowhere/model', 'hello'], { cwd: ctx.project, env: ctx.env });
    expect(result.stderr).not.toMatch(/unknown option/);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Error: .*nowhere/);
    expect(result.stderr).toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
  });

  it('prints no stack trace without it', async () => {
    const result = await runCli(['run', '-m', 'nowhere/model', 'hello'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Error: .*nowhere/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('after `--` is a word of the prompt, not the option', async () => {
    ctx.server.enqueue(text('answered'));
    const result = await runCli(['run', '--', 'explain', '--debug'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(0);
    expect(JSON.stringify(ctx.server.requests[0]!.body.messages)).toContain('explain --debug');
  });
});

describe('many sub-agents at once', () => {
  it('start 40 tasks of one message without a MaxListenersExceededWarning', async () => {
    mkdirSync(ctx.env.OPENCODE_INK_CONFIG_DIR!, { recursive: true });
    writeFileSync(join(ctx.env.OPENCODE_INK_CONFIG_DIR!, 'config.json'), JSON.stringify({ subagents: { max_per_batch: 40, max_concurrency: 40 } }));
    const jobs = Array.from({ length: 40 }, (_, i) => `job ${i}`);
    scriptConversations(ctx.server, {
      'fan out': [
        reply(...jobs.map((job, i) => ({ type: 'tool_use' as const, name: 'task', input: { description: job, prompt: job, subagent_type: 'general' }, id: `toolu_job_${i}` }))),
        text('fan-in'),
      ],
      ...Object.fromEntries(jobs.map((job) => [job, [text(`${job} ok`)]])),
    });
    const result = await runCli(['run', 'fan out'], { cwd: ctx.project, env: ctx.env });
    expect(result.stdout.trim()).toBe('fan-in');
    expect(ctx.server.requests).toHaveLength(42);
    expect(result.stderr).not.toMatch(/MaxListenersExceeded|memory leak/);
    expect(result.code).toBe(0);
  }, 60_000);
});
