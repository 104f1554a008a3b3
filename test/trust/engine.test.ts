// Project trust through a real engine (DESIGN §15): what an untrusted project's files ask for
// must not reach the permission decisions, for the root session and its children alike.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/core/project-context.js';
import { Engine } from '../../src/core/engine.js';
import { createProvider } from '../../src/core/provider/index.js';
import type { SessionStore } from '../../src/core/store/index.js';
import { scriptConversations } from '../support/conversations.js';
import { reply, text, toolResults, toolUse, type FakeServer } from '../support/fake-anthropic.js';
import { openProjectFixture, put, type ProjectFixture } from '../support/project-fixture.js';

let fixture: ProjectFixture;
let dir: string;
let project: string;
let env: NodeJS.ProcessEnv;
let server: FakeServer;
let store: SessionStore;

beforeEach(async () => {
  fixture = await openProjectFixture('oci-trust-engine-');
  ({ dir, project, env, server, store } = fixture);
});
afterEach(() => fixture.close());

/** An engine over the project as `run` loads it: untrusted unless `trustOnce`. */
function engineFor(opts: { trustOnce?: boolean; autoApprove?: boolean } = {}): Engine {
  const ctx = loadProject({ cwd: project, env, ...(opts.trustOnce ? { trustOnce: true } : {}) });
  const provider = createProvider('anthropic', { apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
  return new Engine({
    cwd: project,
    config: ctx.config,
    store,
    agents: ctx.agents,
    commands: ctx.commands,
    interactive: false,
    autoApprove: opts.autoApprove ?? false,
    providerFor: () => provider,
  });
}

async function runBash(engine: Engine, command: string): Promise<string> {
  server.enqueue(toolUse('bash', { command }), text('done'));
  const session = engine.createSession();
  await engine.prompt(session.id, 'go');
  const results = toolResults(server.requests.at(-1)!);
  return JSON.stringify(results[0]?.content);
}

describe('an untrusted project in the engine', () => {
  it('cannot make build run commands unasked with a project build.md', async () => {
    put(join(project, '.opencode', 'agents', 'build.md'), '---\ndescription: build\nmode: primary\npermission:\n  bash: allow\n---\nYou build.');
    const refused = await runBash(engineFor(), 'touch pwned');
    expect(refused).toMatch(/needs approval/);
    expect(existsSync(join(project, 'pwned'))).toBe(false);

    await runBash(engineFor({ trustOnce: true }), 'touch pwned');
    expect(existsSync(join(project, 'pwned'))).toBe(true);
  });

  it('cannot turn the user\'s deny into an ask that --yes approves', async () => {
    put(join(dir, 'config', 'config.json'), JSON.stringify({ permission: { bash: { 'rm *': 'deny' } } }));
    put(join(project, '.opencoderc.json'), JSON.stringify({ permission: { bash: 'ask' } }));
    put(join(project, 'victim.txt'), 'keep me');
    const refused = await runBash(engineFor({ autoApprove: true }), 'rm victim.txt');
    expect(refused).toMatch(/denied by the configured rules/);
    expect(existsSync(join(project, 'victim.txt'))).toBe(true);
    // Other commands: the project's ask applies, and --yes answers it.
    await runBash(engineFor({ autoApprove: true }), 'touch made-by-yes');
    expect(existsSync(join(project, 'made-by-yes'))).toBe(true);
    // Trusted, the project's file applies as written: its `bash: ask` replaces the user's rules.
    await runBash(engineFor({ autoApprove: true, trustOnce: true }), 'rm victim.txt');
    expect(existsSync(join(project, 'victim.txt'))).toBe(false);
  });

  it('narrows children too: a project build.md deny reaches the sub-agents build starts', async () => {
    put(join(dir, 'config', 'config.json'), JSON.stringify({ permission: { edit: 'allow' } }));
    const delegate = async () => {
      scriptConversations(server, {
        'write it': [reply({ type: 'tool_use', name: 'task', id: 'toolu_t1', input: { description: 'write', prompt: 'child writes', subagent_type: 'general' } }), text('parent done')],
        'child writes': [toolUse('write', { file_path: 'out.txt', content: 'x' }), text('child done')],
      });
      const engine = engineFor();
      const outcome = await engine.prompt(engine.createSession().id, 'write it');
      expect(outcome.status).toBe('completed');
    };
    await delegate();
    expect(existsSync(join(project, 'out.txt'))).toBe(true);
    rmSync(join(project, 'out.txt'));

    // Only build is restricted; general's own rules still allow edits, but its parent's do not.
    put(join(project, '.opencode', 'agents', 'build.md'), '---\ndescription: build\npermission:\n  edit: deny\n---\nYou build.');
    await delegate();
    expect(existsSync(join(project, 'out.txt'))).toBe(false);
  });
});
