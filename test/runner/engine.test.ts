// Sub-agents with container runners through the engine (DESIGN §25): a child's `bash` runs in its
// own container on the Podman host this test starts, sees the project's files at the same path,
// and what it writes comes back; the container is gone when the child ends; the `task` result
// names host and container; with no usable host the child fails naming it, and nothing runs here.
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import type { CoreEvent } from '../../src/core/events.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scriptConversations, requestsOf } from '../support/conversations.js';
import { reply, text, toolResults, toolUse } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startPodman, type PodmanService } from '../support/podman.js';

let podman: PodmanService | undefined;
let skip: string | undefined;
let h: Harness | undefined;

beforeAll(async () => {
  const started = await startPodman();
  if (typeof started === 'string') {
    skip = started;
    console.log(`Skipping the container runner engine tests: ${started}`);
  } else podman = started;
}, 120_000);

afterEach(async () => {
  await h?.close();
  h = undefined;
});

afterAll(async () => {
  await podman?.stop();
});

const resultText = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content));

describe('sub-agents in containers', () => {
  it("runs a child's commands in its own container and brings its changes back", async (ctx) => {
    if (skip) return ctx.skip();
    h = await startHarness({
      config: { permission: { bash: 'allow' }, runner: { kind: 'docker', hosts: [podman!.url], image: podman!.image } },
      files: { 'seed.txt': 'seeded here\n' },
    });
    const project = h.projectDir;
    scriptConversations(h.server, {
      'build it': [toolUse('task', { description: 'Build', prompt: 'child work', subagent_type: 'general' }), text('all done')],
      'child work': [
        toolUse('bash', { command: 'cat seed.txt; pwd; echo from-container > made.txt; test -e /run/.containerenv && echo in-a-container' }),
        text('child done'),
      ],
    });
    const root = h.engine.createSession();
    // The root's own commands stay on this machine (`for: "subagents"`).
    const outcome = await h.engine.prompt(root.id, 'build it');
    expect(outcome).toMatchObject({ status: 'completed', text: 'all done' });
    const bashResult = resultText(toolResults(requestsOf(h.server, 'child work')[1]!)[0]!.content);
    expect(bashResult).toContain(`seeded here\n${project}\nin-a-container`);
    expect(readFileSync(join(project, 'made.txt'), 'utf8')).toBe('from-container\n');
    const completed = h.events.find((e): e is Extract<CoreEvent, { type: 'tool.completed' }> => e.type === 'tool.completed' && e.session_id === root.id);
    const runner = completed?.metadata?.runner as { host: string; container: string } | undefined;
    expect(runner?.host).toBe(podman!.url);
    // The child's block learns where it runs while it runs, from the task's progress.
    const progress = h.events.filter((e): e is Extract<CoreEvent, { type: 'tool.progress' }> => e.type === 'tool.progress' && e.session_id === root.id && e.tool === 'task');
    expect(progress.find((e) => e.metadata.status === 'running')?.metadata.runner).toEqual(runner);
    const docker = new Docker({ socketPath: podman!.url.slice('unix://'.length) });
    const left = await docker.listContainers({ all: true, filters: { name: [runner!.container] } });
    expect(left).toHaveLength(0);
  });

  it('takes a place on a host only once a child has its slot, so queued children do not fill it', async (ctx) => {
    if (skip) return ctx.skip();
    h = await startHarness({
      config: {
        permission: { bash: 'allow' },
        subagents: { max_concurrency: 1 },
        runner: { kind: 'docker', hosts: [podman!.url], image: podman!.image, max_per_host: 1 },
      },
    });
    scriptConversations(h.server, {
      'two of them': [
        reply(
          { type: 'tool_use', name: 'task', input: { description: 'One', prompt: 'child one', subagent_type: 'general' }, id: 'toolu_one' },
          { type: 'tool_use', name: 'task', input: { description: 'Two', prompt: 'child two', subagent_type: 'general' }, id: 'toolu_two' },
        ),
        text('both done'),
      ],
      'child one': [toolUse('bash', { command: 'echo one > one.txt' }), text('one done')],
      'child two': [toolUse('bash', { command: 'echo two > two.txt' }), text('two done')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'two of them');
    const results = toolResults(requestsOf(h.server, 'two of them')[1]!).map((r) => resultText(r.content));
    expect(results.every((r) => r.includes('state="completed"'))).toBe(true);
    expect(readFileSync(join(h.projectDir, 'one.txt'), 'utf8')).toBe('one\n');
    expect(readFileSync(join(h.projectDir, 'two.txt'), 'utf8')).toBe('two\n');
  });

  it('fails the child naming each host when none can take it, and never runs its command here', async (ctx) => {
    if (skip) return ctx.skip();
    const missing = `unix://${tmpdir()}/opencode-ink-no-such-${process.pid}.sock`;
    h = await startHarness({ config: { permission: { bash: 'allow' }, runner: { kind: 'docker', hosts: [missing], image: podman!.image } } });
    const marker = join(h.projectDir, 'ran-here.txt');
    scriptConversations(h.server, {
      'build it': [toolUse('task', { description: 'Build', prompt: 'child work', subagent_type: 'general' }), text('all done')],
      'child work': [toolUse('bash', { command: `echo ran > ${marker}` }), text('child done')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'build it');
    const taskResult = resultText(toolResults(requestsOf(h.server, 'build it')[1]!)[0]!.content);
    expect(taskResult).toContain('state="failed"');
    expect(taskResult).toContain(`No container host could take this sub-agent: ${missing}: no socket`);
    expect(requestsOf(h.server, 'child work')).toHaveLength(0);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('the main session in a container (runner.for "all")', () => {
  it('runs the main session’s commands in one container for the project at its own path, synced both ways, removed at exit', async (ctx) => {
    if (skip) return ctx.skip();
    h = await startHarness({
      config: { permission: { bash: 'allow', edit: 'allow' }, runner: { kind: 'docker', for: 'all', hosts: [podman!.url], image: podman!.image } },
      files: { 'seed.txt': 'seeded here\n' },
    });
    const project = h.projectDir;
    scriptConversations(h.server, {
      'build it': [
        toolUse('bash', { command: 'cat seed.txt; pwd; echo from-container > made.txt; test -e /run/.containerenv && echo in-a-container; echo $$ > /tmp/first-shell' }),
        toolUse('write', { file_path: join(project, 'edited.txt'), content: 'edited here\n' }),
        toolUse('bash', { command: 'cat edited.txt; test -e /tmp/first-shell && echo same-container' }),
        text('all done'),
      ],
    });
    const root = h.engine.createSession();
    const outcome = await h.engine.prompt(root.id, 'build it');
    expect(outcome).toMatchObject({ status: 'completed', text: 'all done' });
    const results = requestsOf(h.server, 'build it').slice(1).map((request) => resultText(toolResults(request)[0]!.content));
    expect(results[0]).toContain(`seeded here\n${project}\nin-a-container`);
    expect(results[2]).toContain('edited here\nsame-container');
    expect(readFileSync(join(project, 'made.txt'), 'utf8')).toBe('from-container\n');
    const completed = h.events.filter((e): e is Extract<CoreEvent, { type: 'tool.completed' }> => e.type === 'tool.completed' && e.session_id === root.id);
    const runner = completed[0]?.metadata?.runner as { host: string; container: string } | undefined;
    expect(runner?.host).toBe(podman!.url);
    expect(completed[2]?.metadata?.runner).toEqual(runner);
    const docker = new Docker({ socketPath: podman!.url.slice('unix://'.length) });
    expect(await docker.listContainers({ filters: { name: [runner!.container] } })).toHaveLength(1);
    // The program's exit.
    await h.engine.close();
    expect(await docker.listContainers({ all: true, filters: { name: [runner!.container] } })).toHaveLength(0);
  });

  it('fails the command naming each host when none can take the main session, and never runs it here', async (ctx) => {
    if (skip) return ctx.skip();
    const missing = `unix://${tmpdir()}/opencode-ink-no-such-${process.pid}.sock`;
    h = await startHarness({ config: { permission: { bash: 'allow' }, runner: { kind: 'docker', for: 'all', hosts: [missing], image: podman!.image } } });
    const marker = join(h.projectDir, 'ran-here.txt');
    scriptConversations(h.server, {
      'build it': [toolUse('bash', { command: `echo ran > ${marker}` }), text('gave up')],
    });
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'build it');
    const result = toolResults(requestsOf(h.server, 'build it')[1]!)[0]!;
    expect(result.is_error).toBe(true);
    expect(resultText(result.content)).toContain(`The command did not run: No container host could take the main session: ${missing}: no socket`);
    expect(existsSync(marker)).toBe(false);
  });
});

