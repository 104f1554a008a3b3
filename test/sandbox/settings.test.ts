// Sandbox settings without running anything: availability and the start line, tightening
// (children, agents, untrusted projects), the policy's paths for a linked git worktree in the
// data dir, and the macOS profile (sandbox-exec cannot run here, so its text is what is tested).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/core/project-context.js';
import { bwrapArgs } from '../../src/core/sandbox/bwrap.js';
import { prepareSandbox, SANDBOX_OFF, tightenSandbox, type SandboxSettings } from '../../src/core/sandbox/index.js';
import { sandboxPolicy } from '../../src/core/sandbox/policy.js';
import { seatbeltProfile } from '../../src/core/sandbox/seatbelt.js';
import { removeDir } from '../tools/context.js';
import { fakeHome } from './support.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

const workspace: SandboxSettings = { mode: 'workspace-write', network: true, allowWrite: ['/x'], autoAllow: true };

describe('availability', () => {
  it('names the reason in one line when bwrap is missing, and behaves as off', () => {
    const host = prepareSandbox({
      config: { mode: 'workspace-write', network: false, allow_write: [], auto_allow: true },
      env: { OPENCODE_INK_BWRAP: '/nonexistent/bwrap', HOME: '/nowhere' },
      cwd: '/',
      platform: 'linux',
    });
    expect(host.availability.available).toBe(false);
    expect(host.notice).toBe(
      'Sandbox unavailable: /nonexistent/bwrap was not found (install the "bubblewrap" package); commands run unsandboxed and ask for approval as with sandbox.mode "off".',
    );
  });

  it('says nothing while the sandbox is off', () => {
    const host = prepareSandbox({ config: { mode: 'off', network: false, allow_write: [], auto_allow: true }, env: { OPENCODE_INK_BWRAP: '/nonexistent/bwrap' }, cwd: '/' });
    expect(host.notice).toBeUndefined();
  });
});

describe('tightening', () => {
  it('lets a mode tighten and never loosen', () => {
    expect(tightenSandbox(workspace, 'read-only').mode).toBe('read-only');
    expect(tightenSandbox(workspace, 'read-only').allowWrite).toEqual([]);
    expect(tightenSandbox({ ...workspace, mode: 'read-only' }, 'workspace-write').mode).toBe('read-only');
    expect(tightenSandbox(workspace, 'off')).toBe(workspace);
  });

  it('turns the sandbox on without auto-allow when the request is not trusted', () => {
    const off = { ...workspace, mode: 'off' as const };
    expect(tightenSandbox(off, 'workspace-write')).toMatchObject({ mode: 'workspace-write', autoAllow: true });
    expect(tightenSandbox(off, 'workspace-write', false)).toMatchObject({ mode: 'workspace-write', autoAllow: false });
    expect(tightenSandbox(SANDBOX_OFF, undefined)).toBe(SANDBOX_OFF);
  });

  it('lets an untrusted project tighten the sandbox but names what would loosen it', () => {
    const home = fakeHome();
    dirs.push(home.root);
    const env = { HOME: home.home, OPENCODE_INK_CONFIG_DIR: home.configDir, OPENCODE_INK_DATA_DIR: home.dataDir, OPENCODE_INK_BWRAP: '/nonexistent/bwrap' };
    writeFileSync(join(home.configDir, 'config.json'), JSON.stringify({ sandbox: { mode: 'workspace-write', network: true } }));
    writeFileSync(
      join(home.project, '.opencoderc.json'),
      JSON.stringify({ sandbox: { mode: 'read-only', network: false, allow_write: ['~/.ssh'], auto_allow: true } }),
    );
    const project = loadProject({ cwd: home.project, env });
    expect(project.sandbox.settings).toMatchObject({ mode: 'read-only', network: false, allowWrite: [] });
    expect(project.trust.notice).toMatch(/ignored sandbox\.auto_allow, sandbox\.allow_write \(\.opencoderc\.json\)/);

    writeFileSync(join(home.project, '.opencoderc.json'), JSON.stringify({ sandbox: { mode: 'off' } }));
    const loosening = loadProject({ cwd: home.project, env });
    expect(loosening.sandbox.settings.mode).toBe('workspace-write');
    expect(loosening.trust.notice).toMatch(/ignored sandbox\.mode \(\.opencoderc\.json\)/);

    // Turned on by the project alone: sandboxed, but what asked still asks.
    writeFileSync(join(home.configDir, 'config.json'), '{}');
    writeFileSync(join(home.project, '.opencoderc.json'), JSON.stringify({ sandbox: { mode: 'workspace-write' } }));
    expect(loadProject({ cwd: home.project, env }).sandbox.settings).toMatchObject({ mode: 'workspace-write', autoAllow: false });
  });

  it('takes --sandbox over the config, the user\'s own choice', () => {
    const home = fakeHome();
    dirs.push(home.root);
    const env = { HOME: home.home, OPENCODE_INK_CONFIG_DIR: home.configDir, OPENCODE_INK_DATA_DIR: home.dataDir, OPENCODE_INK_BWRAP: '/nonexistent/bwrap' };
    writeFileSync(join(home.configDir, 'config.json'), JSON.stringify({ sandbox: { mode: 'read-only' } }));
    expect(loadProject({ cwd: home.project, env, sandboxMode: 'off' }).sandbox.settings.mode).toBe('off');
    const project = loadProject({ cwd: home.project, env, sandboxMode: 'workspace-write' });
    expect(project.sandbox.settings.mode).toBe('workspace-write');
    expect(project.warnings.at(-1)).toMatch(/^Sandbox unavailable: /);
  });
});

describe('the policy for a git worktree in the data dir', () => {
  it('shows the worktree again over the hidden data dir and makes the repository\'s git dir writable, hooks and config excepted', () => {
    const home = fakeHome();
    dirs.push(home.root);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: home.project, stdio: 'pipe' });
    removeDir(join(home.project, '.git'));
    git('init', '-q');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'base');
    const worktree = join(home.dataDir, 'worktrees', 'child');
    mkdirSync(join(home.dataDir, 'worktrees'), { recursive: true });
    git('worktree', 'add', '-q', worktree);
    const policy = sandboxPolicy({ mode: 'workspace-write', network: false, cwd: worktree, allowWrite: [], home: home.home, programDirs: [home.configDir, home.dataDir] });
    expect([...policy.writable].sort()).toEqual([worktree, join(home.project, '.git')].sort());
    expect(policy.hidden.map((h) => h.path)).toEqual(expect.arrayContaining([join(home.home, '.ssh'), home.dataDir, home.configDir]));
    expect(policy.revealed).toEqual([{ path: worktree, writable: true }]);
    const gitDir = join(home.project, '.git');
    const own = join(gitDir, 'worktrees', 'child');
    // The worktree's `.git` file, and each git dir's control files that exist, are read-only.
    expect([...policy.protected].sort()).toEqual(
      [join(worktree, '.git'), join(gitDir, 'config'), join(gitDir, 'hooks'), join(gitDir, 'info'), join(own, 'commondir'), join(own, 'gitdir')].sort(),
    );
    expect(policy.pinned).toEqual([gitDir, own]);
    expect(policy.guarded).toEqual(
      expect.arrayContaining([
        { path: join(gitDir, 'commondir'), action: 'remove' },
        { path: join(own, 'config.worktree'), action: 'remove' },
        { path: join(worktree, '.mcp.json'), action: 'remove' },
      ]),
    );
    const args = bwrapArgs(policy).join(' ');
    // Hidden first, then the worktree shown again, then hooks made read-only.
    expect(args.indexOf(`--tmpfs ${home.dataDir}`)).toBeLessThan(args.indexOf(`--bind ${worktree} ${worktree}`, args.indexOf(`--tmpfs ${home.dataDir}`)));
    expect(args).toMatch(/--unshare-all --die-with-parent --new-session --chdir /);
    expect(args).not.toMatch(/--share-net/);
  });
});

describe('the macOS profile', () => {
  it('implements the same policy in SBPL', () => {
    const profile = seatbeltProfile(
      {
        mode: 'workspace-write',
        network: false,
        cwd: '/Users/me/proj',
        visible: [],
        writable: ['/Users/me/proj', '/Users/me/.cache/pip'],
        protected: ['/Users/me/proj/.git/hooks'],
        hidden: [
          { path: '/Users/me/.ssh', kind: 'dir', name: '/Users/me/.ssh' },
          { path: '/Users/me/.netrc', kind: 'file', name: '/Users/me/.netrc' },
          { path: '/Users/me/Library/Application Support/opencode-ink', kind: 'dir', name: 'data' },
        ],
        revealed: [{ path: '/Users/me/Library/Application Support/opencode-ink/worktrees/c1', writable: true }],
        pinned: ['/Users/me/proj/.git'],
        guarded: [{ path: '/Users/me/proj/.git/commondir', action: 'remove' }],
        read: 'all',
        readable: [],
      },
      { tmpDir: '/var/folders/xy/T' },
    );
    const lines = profile.trim().split('\n');
    expect(lines.slice(0, 2)).toEqual(['(version 1)', '(deny default)']);
    expect(lines).toContain('(allow file-read*)');
    expect(lines).toContain('(allow file-write* (subpath "/Users/me/proj") (subpath "/Users/me/.cache/pip"))');
    expect(lines).toContain(
      '(deny file-read* file-write* (subpath "/Users/me/.ssh") (literal "/Users/me/.netrc") (subpath "/Users/me/Library/Application Support/opencode-ink"))',
    );
    const reveal = lines.indexOf('(allow file-read* file-write* (subpath "/Users/me/Library/Application Support/opencode-ink/worktrees/c1"))');
    expect(reveal).toBeGreaterThan(lines.findIndex((l) => l.startsWith('(deny file-read*')));
    expect(lines.indexOf('(deny file-write* (subpath "/Users/me/proj/.git/hooks"))')).toBeGreaterThan(reveal);
    // Names are judged existing or not: `.git` keeps its name, a missing commondir cannot be made.
    expect(lines).toContain('(deny file-write-unlink file-write-create (literal "/Users/me/proj/.git"))');
    expect(lines).toContain('(deny file-write* (subpath "/Users/me/proj/.git/commondir"))');
    expect(profile).not.toMatch(/network/);
    const none = { pinned: [], guarded: [], read: 'all' as const, readable: [] };
    const networked = seatbeltProfile({ mode: 'read-only', network: true, cwd: '/p', visible: ['/p'], writable: [], protected: [], hidden: [], revealed: [], ...none });
    expect(networked).toMatch(/\(allow network\*\)/);
    expect(networked).not.toMatch(/\(allow file-write\* \(subpath "\/p"\)\)/);
  });

  it('quotes paths so a folder name cannot add rules', () => {
    const profile = seatbeltProfile({
      mode: 'workspace-write',
      network: false,
      cwd: '/p',
      visible: [],
      writable: ['/p/a")(allow default'],
      protected: [],
      hidden: [],
      revealed: [],
      pinned: [],
      guarded: [],
      read: 'all',
      readable: [],
    });
    expect(profile).toContain('(subpath "/p/a\\")(allow default")');
  });
});
