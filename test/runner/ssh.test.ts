// A remote container host over ssh:// (DESIGN §25): a throwaway sshd on 127.0.0.1 with a key made
// here, whose sessions reach the Podman this test starts (the remote `docker system dial-stdio`
// with DOCKER_HOST pointing at it), as a build machine would be reached. The host's key is checked
// against known_hosts as `ssh -o StrictHostKeyChecking=yes` would.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runnerConfigSchema } from '../../src/core/runner/config.js';
import { ContainerFleet } from '../../src/core/runner/fleet.js';
import { startPodman, type PodmanService } from '../support/podman.js';

const SSHD = '/usr/sbin/sshd';
let podman: PodmanService | undefined;
let sshd: ChildProcess | undefined;
let dir = '';
let port = 0;
let skip: string | undefined;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function portAnswers(at: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(true));
    probe.listen(at, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

beforeAll(async () => {
  if (!existsSync(SSHD)) return void (skip = 'sshd is not installed (openssh-server)');
  if (process.getuid?.() !== 0) return void (skip = 'a throwaway sshd needs root here');
  if (spawnSync('docker', ['--version']).status !== 0) return void (skip = 'the docker CLI (docker.io) is not installed for dial-stdio');
  const started = await startPodman();
  if (typeof started === 'string') return void (skip = started);
  podman = started;
  dir = mkdtempSync(join(tmpdir(), 'oc-sshd-'));
  mkdirSync(join(dir, 'home', '.ssh'), { recursive: true });
  spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host_key')]);
  spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'home', '.ssh', 'id_ed25519')]);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'home', '.ssh', 'id_ed25519.pub')));
  spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'other_key')]);
  port = await freePort();
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      `SetEnv DOCKER_HOST=${podman.url}`,
      '',
    ].join('\n'),
  );
  mkdirSync('/run/sshd', { recursive: true });
  sshd = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  while (!(await portAnswers(port))) {
    if (Date.now() > deadline || sshd.exitCode !== null) throw new Error(`sshd did not start (exit ${sshd.exitCode})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 120_000);

afterAll(async () => {
  if (sshd && sshd.exitCode === null) {
    const ended = new Promise((resolve) => sshd!.once('exit', resolve));
    sshd.kill('SIGTERM');
    await ended;
  }
  await podman?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The user's known_hosts: `key` (a public key file's text) recorded for the test's sshd as `[127.0.0.1]:port`, hashed as `HashKnownHosts yes` writes it. */
function recordHostKey(key: string | undefined): void {
  const file = join(dir, 'home', '.ssh', 'known_hosts');
  rmSync(file, { force: true });
  if (key === undefined) return;
  const [type, blob] = key.trim().split(/\s+/);
  writeFileSync(file, `# made by the test\n[127.0.0.1]:${port} ${type} ${blob}\n`);
  const hashed = spawnSync('ssh-keygen', ['-H', '-f', file], { encoding: 'utf8' });
  if (hashed.status !== 0) throw new Error(`ssh-keygen -H failed: ${hashed.stderr}`);
  expect(readFileSync(file, 'utf8')).toMatch(/^\|1\|/m);
}

describe('an ssh:// container host', () => {
  it('refuses a host whose key is not on record, or differs from the one on record, naming the host and what to do', async (ctx) => {
    if (skip) {
      console.log(`Skipping the ssh host test: ${skip}`);
      return ctx.skip();
    }
    const url = `ssh://root@127.0.0.1:${port}`;
    const config = runnerConfigSchema().parse({ kind: 'docker', hosts: [url], image: podman!.image });
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'oc-ws-')));
    try {
      recordHostKey(undefined);
      const unknown = new ContainerFleet({ config, env: { HOME: join(dir, 'home') }, notice: () => {} });
      await expect(unknown.acquire('ses_unknown', workspace)).rejects.toThrow(
        new RegExp(`ssh host key of \\[127\\.0\\.0\\.1\\]:${port} \\(ssh-ed25519\\) is not in .*known_hosts.*connect once with \`ssh -p ${port} 127\\.0\\.0\\.1\``),
      );
      recordHostKey(readFileSync(join(dir, 'other_key.pub'), 'utf8'));
      const notices: string[] = [];
      const changed = new ContainerFleet({ config, env: { HOME: join(dir, 'home') }, notice: (line) => notices.push(line) });
      await expect(changed.acquire('ses_changed', workspace)).rejects.toThrow(/ssh host key of \[127\.0\.0\.1\]:\d+ has changed since it was recorded in .*known_hosts \(line 2\).*ssh-keygen -R/);
      expect(notices.join('\n')).toMatch(/skipped: The ssh host key of .* has changed/);
      expect(readdirSync(workspace)).toEqual([]);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('runs a sub-agent’s commands in a container reached over ssh, files synced both ways', async (ctx) => {
    if (skip) {
      console.log(`Skipping the ssh host test: ${skip}`);
      return ctx.skip();
    }
    recordHostKey(readFileSync(join(dir, 'host_key.pub'), 'utf8'));
    const url = `ssh://root@127.0.0.1:${port}`;
    const config = runnerConfigSchema().parse({ kind: 'docker', hosts: [url], image: podman!.image });
    const notices: string[] = [];
    const fleet = new ContainerFleet({ config, env: { HOME: join(dir, 'home') }, notice: (line) => notices.push(line) });
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'oc-ws-')));
    writeFileSync(join(workspace, 'in.txt'), 'over ssh\n');
    try {
      const runner = await fleet.acquire('ses_ssh', workspace);
      expect(runner.where.host).toBe(url);
      const running = await runner.run('cat in.txt; echo back > out.txt', { cwd: workspace, env: {}, signal: new AbortController().signal });
      let text = '';
      running.output?.on('data', (chunk: Buffer) => (text += chunk.toString()));
      const exit = await running.exited;
      expect(exit.exitCode).toBe(0);
      expect(text).toBe('over ssh\n');
      expect(readFileSync(join(workspace, 'out.txt'), 'utf8')).toBe('back\n');
      expect(notices).toEqual([]);
    } finally {
      await fleet.close();
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});
