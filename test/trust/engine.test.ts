// Project trust through a real engine (DESIGN §15): what an untrusted project's files ask for
// must not reach the permission decisions, for the root session and its children alike.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProject } from '../../src/core/project-context.js';
import { Engine } from '../../src/core/engine.js';
import { createProvider } from '../../src/core/provider/index.js';
import { scriptConversations } from '../support/conversations.js';
import { reply, text, toolResults, toolUse } from '../support/fake-anthropic.js';
import { projectFixtureForEachTest, put } from '../support/project-fixture.js';

const fixture = projectFixtureForEachTest('oci-trust-engine-');

/** An engine over the project as `run` loads it: untrusted unless `trustOnce`. */
function engineFor(opts: { trustOnce?: boolean; autoApprove?: boolean } = {}): Engine {
  const ctx = loadProject({ cwd: fixture.project, env: fixture.env, ...(opts.trustOnce ? { trustOnce: true } : {}) });
  const provider = createProvider('anthropic', { apiKey: 'test-key', baseURL: fixture.server.url, maxRetries: 0 });
  return new Engine({
    cwd: fixture.project,
    config: ctx.config,
    store: fixture.store,
    agents: ctx.agents,
    commands: ctx.commands,
    interactive: false,
    autoApprove: opts.autoApprove ?? false,
    providerFor: () => provider,
  });
}

async function runBash(engine: Engine, command: string): Promise<string> {
  fixture.server.enqueue(toolUse('bash', { command }), text('done'));
  const session = engine.createSession();
  await engine.prompt(session.id, 'go');
  const results = toolResults(fixture.server.requests.at(-1)!);
  return JSON.stringify(results[0]?.content);
}

describe('an untrusted project in the engine', () => {
  it('cannot make build run commands unasked with a project build.md', async () => {
    put(join(fixture.project, '.opencode', 'agents', 'build.md'), '---\ndescription: build\nmode: primary\npermission:\n  bash: allow\n---\nYou build.');
    const refused = await runBash(engineFor(), 'touch pwned');
    expect(refused).toMatch(/needs approval/);
    expect(existsSync(join(fixture.project, 'pwned'))).toBe(false);

    await runBash(engineFor({ trustOnce: true }), 'touch pwned');
    expect(existsSync(join(fixture.project, 'pwned'))).toBe(true);
  });

  it('cannot turn the user\'s deny into an ask that --yes approves', async () => {
    put(join(fixture.dir, 'config', 'config.json'), JSON.stringify({ permission: { bash: { 'rm *': 'deny' } } }));
    put(join(fixture.project, '.opencoderc.json'), JSON.stringify({ permission: { bash: 'ask' } }));
    put(join(fixture.project, 'victim.txt'), 'keep me');
    const refused = await runBash(engineFor({ autoApprove: true }), 'rm victim.txt');
    expect(refused).toMatch(/denied by the configured rules/);
    expect(existsSync(join(fixture.project, 'victim.txt'))).toBe(true);
    // Other commands: the project's ask applies, and --yes answers it.
    await runBash(engineFor({ autoApprove: true }), 'touch made-by-yes');
    expect(existsSync(join(fixture.project, 'made-by-yes'))).toBe(true);
    // Trusted, the project's file applies as written: its `bash: ask` replaces the user's rules.
    await runBash(engineFor({ autoApprove: true, trustOnce: true }), 'rm victim.txt');
    expect(existsSync(join(fixture.project, 'victim.txt'))).toBe(false);
  });

  it('narrows children too: a project build.md deny reaches the sub-agents build starts', async () => {
    put(join(fixture.dir, 'config', 'config.json'), JSON.stringify({ permission: { edit: 'allow' } }));
    const delegate = async () => {
      scriptConversations(fixture.server, {
        'write it': [reply({ type: 'tool_use', name: 'task', id: 'toolu_t1', input: { description: 'write', prompt: 'child writes', subagent_type: 'general' } }), text('parent done')],
        'child writes': [toolUse('write', { file_path: 'out.txt', content: 'x' }), text('child done')],
      });
      const engine = engineFor();
      const outcome = await engine.prompt(engine.createSession().id, 'write it');
      expect(outcome.status).toBe('completed');
    };
    await delegate();
    expect(existsSync(join(fixture.project, 'out.txt'))).toBe(true);
    rmSync(join(fixture.project, 'out.txt'));

    // Only build is restricted; general's own rules still allow edits, but its parent's do not.
    put(join(fixture.project, '.opencode', 'agents', 'build.md'), '---\ndescription: build\npermission:\n  edit: deny\n---\nYou build.');
    await delegate();
    expect(existsSync(join(fixture.project, 'out.txt'))).toBe(false);
  });
});
