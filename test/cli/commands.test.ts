// Custom commands and @mentions through the built binary's `run`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { text, toolResults, toolUse, type FakeServer } from '../support/fake-anthropic.js';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { firstUserText } from '../support/conversations.js';
import { setTrusted, trustRoot } from '../../src/core/trust/index.js';

let ctx: CliProject;
let server: FakeServer;
let dir: string;
let project: string;
let env: NodeJS.ProcessEnv;

function put(path: string, content: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

beforeEach(async () => {
  ctx = await startCliProject();
  ({ server, dir, project, env } = ctx);
  put(join(project, '.claude/commands/review.md'), '---\ndescription: Review a file\nagent: explore\nargument-hint: <file>\n---\nReview $1 for bugs.\n');
  put(join(project, '.opencode/command/status.md'), '---\ndescription: Show status\n---\nState: !`echo from-the-shell`\n');
  put(join(dir, 'config/commands/hello.md'), 'Say hello to $ARGUMENTS\n');
  put(join(project, 'src/a.ts'), 'export const a = 1;\n');
  // These tests are about commands; the project's shell inline needs it trusted (test/cli/trust.test.ts covers the untrusted case).
  setTrusted(env, trustRoot(project), true);
});

afterEach(() => ctx.close());

describe('commands in run', () => {
  it('runs a subtask command: the child request comes first, then the parent continues', async () => {
    server.enqueue(text('No bugs in src/a.ts.'), text('The review found no bugs.'));
    const result = await runCli(['run', '/review src/a.ts'], { cwd: project, env });
    // Only the sub-agent's start and end lines: no warning, no error.
    expect(result.stderr).toMatch(/^▸ explore \(Review a file\) started\n✓ explore \(Review a file\) \d+s\n$/);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('The review found no bugs.\n');
    expect(server.requests.map(firstUserText)).toEqual(['Review src/a.ts for bugs.', '/review src/a.ts']);
    expect(JSON.stringify(toolResults(server.requests[1]!))).toContain('No bugs in src/a.ts.');
    const listed = JSON.parse((await runCli(['sessions', '--all', '--json'], { cwd: project, env })).stdout) as Array<{ parent_id: string | null; agent: string }>;
    expect(listed.map((s) => s.agent).sort()).toEqual(['build', 'explore']);
  });

  it('runs a command from the config dir', async () => {
    server.enqueue(text('Hello!'));
    const result = await runCli(['run', '/hello', 'the', 'team'], { cwd: project, env });
    expect(result.code).toBe(0);
    expect(firstUserText(server.requests[0]!)).toBe('Say hello to the team');
  });

  it('refuses a shell inline without --yes, in one line, before any model call', async () => {
    const result = await runCli(['run', '/status'], { cwd: project, env });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/\/status: cannot run !`echo from-the-shell`: .*--yes/);
    expect(server.requests).toHaveLength(0);
  });

  it('inlines the shell output with --yes', async () => {
    server.enqueue(text('ok'));
    const result = await runCli(['run', '--yes', '/status'], { cwd: project, env });
    expect(result.code).toBe(0);
    expect(firstUserText(server.requests[0]!)).toBe('State: from-the-shell');
  });

  it('exits 2 for an unknown command, naming the close match', async () => {
    const result = await runCli(['run', '/reviw src/a.ts'], { cwd: project, env });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('Error: Unknown command /reviw. Did you mean /review?');
    expect(server.requests).toHaveLength(0);
  });

  it('warns about a broken command file and still runs', async () => {
    put(join(project, '.opencode/command/broken.md'), '---\nsubtask: [\n---\nx\n');
    server.enqueue(text('fine'));
    const result = await runCli(['run', 'hi'], { cwd: project, env });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/broken\.md: skipped: invalid YAML front-matter/);
  });

  it('runs @explore as a task', async () => {
    server.enqueue(text('found it'), text('It is in src/a.ts.'));
    const result = await runCli(['run', '@explore where is a defined?'], { cwd: project, env });
    expect(result.code).toBe(0);
    expect(server.requests.map(firstUserText)).toEqual(['where is a defined?', '@explore where is a defined?']);
  });

  it('says in one stderr line that `run /init` put the user\'s AGENTS.md text back', async () => {
    put(join(project, 'AGENTS.md'), 'Never touch vendored/.\n');
    server.enqueue(toolUse('read', { file_path: 'AGENTS.md' }), toolUse('write', { file_path: 'AGENTS.md', content: '# AGENTS.md\n' }), text('Rewrote it.'));
    const result = await runCli(['run', '--yes', '/init'], { cwd: project, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Rewrote it.\n');
    expect(result.stderr).toBe('/init dropped lines of your AGENTS.md, so your text was put back intact and its new lines follow under "## Added by /init".\n');
    expect(readFileSync(join(project, 'AGENTS.md'), 'utf8')).toBe('Never touch vendored/.\n\n## Added by /init\n\n# AGENTS.md\n');
  });
});
