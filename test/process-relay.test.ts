// Programs started through the relay shell (src/core/process-relay.ts): exactly the environment,
// folder, input and arguments asked for, output and exit code back, their own process group
// killed whole, a missing program or folder reported as spawn reports it, and a relay that
// never keeps its process alive.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { startProgram } from '../src/core/process-relay.js';
import { processAlive } from '../src/core/store/lease.js';
import { REPO_ROOT } from './support/repo-root.js';

const dir = mkdtempSync(join(tmpdir(), 'oci-relay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PATH = process.env.PATH ?? '/usr/bin:/bin';

/** Polls `check` until it holds; fails after `ms`. */
async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.runIf(process.platform === 'linux')('a program started through the relay', () => {
  it('gets exactly its arguments, environment, folder and input, and gives back its output and exit code', async () => {
    const tricky = `it's "quoted" $HOME \`x\` \\ and\na second line`;
    const script = 'printf "%s|%s|%s|%s|%s\\n" "$1" "$TRICKY" "${HOME-none}" "$(pwd)" "$PPID"; cat; echo "to stderr" >&2; exit 3';
    const program = startProgram('/bin/sh', ['-c', script, 'sh', tricky], { cwd: dir, env: { PATH, TRICKY: tricky }, input: 'from stdin\n' });
    const result = await program.exited;
    const [line, ...rest] = result.stdout.toString('utf8').split('|');
    expect(line).toBe(tricky);
    expect(rest.slice(0, 3)).toEqual([tricky, 'none', dir]);
    // Its parent is the relay's shell, not this process: the fork did not copy this process.
    expect(Number(rest[3]?.split('\n')[0])).not.toBe(process.pid);
    expect(result.stdout.toString('utf8').endsWith('\nfrom stdin\n')).toBe(true);
    expect(result.stderr.toString('utf8')).toBe('to stderr\n');
    expect(result.code).toBe(3);
  });

  it('gives each of many programs at once its own output', async () => {
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => startProgram('/bin/sh', ['-c', `printf %s ${i}`], { cwd: dir, env: { PATH } }).exited),
    );
    expect(results.map((r) => r.stdout.toString('utf8'))).toEqual(Array.from({ length: 40 }, (_, i) => String(i)));
  });

  it('leads its own process group, killed whole with what it started', async () => {
    const pidFile = join(dir, 'background.pid');
    const program = startProgram('/bin/sh', ['-c', `sleep 60 & echo $! > ${pidFile}; wait`], { cwd: dir, env: { PATH } });
    await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'));
    const background = Number(readFileSync(pidFile, 'utf8'));
    expect(processAlive(background)).toBe(true);
    program.kill();
    const result = await program.exited;
    expect(result.code).not.toBe(0);
    await until(() => !processAlive(background));
  });

  it('reports a program or a working folder that does not exist as spawn does', async () => {
    const noProgram = await startProgram('no-such-program-oci', [], { cwd: dir, env: { PATH } }).exited.catch((err: NodeJS.ErrnoException) => err);
    expect(noProgram).toMatchObject({ code: 'ENOENT' });
    const noFolder = await startProgram('/bin/sh', ['-c', 'true'], { cwd: join(dir, 'gone'), env: { PATH } }).exited.catch((err: NodeJS.ErrnoException) => err);
    expect(noFolder).toMatchObject({ code: 'ENOENT' });
  });

  it('never keeps its process alive once the programs have ended', async () => {
    const entry = join(dir, 'relay-user.mjs');
    await build({
      stdin: {
        contents: `import { startProgram } from './src/core/process-relay.ts';
const r = await startProgram('/bin/sh', ['-c', 'echo ran'], { cwd: '/', env: { PATH: process.env.PATH } }).exited;
process.stdout.write(r.stdout);`,
        resolveDir: REPO_ROOT,
        loader: 'ts',
        sourcefile: 'relay-user.ts',
      },
      outfile: entry,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'silent',
    });
    const temp = mkdtempSync(join(dir, 'tmp-'));
    // Hangs (and the deadline kills it) if the relay held the event loop.
    const { stdout } = await promisify(execFile)(process.execPath, [entry], { timeout: 20_000, env: { ...process.env, TMPDIR: temp } });
    expect(stdout).toBe('ran\n');
    // Its job files went with it.
    expect(readdirSync(temp)).toEqual([]);
  });
});
