// `opencode-ink mcp list` and server lifecycle through the built binary: states and tools as
// JSON, `.mcp.json` read only once the project is trusted, and no server process left after
// the program ends, also when it is stopped with SIGTERM in the middle of a turn.
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli, startCliProject, type CliProject } from '../support/cli.js';
import { toolUse } from '../support/fake-anthropic.js';
import { CRASHY, EVERYTHING } from './processes.js';

let p: CliProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

/** Any live process (ours or orphaned) whose command line holds `marker`. */
function processesWith(marker: string): string[] {
  return execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
    .split('\n')
    .filter((line) => line.includes(marker) && !line.trim().startsWith('Z') && !line.includes('ps -eo'));
}

function userConfig(project: CliProject, config: unknown): void {
  mkdirSync(project.env.OPENCODE_INK_CONFIG_DIR!, { recursive: true });
  writeFileSync(join(project.env.OPENCODE_INK_CONFIG_DIR!, 'config.json'), JSON.stringify(config));
}

describe('opencode-ink mcp list', () => {
  it('prints each server state and tools as JSON and leaves no server running', async () => {
    p = await startCliProject();
    const marker = `marker-${randomUUID()}`;
    userConfig(p, {
      mcp: {
        everything: { type: 'local', command: [process.execPath, EVERYTHING, 'stdio'] },
        crashy: { type: 'local', command: [process.execPath, CRASHY, marker] },
        broken: { type: 'local', command: [process.execPath, '-e', 'process.stderr.write("no token given\\n"); process.exit(1)'] },
        off: { type: 'local', command: ['/nonexistent'], enabled: false },
      },
    });
    const result = await runCli(['mcp', 'list', '--json'], { cwd: p.project, env: p.env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const states = JSON.parse(result.stdout) as Array<{ name: string; status: string; error?: string; tools: Array<{ name: string }> }>;
    expect(states.map((s) => [s.name, s.status])).toEqual([
      ['everything', 'connected'],
      ['crashy', 'connected'],
      ['broken', 'failed'],
      ['off', 'disabled'],
    ]);
    expect(states[0]!.tools.map((t) => t.name)).toContain('mcp__everything__echo');
    expect(states[1]!.tools.map((t) => t.name)).toEqual(['mcp__crashy__ok', 'mcp__crashy__crash', 'mcp__crashy__image', 'mcp__crashy__big', 'mcp__crashy__fail', 'mcp__crashy__add_tool']);
    expect(states[2]!.error).toContain('no token given');
    expect(processesWith(marker)).toEqual([]);

    const text = await runCli(['mcp', 'list'], { cwd: p.project, env: p.env });
    expect(text.stdout).toMatch(/^crashy\s+connected \(6 tools\)\s+local$/m);
    expect(text.stdout).toMatch(/^broken\s+failed\s+local\n {2}error: .*no token given/m);
  });

  it("reads a project's .mcp.json only once the project is trusted", async () => {
    p = await startCliProject();
    const marker = `marker-${randomUUID()}`;
    writeFileSync(
      join(p.project, '.mcp.json'),
      JSON.stringify({ mcpServers: { crashy: { command: process.execPath, args: [CRASHY, '${MARKER}'], env: { X: '1' } }, web: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } }),
    );
    const env = { ...p.env, MARKER: marker };
    const untrusted = await runCli(['mcp', 'list', '--json'], { cwd: p.project, env });
    expect(JSON.parse(untrusted.stdout)).toEqual([]);
    expect(untrusted.stderr).toContain('Project not trusted: ignored mcpServers.crashy, mcpServers.web (.mcp.json).');

    expect((await runCli(['trust'], { cwd: p.project, env })).code).toBe(0);
    const trusted = await runCli(['mcp', 'list', '--json'], { cwd: p.project, env });
    const states = JSON.parse(trusted.stdout) as Array<{ name: string; status: string; type: string }>;
    expect(states.map((s) => [s.name, s.type, s.status])).toEqual([
      ['crashy', 'local', 'connected'],
      ['web', 'remote', 'failed'],
    ]);
    expect(processesWith(marker)).toEqual([]);
  });

  it("lists each agent's own servers with the agent and its file, and leaves none running", async () => {
    p = await startCliProject();
    const marker = `marker-${randomUUID()}`;
    mkdirSync(join(p.project, '.claude', 'agents'), { recursive: true });
    writeFileSync(
      join(p.project, '.claude', 'agents', 'reviewer.md'),
      [
        '---',
        'name: reviewer',
        'description: Has servers of its own',
        'mcpServers:',
        '  - own:',
        `      command: ${JSON.stringify(process.execPath)}`,
        `      args: [${JSON.stringify(CRASHY)}, ${marker}]`,
        '  - gone:',
        '      command: /nonexistent/server',
        '---',
        'Review.',
      ].join('\n'),
    );
    expect((await runCli(['trust'], { cwd: p.project, env: p.env })).code).toBe(0);
    const result = await runCli(['mcp', 'list', '--json'], { cwd: p.project, env: p.env });
    expect(result.code).toBe(0);
    const states = JSON.parse(result.stdout) as Array<{ name: string; status: string; agent?: { name: string; file: string }; tools: Array<{ name: string }> }>;
    const file = join(p.project, '.claude', 'agents', 'reviewer.md');
    expect(states.map((s) => [s.name, s.status, s.agent])).toEqual([
      ['own', 'connected', { name: 'reviewer', file }],
      ['gone', 'failed', { name: 'reviewer', file }],
    ]);
    expect(states[0]!.tools.map((t) => t.name)).toContain('mcp__own__ok');
    expect(processesWith(marker)).toEqual([]);

    const text = await runCli(['mcp', 'list'], { cwd: p.project, env: p.env });
    expect(text.stdout).toMatch(/^agent reviewer \(\.claude\/agents\/reviewer\.md\):\n {2}own\s+connected \(6 tools\)\s+local$/m);
    expect(text.stdout).toMatch(/^ {2}gone\s+failed\s+local$/m);
    expect(processesWith(marker)).toEqual([]);
  });

  it('stops the servers when a run is ended with SIGTERM mid-turn', async () => {
    p = await startCliProject();
    const marker = `marker-${randomUUID()}`;
    userConfig(p, { mcp: { crashy: { type: 'local', command: [process.execPath, CRASHY, marker] } }, permission: { 'mcp__crashy__*': 'allow' } });
    p.server.enqueue(toolUse('mcp__crashy__ok', { word: 'hi' }), { type: 'stall' });
    const { child, done } = startCli(['run', 'say hi'], { cwd: p.project, env: p.env });
    await p.server.waitForRequests(2, 15_000);
    expect(processesWith(marker)).toHaveLength(1);
    child.kill('SIGTERM');
    const result = await done;
    expect(result.code).toBe(130);
    expect(processesWith(marker)).toEqual([]);
  });
});
