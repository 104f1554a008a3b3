// Packaging: the tarball `npm pack` makes installs globally into a temporary prefix and runs
// from another directory, against the fake API server. npm resolves the dependencies from
// its cache when it can (--prefer-offline; the registry is the fallback). Install scripts
// are skipped and the native SQLite module this checkout built is copied in: compiling it
// again takes a minute or more of CPU, and what is under test is the package, not the
// compiler. (A real `npm install -g <tarball>` runs better-sqlite3's install script, which
// downloads a prebuilt binary or compiles one.)
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { firstUserText } from '../support/conversations.js';
import { text } from '../support/fake-anthropic.js';
import { REPO_ROOT } from '../support/repo-root.js';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // npm needs the user's HOME (its cache lives there); the product under test never sees it.
    execFile(command, args, { cwd, env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${command} ${args.join(' ')} failed: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('the packed tarball', () => {
  let tmp: string;
  let prefix: string;
  let bin: string;
  let files: string[];
  let ctx: CliProject;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'oci-pack-'));
    prefix = join(tmp, 'prefix');
    // dist/ is built by the test run's global setup; packing must not rebuild it.
    const packed = JSON.parse(await run(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], REPO_ROOT)) as Array<{ filename: string; files: Array<{ path: string }> }>;
    files = packed[0]!.files.map((f) => f.path);
    const tarball = join(tmp, packed[0]!.filename);
    await run(npm, ['install', '--global', '--prefix', prefix, '--prefer-offline', '--ignore-scripts', tarball], tmp);

    const installed = join(prefix, 'lib', 'node_modules', 'opencode-ink');
    const ours = dirname(createRequire(join(REPO_ROOT, 'package.json')).resolve('better-sqlite3/package.json'));
    const theirs = dirname(createRequire(join(installed, 'package.json')).resolve('better-sqlite3/package.json'));
    const versionOf = (dir: string) => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    if (versionOf(ours) === versionOf(theirs)) {
      mkdirSync(join(theirs, 'build', 'Release'), { recursive: true });
      copyFileSync(join(ours, 'build', 'Release', 'better_sqlite3.node'), join(theirs, 'build', 'Release', 'better_sqlite3.node'));
    } else {
      // Another version than this checkout's: build it for real (slow).
      await run(npm, ['rebuild', 'better-sqlite3'], installed);
    }
    bin = join(prefix, 'bin', 'opencode-ink');
    ctx = await startCliProject();
  }, 300_000);

  afterAll(async () => {
    await ctx?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('holds the built program and its agents, not the sources or tests', () => {
    for (const f of ['bin/opencode-ink.js', 'bin/package.json', 'dist/boot.cjs', 'dist/cli.js', 'dist/tui.js', 'dist/run.js', 'dist/sdk/index.js', 'dist/types/sdk/index.d.ts', 'agents/build.md', 'package.json', 'README.md']) expect(files).toContain(f);
    expect(files.filter((f) => /^(src|test|scripts|bench)\//.test(f))).toEqual([]);
  });

  it('prints its version from another directory', async () => {
    const result = await runCli(['--version'], { cwd: ctx.project, env: ctx.env, bin });
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('runs a prompt against the API from another directory, with its own agents', async () => {
    ctx.server.enqueue(text('Installed and working.'));
    const result = await runCli(['run', 'are you installed?'], { cwd: ctx.project, env: ctx.env, bin });
    expect(result).toMatchObject({ code: 0, stdout: 'Installed and working.\n', stderr: '' });
    expect(firstUserText(ctx.server.requests[0]!)).toBe('are you installed?');

    const agents = JSON.parse((await runCli(['agents', '--json'], { cwd: ctx.project, env: ctx.env, bin })).stdout) as Array<{ name: string; source: string }>;
    const build = agents.find((a) => a.name === 'build');
    expect(build?.source.startsWith(join(prefix, 'lib', 'node_modules', 'opencode-ink', 'agents'))).toBe(true);
  });

  it('takes piped stdin with -p', async () => {
    ctx.server.enqueue(text('ok'));
    const result = await runCli(['-p', 'summarize'], { cwd: ctx.project, env: ctx.env, bin, stdin: 'some text\n' });
    expect(result.code).toBe(0);
    expect(firstUserText(ctx.server.requests.at(-1)!)).toBe('summarize\n\nsome text');
  });
});
