// The bash tool inside real bubblewrap: what a command can write, see and reach, and that
// nothing it starts outlives it.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commandSandbox, prepareSandbox, type SandboxMode } from '../../src/core/sandbox/index.js';
import { bashTool } from '../../src/core/tools/bash.js';
import { makeContext, removeDir, run } from '../tools/context.js';
import { bwrapMissing, fakeHome, makeVisibleTempDir, type FakeHome } from './support.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const undo of cleanups.splice(0).reverse()) undo();
});

function sandboxed(home: FakeHome, mode: SandboxMode, extra: { network?: boolean; allow_write?: string[]; cwd?: string } = {}) {
  cleanups.push(() => removeDir(home.root));
  const cwd = extra.cwd ?? home.project;
  const host = prepareSandbox({
    config: { mode, network: extra.network ?? false, allow_write: extra.allow_write ?? [], auto_allow: true },
    env: { ...home.env, OPENCODE_INK_DATA_DIR: home.dataDir, OPENCODE_INK_CONFIG_DIR: home.configDir },
    cwd,
  });
  const ctx = makeContext(cwd);
  const sandbox = commandSandbox(host, host.settings, cwd);
  if (sandbox) ctx.sandbox = sandbox;
  return ctx;
}

/** Live processes whose command line contains `marker`, seen from outside any sandbox. */
function liveProcesses(marker: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (cmdline.includes(marker) && !cmdline.includes('bwrap') && state !== 'Z' && state !== 'X') found.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe.skipIf(bwrapMissing !== undefined)('bash in a bubblewrap sandbox', () => {
  it('writes the project and a private /tmp in workspace-write, and nothing else', async () => {
    const home = fakeHome();
    const outside = makeVisibleTempDir('oci-outside-');
    cleanups.push(() => removeDir(outside));
    const ctx = sandboxed(home, 'workspace-write');

    const ok = await run(bashTool, { command: 'echo made > made.txt && echo scratch > /tmp/s && cat /tmp/s' }, ctx);
    expect(ok.output).toBe('scratch');
    expect(readFileSync(join(home.project, 'made.txt'), 'utf8')).toBe('made\n');
    expect(ok.metadata).toMatchObject({ sandbox: 'workspace-write' });

    const elsewhere = await run(bashTool, { command: `touch ${outside}/escaped` }, ctx);
    expect(existsSync(join(outside, 'escaped'))).toBe(false);
    expect(elsewhere.output).toMatch(/Read-only file system/);
    expect(elsewhere.output).toMatch(/blocked by the sandbox: the file system is read-only there \(workspace-write sandbox: only .*project.* are writable\)/);
    expect(elsewhere.output).toMatch(/dangerously_disable_sandbox/);

    // Git runs hooks outside the sandbox later: they stay read-only.
    const hook = await run(bashTool, { command: 'echo evil > .git/hooks/pre-commit' }, ctx);
    expect(hook.output).toMatch(/blocked by the sandbox/);
    expect(existsSync(join(home.project, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });

  it('hides ~/.ssh, ~/.aws and the program\'s data and config dirs', async () => {
    const home = fakeHome();
    const ctx = sandboxed(home, 'workspace-write');
    const ssh = await run(bashTool, { command: `cat ${home.home}/.ssh/id_rsa` }, ctx);
    expect(ssh.output).not.toMatch(/PRIVATE KEY/);
    expect(ssh.output).toMatch(/blocked by the sandbox: .*\.ssh is hidden from commands/);
    const listing = await run(bashTool, { command: `ls -A ${home.home}/.ssh ${home.home}/.aws ${home.dataDir} ${home.configDir}; echo end` }, ctx);
    expect(listing.output).toMatch(/end$/);
    expect(listing.output).not.toMatch(/id_rsa|credentials|sessions\.db|config\.json/);
    const write = await run(bashTool, { command: `echo x > ${home.dataDir}/sessions.db` }, ctx);
    expect(write.output).toMatch(/blocked by the sandbox/);
    expect(readFileSync(join(home.dataDir, 'sessions.db'), 'utf8')).toBe('sessions\n');
  });

  it('cannot see other processes or their environment, nor the provider key', async () => {
    const home = fakeHome();
    const ctx = sandboxed(home, 'workspace-write');
    const secret = `sk-secret-${process.pid}-${Date.now()}`;
    const outsider: ChildProcess = spawn('sleep', ['30'], { env: { ...process.env, OUTSIDER_SECRET: secret }, stdio: 'ignore' });
    cleanups.push(() => outsider.kill('SIGKILL'));
    const previous = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = `${secret}-key`;
    cleanups.push(() => {
      if (previous === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = previous;
    });
    // Readable from outside, so the test would see it if the sandbox let it through.
    expect(readFileSync(`/proc/${outsider.pid}/environ`, 'utf8')).toContain(secret);
    const result = await run(
      bashTool,
      {
        command: `cat /proc/${outsider.pid}/environ; echo "matches=$(cat /proc/$PPID/environ /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c sk-secret)"; echo "pids=$(ls /proc | grep -c '^[0-9]')"`,
      },
      ctx,
    );
    expect(result.output).not.toContain(secret);
    const matches = /matches=(\d+)/.exec(result.output)?.[1];
    const pids = /pids=(\d+)/.exec(result.output)?.[1];
    expect(matches, result.output).toBe('0');
    // The namespace's init, the shell and its few children: not the machine's processes.
    expect(Number(pids)).toBeLessThan(10);
  });

  it('reaches no network unless sandbox.network is true', async () => {
    const server: Server = createServer((_req, res) => res.end('reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => server.close());
    const port = (server.address() as AddressInfo).port;
    const fetchIt = `${JSON.stringify(process.execPath)} -e "fetch('http://127.0.0.1:${port}/').then(r => r.text()).then(console.log, e => { console.log('failed:', e.cause?.code ?? e.message); process.exit(1); })"`;
    const closed = await run(bashTool, { command: fetchIt }, sandboxed(fakeHome(), 'workspace-write'));
    expect(closed.output).not.toMatch(/reached/);
    expect(closed.output).toMatch(/failed: (ECONNREFUSED|ENETUNREACH)/);
    const open = await run(bashTool, { command: fetchIt }, sandboxed(fakeHome(), 'workspace-write', { network: true }));
    expect(open.output).toBe('reached');
  });

  it('blocks name lookups without the network and says the sandbox did it', async () => {
    const lookup = `${JSON.stringify(process.execPath)} -e "require('dns').lookup('example.com', (e) => { console.log(e ? e.code + ' getaddrinfo' : 'resolved'); process.exit(e ? 1 : 0); })"`;
    const result = await run(bashTool, { command: lookup }, sandboxed(fakeHome(), 'workspace-write'));
    expect(result.output).toMatch(/blocked by the sandbox: commands have no network inside it/);
  });

  it('writes nothing in read-only mode but its private /tmp', async () => {
    const home = fakeHome();
    const ctx = sandboxed(home, 'read-only');
    const result = await run(bashTool, { command: 'cat README.md && echo t > /tmp/t && cat /tmp/t && touch made.txt' }, ctx);
    expect(result.output).toMatch(/^hello\nt\n/);
    expect(result.output).toMatch(/blocked by the sandbox: .*read-only sandbox: nothing is writable but a private \/tmp/);
    expect(existsSync(join(home.project, 'made.txt'))).toBe(false);
  });

  it('makes sandbox.allow_write folders writable, ~ expanded', async () => {
    const home = fakeHome();
    const ctx = sandboxed(home, 'workspace-write', { allow_write: ['~/.cache/pip'] });
    const result = await run(bashTool, { command: `echo cached > ${home.home}/.cache/pip/x && cat ${home.home}/.cache/pip/x` }, ctx);
    expect(result.output).toBe('cached');
    expect(readFileSync(join(home.home, '.cache', 'pip', 'x'), 'utf8')).toBe('cached\n');
  });

  it('leaves no background process behind, and stops everything on timeout', async () => {
    const ctx = sandboxed(fakeHome(), 'workspace-write');
    const marker = `${800000 + Math.floor(Math.random() * 99999)}.${process.pid}`;
    const background = await run(bashTool, { command: `(setsid sleep ${marker} &) ; nohup sleep ${marker} >/dev/null 2>&1 & echo started` }, ctx);
    expect(background.output).toMatch(/^started/);
    expect(liveProcesses(`sleep ${marker}`)).toEqual([]);

    const timeoutMarker = `${marker}1`;
    const timed = await run(bashTool, { command: `sleep ${timeoutMarker} & sleep ${timeoutMarker}`, timeout: 300 }, ctx);
    expect(timed.metadata).toMatchObject({ timedOut: true });
    expect(liveProcesses(`sleep ${timeoutMarker}`)).toEqual([]);
  });

  it('lets a sub-agent in a git worktree inside the hidden data dir work and commit there, and see nothing else of the data dir', async () => {
    const home = fakeHome();
    const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, stdio: 'pipe' });
    removeDir(join(home.project, '.git'));
    git(home.project, 'init', '-q');
    git(home.project, 'add', '-A');
    git(home.project, 'commit', '-q', '-m', 'base');
    const worktree = join(home.dataDir, 'worktrees', 'child');
    mkdirSync(join(home.dataDir, 'worktrees'), { recursive: true });
    git(home.project, 'worktree', 'add', '-q', '-b', 'opencode/child', worktree);
    writeFileSync(join(home.dataDir, 'worktrees', 'other-secret.txt'), 'another child');
    const ctx = sandboxed(home, 'workspace-write', { cwd: worktree });
    const result = await run(
      bashTool,
      {
        command: `echo change > new.txt && git -c user.email=t@t -c user.name=t commit -q -am x 2>&1; git add new.txt && git -c user.email=t@t -c user.name=t commit -q -m "add new" && git log --oneline | wc -l; ls ${home.dataDir}/worktrees; cat ${home.dataDir}/sessions.db`,
      },
      ctx,
    );
    expect(result.output).toMatch(/^2\nchild\n/m);
    expect(result.output).not.toMatch(/other-secret|^sessions$/m);
    expect(execFileSync('git', ['log', '--oneline', 'opencode/child'], { cwd: home.project, encoding: 'utf8' })).toMatch(/add new/);
    // The repository's hooks stay read-only from inside the worktree too.
    const hook = await run(bashTool, { command: `echo evil > ${home.project}/.git/hooks/post-checkout` }, ctx);
    expect(hook.output).toMatch(/blocked by the sandbox/);
  });
});
