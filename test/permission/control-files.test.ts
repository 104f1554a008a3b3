// Which paths are the program's control files: after symlinks and `..`, at any depth of the
// project, the user's own folders included, and what a bash line writes to them.
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { analyzeBash } from '../../src/core/permission/bash-match.js';
import { controlFileAt, controlFilesOfShell } from '../../src/core/permission/control-files.js';
import { makeTempDir, removeDir, writeTree } from '../tools/context.js';

let root: string;
let project: string;
let env: NodeJS.ProcessEnv;
afterEach(() => removeDir(root));

function setup(): void {
  root = makeTempDir('oci-control-');
  project = path.join(root, 'project');
  writeTree(project, { '.git/config': '[core]\n', 'src/a.ts': 'a\n', 'sub/.git/HEAD': 'ref\n' });
  env = { HOME: root, OPENCODE_INK_CONFIG_DIR: path.join(root, 'config'), OPENCODE_INK_DATA_DIR: path.join(root, 'data'), XDG_CONFIG_HOME: path.join(root, 'xdg') };
}

const at = (target: string, cwd = project) => controlFileAt(target, cwd, env);

describe('controlFileAt', () => {
  it('names each control file of the project and what it controls', async () => {
    setup();
    const cases: Array<[string, RegExp]> = [
      ['.opencoderc.json', /opencode-ink's project configuration/],
      ['.opencode/agents/x.md', /opencode-ink's agents/],
      ['.opencode/commands/x.md', /opencode-ink's agents, commands/],
      ['.claude/settings.json', /Claude Code's/],
      ['.claude/agents/x.md', /Claude Code's/],
      ['.mcp.json', /MCP servers/],
      ['.git/hooks/pre-commit', /^git$/],
      ['.git/config', /^git$/],
    ];
    for (const [file, controls] of cases) {
      const found = await at(file);
      expect(found, file).toBeDefined();
      expect(found!.path).toBe(file);
      expect(found!.controls).toMatch(controls);
    }
  });

  it('finds them at any depth, through `..`, and by their real path behind a symlink', async () => {
    setup();
    expect(await at('sub/.git/config')).toMatchObject({ path: 'sub/.git/config', controls: 'git' });
    expect(await at('sub/deeper/.claude/settings.json')).toMatchObject({ path: 'sub/deeper/.claude/settings.json' });
    expect(await at('pkg/.mcp.json')).toMatchObject({ path: 'pkg/.mcp.json' });
    expect(await at('src/../.git/hooks/post-checkout')).toMatchObject({ path: '.git/hooks/post-checkout' });
    expect(await at(path.join(project, '.opencoderc.json'))).toMatchObject({ path: '.opencoderc.json' });
    symlinkSync('.git/config', path.join(project, 'innocent.txt'));
    symlinkSync('.git/hooks', path.join(project, 'scripts'));
    expect(await at('innocent.txt')).toMatchObject({ path: '.git/config', controls: 'git' });
    expect(await at('scripts/pre-push')).toMatchObject({ path: '.git/hooks/pre-push' });
    // A file named `.git` points git at another repository.
    expect(await at('sub/.git')).toMatchObject({ controls: 'git' });
  });

  it('matches control folders and names whatever their case, as case-insensitive file systems (macOS, Windows) open them', async () => {
    setup();
    const cases: Array<[string, RegExp]> = [
      ['.Claude/settings.json', /Claude Code's/],
      ['.GIT/config', /^git$/],
      ['.OpenCode/x', /opencode-ink's agents/],
      ['sub/.Git/hooks/pre-commit', /^git$/],
      ['.MCP.json', /MCP servers/],
      ['.OpencodeRC.json', /project configuration/],
    ];
    for (const [file, controls] of cases) expect(await at(file), file).toMatchObject({ path: file, controls: expect.stringMatching(controls) });
  });

  it('leaves ordinary files alone, instructions files and look-alike names included', async () => {
    setup();
    for (const file of ['src/a.ts', 'AGENTS.md', 'CLAUDE.md', '.gitignore', '.github/workflows/ci.yml', 'docs/.git-notes.md', 'opencoderc.json', 'x.mcp.json']) {
      expect(await at(file), file).toBeUndefined();
    }
  });

  it("guards the user's config and data dirs and OpenCode's user folder, outside the project too", async () => {
    setup();
    expect(await at(path.join(root, 'config', 'config.json'))).toMatchObject({ controls: "opencode-ink's user configuration" });
    expect(await at(path.join(root, 'data', 'trust.json'))).toMatchObject({ controls: expect.stringMatching(/trust/) });
    expect(await at(path.join(root, 'xdg', 'opencode', 'agents', 'x.md'))).toMatchObject({ controls: expect.stringMatching(/OpenCode/) });
    expect(await at(path.join(root, '.claude', 'settings.json'))).toMatchObject({ controls: expect.stringMatching(/Claude Code/) });
    expect(await at(path.join(root, 'elsewhere', 'notes.txt'))).toBeUndefined();
  });

  it('lets a session working in a tree inside the data dir (a worktree) change that tree, but not its .git', async () => {
    setup();
    const worktree = path.join(root, 'data', 'worktrees', 'child');
    mkdirSync(path.join(worktree, 'src'), { recursive: true });
    expect(await at('src/a.ts', worktree)).toBeUndefined();
    expect(await at('.git', worktree)).toMatchObject({ path: '.git', controls: 'git' });
    expect(await at(path.join(root, 'data', 'sessions.db'), worktree)).toMatchObject({ controls: expect.stringMatching(/sessions/) });
  });

  it('judges only the part of the path below the project (a project inside a .claude folder)', async () => {
    setup();
    const nested = path.join(root, 'repo', '.claude', 'worktrees', 'feature');
    mkdirSync(nested, { recursive: true });
    expect(await at('src/a.ts', nested)).toBeUndefined();
    expect(await at('.claude/settings.json', nested)).toMatchObject({ path: '.claude/settings.json' });
  });
});

describe('controlFilesOfShell', () => {
  const written = async (command: string) => (await controlFilesOfShell(await analyzeBash(command), command, project, env)).map((f) => f.path);

  it('sees redirections and tee into control files, wherever the line cds', async () => {
    setup();
    expect(await written('echo x > .git/hooks/pre-commit')).toEqual(['.git/hooks/pre-commit']);
    expect(await written('echo \'{"permission":{"bash":"allow"}}\' >> .opencoderc.json')).toEqual(['.opencoderc.json']);
    expect(await written('cat servers.json | tee .mcp.json')).toEqual(['.mcp.json']);
    expect(await written('printf x | sudo tee -a .claude/settings.json > /dev/null')).toEqual(['.claude/settings.json']);
    expect(await written('cd .git && echo "[core] fsmonitor = x" >> config')).toEqual(['.git/config']);
    expect(await written('git status &> sub/.git/config')).toEqual(['sub/.git/config']);
    expect(await written('echo x > "$PWD/.git/config"')).toHaveLength(1);
  });

  it('finds nothing in lines that write elsewhere or only read', async () => {
    setup();
    expect(await written('echo x > out.txt 2>&1')).toEqual([]);
    expect(await written('cat .git/config > copy.txt')).toEqual([]);
    expect(await written('git status')).toEqual([]);
    expect(await written('cp .git/config copy.txt && mv a.txt b.txt && touch src/new.ts')).toEqual([]);
    expect(await written('git config user.name && git config --get core.fsmonitor && git config --list')).toEqual([]);
    expect(await written('sed -n 1p .mcp.json && echo x > "$HOME/notes.txt" && tee ~/log.txt < .opencoderc.json')).toEqual([]);
  });

  it('sees the programs that write the files they name, git config among them', async () => {
    setup();
    expect(await written('cp evil.json .mcp.json')).toEqual(['.mcp.json']);
    expect(await written('cp -r settings.json .claude')).toEqual(['.claude', '.claude/settings.json']);
    expect(await written('cp x/.mcp.json .')).toEqual(['.mcp.json']);
    expect(await written('cp evil.md ".claude/agents/a b.md"')).toContain('.claude/agents/a b.md');
    expect(await written('cp -t .git/hooks pre-commit')).toEqual(['.git/hooks', '.git/hooks/pre-commit']);
    expect(await written('mv .opencoderc.json old.json')).toContain('.opencoderc.json');
    expect(await written('ln -sf /tmp/evil .git/hooks/post-checkout')).toContain('.git/hooks/post-checkout');
    expect(await written('rm -f .claude/settings.local.json')).toEqual(['.claude/settings.local.json']);
    // A hard link to a control file would let a later `>> notes.txt` write it unseen.
    expect(await written('ln .git/config notes.txt')).toContain('.git/config');
    expect(await written('cp -l .mcp.json notes.txt')).toContain('.mcp.json');
    expect(await written('chmod +x .git/hooks/pre-push')).toEqual(['.git/hooks/pre-push']);
    expect(await written("sed -i 's/ask/allow/' .opencoderc.json")).toEqual(['.opencoderc.json']);
    expect(await written('perl -pi -e s/a/b/ .mcp.json')).toEqual(['.mcp.json']);
    expect(await written('dd if=x of=.mcp.json')).toEqual(['.mcp.json']);
    expect(await written("git config core.fsmonitor 'touch PWNED'")).toEqual(['.git/config']);
    expect(await written("git config -z --show-scope core.fsmonitor 'touch PWNED'")).toEqual(['.git/config']);
    expect(await written('git -C sub config --unset core.bare')).toEqual(['sub/.git/config']);
    expect(await written('git config --file .gitmodules submodule.x.url y')).toEqual([]);
    expect(await written('git config -f .opencode/x core.a b')).toEqual(['.opencode/x']);
  });

  it('judges a name known only when the line runs by every control file it could spell', async () => {
    setup();
    expect(await written('echo x | tee "$PWD/.mcp.json"')).toEqual(['.mcp.json']);
    expect(await written('cd sub && echo x > "${PWD}/.opencoderc.json"')).toContain('sub/.opencoderc.json');
    const guessed = async (command: string) => (await written(command)).map((p) => p.replace(/ \(a name only known when the line runs\)$/, ''));
    expect(await guessed('echo x > .gi?/config')).toEqual(['.gi?/config']);
    expect(await guessed('echo x | tee .mcp.*')).toEqual(['.mcp.*']);
    expect(await guessed('echo x | tee .[c]laude/settings.json')).toEqual(['.[c]laude/settings.json']);
    expect(await guessed('echo x | tee "$F"')).toEqual(['"$F"']);
    expect(await guessed('echo x | tee $(cat name.txt)')).toEqual([expect.stringMatching(/^\$\(cat/)]);
    expect(await guessed('cp evil "$D/config"')).toContain('"$D/config"');
    // A line that sets HOME itself may point it anywhere.
    expect(await guessed('HOME=.git; echo x > "$HOME/config"')).toEqual(['"$HOME/config"']);
    // As in bash, a glob spells a leading dot only literally, unless the line turns dotglob on.
    expect(await guessed('rm -rf dist/* && chmod +x scripts/*.sh && echo x > ?git/config')).toEqual([]);
    expect(await guessed('shopt -s dotglob; rm -rf *')).toEqual(['*']);
    expect(await guessed('echo x > .git?ignore')).toEqual([]);
    expect(await guessed('echo x > [ab].txt')).toEqual([]);
  });
});
