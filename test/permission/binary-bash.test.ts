// The built binary (`bin/opencode-ink.js` → dist/) loads the bash grammar from its bundle:
// a deny rule sees through respellings in `run`, and an allowed command still runs.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { REPO_ROOT } from '../support/repo-root.js';
import { text, toolResults, toolUse } from '../support/fake-anthropic.js';

let cli: CliProject | undefined;
afterEach(async () => {
  await cli?.close();
  cli = undefined;
});

describe('bash rules in the built binary', () => {
  it('parses commands with the bundled grammar in `run`', async () => {
    cli = await startCliProject();
    const { server, project, env } = cli;
    // User-level config: trusted wherever the project is.
    mkdirSync(env.OPENCODE_INK_CONFIG_DIR!, { recursive: true });
    writeFileSync(join(env.OPENCODE_INK_CONFIG_DIR!, 'config.json'), JSON.stringify({ permission: { bash: { '*': 'ask', 'echo *': 'allow', 'rm *': 'deny' } } }));
    writeFileSync(join(project, 'victim.txt'), 'keep me');
    server.enqueue(toolUse('bash', { command: "echo still-here; r''m victim.txt" }), toolUse('bash', { command: 'echo parsed-and-allowed' }), text('done'));
    const result = await runCli(['run', 'try'], { cwd: project, env });
    expect(result.code).toBe(0);
    expect(String(toolResults(server.requests[1]!)[0]!.content)).toMatch(/denied by the configured rules/);
    expect(existsSync(join(project, 'victim.txt'))).toBe(true);
    expect(String(toolResults(server.requests[2]!)[0]!.content)).toBe('parsed-and-allowed');
  });

  it('holds lines without a command word that would run code, under the README rules', async () => {
    cli = await startCliProject();
    const { server, project, env } = cli;
    mkdirSync(env.OPENCODE_INK_CONFIG_DIR!, { recursive: true });
    writeFileSync(join(env.OPENCODE_INK_CONFIG_DIR!, 'config.json'), JSON.stringify({ permission: { bash: { '*': 'ask', 'git status*': 'allow' } } }));
    writeFileSync(join(project, 'keep.txt'), 'keep me');
    const lines = ["x='a[$(touch P1)]'; y=$((x))", "x='a[$(touch P2)]'; (( x ))", "x='$(touch P3)'; y=${x@P}", "[[ 'a[$(touch P4)]' -eq 0 ]]", '> keep.txt'];
    server.enqueue(...lines.map((command) => toolUse('bash', { command })), text('done'));
    const result = await runCli(['run', 'try'], { cwd: project, env });
    expect(result.code).toBe(0);
    for (let i = 1; i <= lines.length; i++) {
      const [refused] = toolResults(server.requests[i]!);
      expect(refused!.is_error).toBe(true);
      expect(String(refused!.content)).toMatch(/nobody can approve/);
    }
    for (const made of ['P1', 'P2', 'P3', 'P4']) expect(existsSync(join(project, made))).toBe(false);
    expect(readFileSync(join(project, 'keep.txt'), 'utf8')).toBe('keep me');
  });

  it('denies static spellings of a denied program under --yes', async () => {
    cli = await startCliProject();
    const { server, project, env } = cli;
    mkdirSync(env.OPENCODE_INK_CONFIG_DIR!, { recursive: true });
    writeFileSync(join(env.OPENCODE_INK_CONFIG_DIR!, 'config.json'), JSON.stringify({ permission: { bash: { '*': 'allow', 'rm *': 'deny' } } }));
    writeFileSync(join(project, 'victim.txt'), 'keep me');
    const spellings = ["$'\\x72\\x6d' victim.txt", '{rm,victim.txt}', "bash <<< 'rm victim.txt'", "env -S 'rm victim.txt'", 'eval eval eval eval eval rm victim.txt', 'setsid taskset 1 rm victim.txt'];
    server.enqueue(...spellings.map((command) => toolUse('bash', { command })), text('done'));
    const result = await runCli(['run', '--yes', 'try'], { cwd: project, env });
    expect(result.code).toBe(0);
    for (let i = 1; i <= spellings.length; i++) {
      const [denied] = toolResults(server.requests[i]!);
      expect(String(denied!.content)).toMatch(/denied by the configured rules: bash `rm victim.txt` is not allowed/);
    }
    expect(existsSync(join(project, 'victim.txt'))).toBe(true);
  });

  it('parses commands from dist/tui.js, the code-cached script the interactive UI runs from', async () => {
    cli = await startCliProject();
    const { server, project, env } = cli;
    writeFileSync(join(project, 'victim.txt'), 'keep me');
    mkdirSync(env.OPENCODE_INK_CONFIG_DIR!, { recursive: true });
    writeFileSync(join(env.OPENCODE_INK_CONFIG_DIR!, 'config.json'), JSON.stringify({ permission: { bash: { '*': 'allow', 'rm *': 'deny' } } }));
    server.enqueue(toolUse('bash', { command: 'env rm victim.txt' }), text('done'));
    // The same CLI as the TUI's script: `run` through it exercises its lazy grammar chunk.
    const boot = pathToFileURL(join(REPO_ROOT, 'dist', 'boot.cjs')).href;
    const tui = join(REPO_ROOT, 'dist', 'tui.js');
    const program = `const { loadScript } = await import(${JSON.stringify(boot)}); const s = loadScript(${JSON.stringify(tui)}, undefined); process.exitCode = await s.main(['run', 'try']);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', program], { cwd: project, env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(String(toolResults(server.requests[1]!)[0]!.content)).toMatch(/denied by the configured rules/);
    expect(existsSync(join(project, 'victim.txt'))).toBe(true);
  });
});
