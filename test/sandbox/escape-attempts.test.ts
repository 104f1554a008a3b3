// The red team's ways out of the sandbox (issue "trust, round 4"), each tried through the real
// bash tool in real bubblewrap against a real git repository: nothing a sandboxed command
// writes may change what runs outside it, and credentials stay out of sight.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commandSandbox, prepareSandbox, type SandboxConfig } from '../../src/core/sandbox/index.js';
import { bashTool } from '../../src/core/tools/bash.js';
import { makeContext, removeDir, run } from '../tools/context.js';
import { bwrapMissing, fakeHome, makeVisibleTempDir, type FakeHome } from './support.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const undo of cleanups.splice(0).reverse()) undo();
});

const NODE = JSON.stringify(process.execPath);

function sandboxed(home: FakeHome, config: Partial<SandboxConfig> = {}, cwd = home.project, env: NodeJS.ProcessEnv = {}) {
  const host = prepareSandbox({
    config: { mode: 'workspace-write', network: false, allow_write: [], auto_allow: true, ...config },
    env: { ...home.env, OPENCODE_INK_DATA_DIR: home.dataDir, OPENCODE_INK_CONFIG_DIR: home.configDir, ...env },
    cwd,
  });
  const ctx = makeContext(cwd);
  const sandbox = commandSandbox(host, host.settings, cwd);
  if (sandbox) ctx.sandbox = sandbox;
  return ctx;
}

function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8', stdio: 'pipe' });
}

/** A home whose project is a real repository with one commit. */
function repoHome(): FakeHome {
  const home = fakeHome();
  cleanups.push(() => removeDir(home.root));
  removeDir(join(home.project, '.git'));
  gitIn(home.project, 'init', '-q');
  gitIn(home.project, 'add', '-A');
  gitIn(home.project, 'commit', '-q', '-m', 'base');
  return home;
}

/** Runs `git status` on the host as the user would, and says whether `marker` was created by it. */
function userGitStatusRuns(project: string, marker: string): boolean {
  try {
    execFileSync('git', ['status', '--short'], { cwd: project, stdio: 'pipe', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
  } catch {
    // A broken repository is not code running: only the marker counts.
  }
  return existsSync(marker);
}

describe.skipIf(bwrapMissing !== undefined)('ways out of the sandbox through files something outside trusts', () => {
  it('cannot rename or replace .git, nor plant a commondir the user\'s next git status follows', async () => {
    const home = repoHome();
    const marker = join(home.root, 'fsmonitor-ran');
    const ctx = sandboxed(home);
    // Variant 1: move .git away and build a new one with an fsmonitor.
    const swap = await run(
      bashTool,
      { command: `mv .git .git-old; mkdir -p .git-new && cp -a .git/. .git-new/ && git --git-dir=.git-new config core.fsmonitor "touch ${marker}"; mv .git-new .git 2>&1; ls -d .git-old 2>&1; true` },
      ctx,
    );
    expect(swap.output).toMatch(/Device or resource busy|Read-only file system/);
    expect(existsSync(join(home.project, '.git-old'))).toBe(false);
    expect(userGitStatusRuns(home.project, marker)).toBe(false);
    // Variant 2: copy .git into itself with an fsmonitor, and point commondir at the copy, with node (no redirection).
    const plant = await run(
      bashTool,
      {
        command: `cp -a .git/objects .git/refs .git/HEAD .git/ 2>/dev/null; mkdir -p .git/evil && cp -a .git/objects .git/refs .git/HEAD .git/evil/ && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch ${marker}\\n' > .git/evil/config && ${NODE} -e "require('fs').writeFileSync('.git/commondir', 'evil\\n')" && echo planted; git status --short >/dev/null 2>&1; ls .git/commondir`,
      },
      ctx,
    );
    expect(plant.output).toMatch(/planted/);
    expect(plant.output).toMatch(/the sandbox removed \.git\/commondir/);
    expect(existsSync(join(home.project, '.git', 'commondir'))).toBe(false);
    expect(userGitStatusRuns(home.project, marker)).toBe(false);
    // Variant 3: the existing config, hooks and info stay read-only, whatever writes them.
    const direct = await run(
      bashTool,
      {
        command: `${NODE} -e "const fs=require('fs'); for (const f of ['.git/config', '.git/hooks/pre-commit', '.git/info/attributes', '.git/config.worktree']) { try { fs.appendFileSync(f, '[core]\\n\\tfsmonitor = touch ${marker}\\n'); console.log('wrote', f) } catch (e) { console.log(e.code, f) } }"`,
      },
      ctx,
    );
    expect(direct.output).toMatch(/EROFS \.git\/config/);
    expect(direct.output).toMatch(/EROFS \.git\/hooks\/pre-commit/);
    expect(direct.output).toMatch(/EROFS \.git\/info\/attributes/);
    expect(readFileSync(join(home.project, '.git', 'config'), 'utf8')).not.toMatch(/fsmonitor/);
    // config.worktree did not exist: it was removed once it appeared.
    expect(existsSync(join(home.project, '.git', 'config.worktree'))).toBe(false);
    expect(userGitStatusRuns(home.project, marker)).toBe(false);
  });

  it('takes a repository it planted out of git\'s index, and keeps existing submodules\' configs read-only', async () => {
    const home = repoHome();
    const marker = join(home.root, 'submodule-fsmonitor-ran');
    // A repository the user already has inside the project, registered in the index.
    const vendored = join(home.project, 'vendored');
    mkdirSync(vendored);
    gitIn(vendored, 'init', '-q');
    writeFileSync(join(vendored, 'v.txt'), 'v\n');
    gitIn(vendored, 'add', '-A');
    gitIn(vendored, 'commit', '-q', '-m', 'v');
    gitIn(home.project, 'add', 'vendored');
    gitIn(home.project, 'commit', '-q', '-m', 'vendored');
    const ctx = sandboxed(home);
    const result = await run(
      bashTool,
      {
        command: [
          'git init -q planted',
          `git -C planted config core.fsmonitor "touch ${marker}"`,
          'echo p > planted/p.txt',
          'git -C planted add p.txt',
          'git -C planted -c user.email=t@t -c user.name=t commit -q -m p',
          'git add planted 2>/dev/null',
          'git ls-files -s planted | cut -c1-6',
          `${NODE} -e "try { require('fs').appendFileSync('vendored/.git/config', '[core]\\n\\tfsmonitor = touch ${marker}\\n') } catch (e) { console.log(e.code) }"`,
        ].join(' && '),
      },
      ctx,
    );
    expect(result.output).toMatch(/^160000$/m);
    expect(result.output).toMatch(/EROFS/);
    expect(result.output).toMatch(/the sandbox took planted out of git's index: it holds a git repository of its own/);
    expect(gitIn(home.project, 'ls-files', '-s', 'planted')).toBe('');
    expect(readFileSync(join(home.project, 'planted', 'p.txt'), 'utf8')).toBe('p\n');
    expect(userGitStatusRuns(home.project, marker)).toBe(false);
  });

  it('still lets git add, commit and status work inside', async () => {
    const home = repoHome();
    const ctx = sandboxed(home);
    const result = await run(bashTool, { command: 'echo change >> README.md && echo new > new.txt && git add -A && git -c user.email=t@t -c user.name=t commit -q -m inside && git status --short && git log --oneline | wc -l' }, ctx);
    expect(result.output).toBe('2');
    expect(gitIn(home.project, 'log', '--format=%s', '-1').trim()).toBe('inside');
  });

  it('does not widen itself through a .git file naming another folder', async () => {
    const home = repoHome();
    const ctx = sandboxed(home);
    // Inside: the attempt to replace .git by a file fails.
    const swap = await run(bashTool, { command: `mv .git .git-real 2>&1; rm -rf .git 2>/dev/null; ${NODE} -e "require('fs').writeFileSync('.git', 'gitdir: ${home.home}\\n')" 2>/dev/null || echo refused` }, ctx);
    expect(swap.output).toMatch(/Device or resource busy/);
    expect(swap.output).toMatch(/refused/);
    expect(existsSync(join(home.project, '.git', 'config'))).toBe(true);
    // A downloaded project that ships such a file gets nothing writable outside it on its first command.
    const downloaded = join(home.root, 'downloaded');
    mkdirSync(downloaded);
    writeFileSync(join(downloaded, '.git'), `gitdir: ${home.home}\n`);
    const first = await run(bashTool, { command: `touch ${home.home}/planted 2>&1; echo done` }, sandboxed(home, {}, downloaded));
    expect(first.output).toMatch(/Read-only file system/);
    expect(existsSync(join(home.home, 'planted'))).toBe(false);
  });

  it('names a repository a command creates where there was none: git obeys its config outside the sandbox too', async () => {
    const home = fakeHome();
    cleanups.push(() => removeDir(home.root));
    const plain = join(home.root, 'plain');
    mkdirSync(plain);
    const result = await run(bashTool, { command: 'git init -q && echo made' }, sandboxed(home, {}, plain));
    expect(result.output).toMatch(/^made/);
    expect(result.output).toMatch(/\.git was created from inside the sandbox: git obeys that repository's config and hooks .* look at \.git\/config before running git in it/);
    // Named, not removed: a repository made on purpose stays.
    expect(existsSync(join(plain, '.git', 'HEAD'))).toBe(true);
  });

  it('keeps the worktree sub-agent from rewriting its own git dir\'s pointers', async () => {
    const home = repoHome();
    const worktree = join(home.dataDir, 'worktrees', 'child');
    mkdirSync(join(home.dataDir, 'worktrees'), { recursive: true });
    gitIn(home.project, 'worktree', 'add', '-q', '-b', 'opencode/child', worktree);
    const own = join(home.project, '.git', 'worktrees', 'child');
    const ctx = sandboxed(home, {}, worktree);
    const result = await run(
      bashTool,
      {
        command: `${NODE} -e "const fs=require('fs'); for (const f of ['${own}/commondir', '${own}/gitdir', '${own}/config.worktree', '.git', '.mcp.json']) { try { fs.writeFileSync(f, 'x'); console.log('wrote', f) } catch (e) { console.log(e.code) } }"; mv ${own} ${own}-x 2>&1 | grep -o busy`,
      },
      ctx,
    );
    // A control file the child creates in its own worktree would be merged into the user's tree: it is removed.
    expect(existsSync(join(worktree, '.mcp.json'))).toBe(false);
    expect(result.output).toMatch(/the sandbox removed .*\.mcp\.json/);
    expect(result.output.match(/EROFS/g)?.length).toBe(3);
    expect(result.output).toMatch(/busy/);
    expect(readFileSync(join(own, 'commondir'), 'utf8').trim()).toBe('../..');
    expect(existsSync(join(own, 'config.worktree'))).toBe(false);
    expect(result.output).toMatch(/the sandbox removed .*config\.worktree/);
  });

  it('cannot rewrite this program\'s or Claude Code\'s control files, and names those it creates', async () => {
    const home = repoHome();
    mkdirSync(join(home.project, '.claude', 'hooks'), { recursive: true });
    writeFileSync(join(home.project, '.claude', 'settings.json'), '{}\n');
    writeFileSync(join(home.project, '.claude', 'hooks', 'format.sh'), 'prettier --write "$1"\n');
    writeFileSync(join(home.project, '.opencoderc.json'), '{}\n');
    writeFileSync(join(home.project, 'AGENTS.md'), '# agents\n');
    const ctx = sandboxed(home);
    const result = await run(
      bashTool,
      {
        command: `${NODE} -e "const fs=require('fs'); for (const f of ['.claude/settings.json', '.claude/hooks/format.sh', '.claude/agents/new.md', '.opencoderc.json', 'AGENTS.md']) { try { fs.writeFileSync(f, '{\\"hooks\\":{}}'); console.log('wrote', f) } catch (e) { console.log(e.code, f) } }"; mv .opencoderc.json x.json 2>&1 | grep -o busy; ${NODE} -e "require('fs').writeFileSync('.mcp.json', '{}')"; echo end`,
      },
      ctx,
    );
    expect(result.output).toMatch(/EROFS \.claude\/settings\.json/);
    expect(result.output).toMatch(/EROFS \.claude\/hooks\/format\.sh/);
    expect(result.output).toMatch(/(EROFS|ENOENT) \.claude\/agents\/new\.md/);
    expect(existsSync(join(home.project, '.claude', 'agents'))).toBe(false);
    expect(result.output).toMatch(/EROFS \.opencoderc\.json/);
    expect(result.output).toMatch(/EROFS AGENTS\.md/);
    expect(result.output).toMatch(/busy/);
    expect(readFileSync(join(home.project, '.claude', 'settings.json'), 'utf8')).toBe('{}\n');
    expect(readFileSync(join(home.project, '.opencoderc.json'), 'utf8')).toBe('{}\n');
    // A control file that did not exist is named to the model (trust pinning keeps it from being applied).
    expect(result.output).toMatch(/\.mcp\.json was created from inside the sandbox: control files written there are not applied until the user trusts the project again/);
  });

  it('hides the credential files of package registries, git hosts, clouds and coding assistants, and the runtime folder', async () => {
    const home = repoHome();
    const secrets = ['.npmrc', '.pypirc', '.claude/.credentials.json', '.local/share/opencode/auth.json', '.config/gh/hosts.yml', '.kube/config', '.codex/auth.json', '.cargo/credentials.toml'];
    for (const secret of secrets) {
      mkdirSync(join(home.home, secret, '..'), { recursive: true });
      writeFileSync(join(home.home, secret), 'TOKEN-SECRET\n');
    }
    const runtime = join(home.root, 'run-user');
    mkdirSync(runtime);
    writeFileSync(join(runtime, 'bus'), 'TOKEN-SECRET socket stand-in\n');
    const ctx = sandboxed(home, {}, home.project, { XDG_RUNTIME_DIR: runtime });
    const result = await run(bashTool, { command: `cat ${secrets.map((s) => join(home.home, s)).join(' ')} ${runtime}/bus 2>/dev/null; echo end` }, ctx);
    expect(result.output).not.toMatch(/TOKEN-SECRET/);
    expect(result.output).toMatch(/end/);
  });

  it('hides sandbox.hide paths, and with read "project" shows only the project, system folders and allow_read', async () => {
    const home = repoHome();
    writeFileSync(join(home.home, 'notes.txt'), 'PRIVATE NOTES\n');
    const shared = makeVisibleTempDir('oci-shared-');
    cleanups.push(() => removeDir(shared));
    writeFileSync(join(shared, 'lib.txt'), 'SHARED LIB\n');
    const hidden = await run(bashTool, { command: `cat ${home.home}/notes.txt 2>&1; echo end` }, sandboxed(home, { hide: ['~/notes.txt'] }));
    expect(hidden.output).not.toMatch(/PRIVATE NOTES/);
    const strict = sandboxed(home, { read: 'project', allow_read: [shared] });
    const result = await run(bashTool, { command: `cat README.md ${shared}/lib.txt; cat ${home.home}/notes.txt 2>&1; ls ${home.root} 2>&1; ${NODE} -e "console.log('node runs')"; touch /made-at-root 2>&1; echo end` }, strict);
    expect(result.output).toMatch(/^hello\nSHARED LIB\n/);
    expect(result.output).not.toMatch(/PRIVATE NOTES/);
    expect(result.output).toMatch(/No such file or directory/);
    expect(result.output).toMatch(/node runs/);
    expect(result.output).toMatch(/Read-only file system/);
    expect(result.output).toMatch(/end$/m);
  });
});
