// The published event protocol (docs/events.md): `run --format json` announces its version,
// every line it prints matches the schema, the JSON Schema shipped in the package is the
// one generated from the same definitions, and `session.created` carries what front ends
// need without parsing titles. Also: a sub-agent's session id is refused by `run -s` and
// by the TUI alike, naming the root to continue instead.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVENT_PROTOCOL_VERSION, EVENT_TYPES, EVENTS_SCHEMA_ID, type CoreEvent } from '../../src/core/events.js';
import { eventsJsonSchema } from '../../src/core/events/schema.js';
import { runCli, startCliProject, BIN, type CliProject } from '../support/cli.js';
import { firstUserText } from '../support/conversations.js';
import { validStreamLines } from '../support/events.js';
import { text, toolUse } from '../support/fake-anthropic.js';
import { REPO_ROOT } from '../support/repo-root.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';
import { waitFor } from '../tools/context.js';

let ctx: CliProject;

beforeEach(async () => {
  ctx = await startCliProject();
});

afterEach(async () => {
  await ctx.close();
});

/** A root that delegates one task to `explore`, which lists the folder and reports. */
function scriptDelegation(): void {
  ctx.server.setHandler((req) => {
    if (firstUserText(req) === 'delegate it') {
      return req.body.messages.length === 1
        ? toolUse('task', { description: 'Look around', prompt: 'child: look around', subagent_type: 'explore' })
        : text('Parent done.');
    }
    return req.body.messages.length === 1 ? toolUse('list', {}) : text('Child report.');
  });
}

async function delegate(): Promise<{ root: string; child: string; events: CoreEvent[]; protocol: unknown }> {
  scriptDelegation();
  const result = await runCli(['run', '--format', 'json', 'delegate it'], { cwd: ctx.project, env: ctx.env });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  // Every line, the protocol line included, matches the schema.
  const [protocol, ...rest] = validStreamLines(result.stdout);
  const events = rest.filter((e): e is CoreEvent => e.type !== 'protocol');
  expect(events).toHaveLength(rest.length);
  const root = events[0]!.session_id;
  const created = events.find((e) => e.type === 'session.created' && e.parent_id === root);
  return { root, child: created!.session_id, events, protocol };
}

describe('run --format json', () => {
  it('opens with the protocol line, then events that carry what the UI needs as typed fields', async () => {
    const { root, child, events, protocol } = await delegate();
    expect(protocol).toEqual({ type: 'protocol', version: EVENT_PROTOCOL_VERSION, schema: EVENTS_SCHEMA_ID });

    const rootCreated = events.find((e) => e.type === 'session.created' && e.session_id === root);
    expect(rootCreated).toMatchObject({ parent_id: null, tool_call_id: null, task_description: null, depth: 0, agent: 'build' });
    const taskCall = events.find((e) => e.type === 'tool.started' && e.tool === 'task');
    const childCreated = events.find((e) => e.type === 'session.created' && e.session_id === child);
    expect(childCreated).toMatchObject({
      parent_id: root,
      path: [root, child],
      agent: 'explore',
      task_description: 'Look around',
      depth: 1,
      tool_call_id: taskCall?.type === 'tool.started' ? taskCall.call_id : 'missing',
    });

    // The task call's progress and result name the child in typed metadata.
    const progress = events.filter((e) => e.type === 'tool.progress' && e.session_id === root);
    expect(progress.length).toBeGreaterThan(0);
    for (const p of progress) expect(p).toMatchObject({ tool: 'task', metadata: { session_id: child, agent: 'explore' } });
    expect(progress.at(-1)).toMatchObject({ metadata: { status: 'completed', tool_calls: 1, latest_tool: 'list' } });
    const done = events.find((e) => e.type === 'tool.completed' && e.session_id === root);
    expect(done).toMatchObject({ tool: 'task', is_error: false, metadata: { session_id: child, agent: 'explore', state: 'completed' } });
    // Other tools say which tool they are too.
    expect(events.find((e) => e.type === 'tool.completed' && e.session_id === child)).toMatchObject({ tool: 'list' });
  });

  it('prints nothing on stdout when the run is refused before it starts', async () => {
    const result = await runCli(['run', '--format', 'json', '-s', 'ses_nope', 'hi'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('No session with id "ses_nope"');
  });
});

describe('the JSON Schema in the package', () => {
  const file = join(REPO_ROOT, 'dist', 'events.schema.json');

  it('is exported as opencode-ink/events.schema.json and generated from the same definitions', () => {
    const resolved = createRequire(join(REPO_ROOT, 'package.json')).resolve(EVENTS_SCHEMA_ID);
    expect(resolved).toBe(file);
    const schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(schema).toEqual(JSON.parse(JSON.stringify(eventsJsonSchema())));
    expect(schema['x-protocol-version']).toBe(EVENT_PROTOCOL_VERSION);
    expect(schema['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it('lists every event type and the protocol line', () => {
    const schema = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    const types = new Set<string>();
    // Every `type` property's constant, wherever the union puts it.
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (typeof node !== 'object' || node === null) return;
      const props = (node as { properties?: { type?: { const?: unknown } } }).properties;
      if (typeof props?.type?.const === 'string') types.add(props.type.const);
      Object.values(node).forEach(walk);
    };
    walk(schema);
    expect([...types].sort()).toEqual(['protocol', ...EVENT_TYPES].sort());
  });
});

describe('continuing a sub-agent session', () => {
  const refusal = (child: string, root: string) =>
    `Session "${child}" is a sub-agent session (@explore) and cannot be continued on its own; continue its root session instead: -s ${root}`;

  it('run -s <child id> exits 2 naming the root, without calling the model', async () => {
    const { root, child } = await delegate();
    const requests = ctx.server.requests.length;
    const result = await runCli(['run', '-s', child, 'go on'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe(`Error: ${refusal(child, root)}`);
    expect(ctx.server.requests.length).toBe(requests);
    // The root itself continues.
    ctx.server.setHandler(() => text('Continued.'));
    const ok = await runCli(['run', '-s', root, 'go on'], { cwd: ctx.project, env: ctx.env });
    expect(ok).toMatchObject({ code: 0, stdout: 'Continued.\n' });
  });

  it.runIf(hasTmux || process.env.CI)('the TUI refuses the same id with the same sentence', async () => {
    const { root, child } = await delegate();
    const tmux = tmuxServer(`oci-pick-${process.pid}`);
    try {
      const env = Object.entries({ ...ctx.env, TERM: 'xterm-256color' }).map(([k, v]) => `${k}=${v}`);
      // `sleep` keeps the pane (and its last screen) after the app exits.
      tmux.run('new-session', '-d', '-s', 'pick', '-x', '200', '-y', '20', '-c', ctx.project, `env ${env.join(' ')} node ${BIN} -s ${child}; echo "exit=$?"; sleep 30`);
      let screen = '';
      await waitFor(() => (screen = tmux.run('capture-pane', '-p', '-J', '-t', 'pick')).includes('exit='), 20_000, 'the TUI to exit');
      expect(screen).toContain('exit=2');
      expect(screen.replace(/\s+/g, ' ')).toContain(refusal(child, root));
    } finally {
      tmux.kill();
    }
  });
});
