// The README and docs/ name the files and folders the code reads, and install commands that
// work (issue 40, item 8). Every expectation is derived from the code's own constants and
// functions, so a rename in the code fails here until the docs follow.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentFolders } from '../../src/core/agents/index.js';
import { USER_MEMORY_FOLDER } from '../../src/core/agents/memory.js';
import { commandFolders } from '../../src/core/commands/load.js';
import { configDir, dataDir, peerUserDirs } from '../../src/core/config/paths.js';
import { GLOBAL_CONFIG_FILE, PROJECT_CONFIG_FILE } from '../../src/core/config/load.js';
import { SESSIONS_DB } from '../../src/core/private-files.js';
import { skillFolders } from '../../src/core/skills/load.js';
import { TRUST_FILE } from '../../src/core/trust/store.js';
import { REPO_ROOT } from '../support/repo-root.js';

const HOME = '/home/someone';
const env = { HOME };
const tilde = (path: string) => `~/${relative(HOME, path)}`;

/** README.md and every Markdown file under docs/, by their path in the repository. */
function docs(): Array<{ name: string; text: string }> {
  const names = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  return names.map((name) => ({ name, text: readFileSync(join(REPO_ROOT, name), 'utf8') }));
}

/** Each match of `pattern` in the docs, with where it is. */
function mentions(pattern: RegExp): Array<{ where: string; match: RegExpExecArray }> {
  return docs().flatMap(({ name, text }) =>
    [...text.matchAll(new RegExp(pattern.source, 'g'))].map((match) => ({ where: `${name}:${text.slice(0, match.index).split('\n').length}`, match: match as RegExpExecArray })),
  );
}

describe('paths named in README.md and docs/', () => {
  const config = configDir(env);
  // What the code reads inside the user's config dir: the config file, and the user's agent, command and skill folders.
  const userFolders = [
    ...agentFolders({ builtinDir: '/builtin', configDir: config, cwd: REPO_ROOT }).map((f) => f.dir),
    ...commandFolders({ configDir: config, cwd: '/nonexistent-project' }).map((f) => f.dir),
    ...skillFolders({ configDir: config, cwd: '/nonexistent-project' }).map((f) => f.dir),
  ].filter((dir) => dir.startsWith(`${config}/`));
  const inConfigDir = new Set([GLOBAL_CONFIG_FILE, USER_MEMORY_FOLDER, ...userFolders.map((dir) => relative(config, dir).split('/')[0]!)]);
  const configSpellings = [tilde(config), '$OPENCODE_INK_CONFIG_DIR', '$XDG_CONFIG_HOME/opencode-ink'];

  it("name the config and data dirs as the code computes them, only the files and folders the code reads there, and the project's config file by its name", () => {
    expect(inConfigDir).toEqual(new Set([GLOBAL_CONFIG_FILE, 'agent-memory', 'agents', 'commands', 'skills']));
    const problems: string[] = [];
    // Any `~/.config/opencode…` must be this program's config dir or OpenCode's (whose agents and commands are read too).
    const known = new Set([tilde(config), tilde(peerUserDirs(env).opencode)]);
    for (const { where, match } of mentions(/~\/\.config\/opencode[\w.-]*/)) {
      if (!known.has(match[0])) problems.push(`${where}: ${match[0]} is not a folder the code reads (config dir: ${tilde(config)})`);
    }
    for (const spelling of configSpellings) {
      const escaped = spelling.replace(/[$.]/g, (c) => `\\${c}`);
      for (const { where, match } of mentions(new RegExp(`${escaped}/([\\w.-]+)`))) {
        if (!inConfigDir.has(match[1]!)) problems.push(`${where}: ${match[0]} — the code reads ${[...inConfigDir].join(', ')} there`);
      }
    }

    const data = tilde(dataDir(env));
    // Other programs' folders (OpenCode's `~/.local/share/opencode`, hidden by the sandbox) are named too: only this one's is checked.
    for (const { where, match } of mentions(/~\/\.local\/share\/opencode[\w.-]*ink[\w.-]*/)) {
      if (match[0] !== data) problems.push(`${where}: ${match[0]} is not the data dir (${data})`);
    }
    const files = new Set([SESSIONS_DB, TRUST_FILE]);
    for (const { where, match } of mentions(/(?:\$OPENCODE_INK_DATA_DIR|~\/\.local\/share\/opencode-ink)\/([\w-]+\.\w+)/)) {
      if (!files.has(match[1]!)) problems.push(`${where}: ${match[0]} — the data dir's files are ${[...files].join(', ')}`);
    }

    for (const { where, match } of mentions(/\.opencoderc[\w.-]*\.json/)) {
      if (match[0] !== PROJECT_CONFIG_FILE && !existsSync(join(REPO_ROOT, match[0]))) problems.push(`${where}: ${match[0]} (the code reads ${PROJECT_CONFIG_FILE})`);
    }
    expect(problems).toEqual([]);
  });
});

describe('install commands in README.md and docs/', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  const tarball = `${pkg.name}-${pkg.version}.tgz`;

  it('install from a clone or the packed tarball, never by a registry name (the package is not published)', () => {
    const problems: string[] = [];
    const installs = mentions(/\bnpm (?:install|i|add)\b([^\n`#;&|]*)/);
    expect(installs.length).toBeGreaterThan(0);
    for (const { where, match } of installs) {
      const targets = match[1]!.trim().split(/\s+/).filter((word) => word && !word.startsWith('-'));
      for (const target of targets) {
        // A folder or file path: `.`, `./…`, `../…`, `/…`, `~/…`, or a placeholder such as `<clone>`.
        if (!/^(?:\.|\.\.|~|\/|<)/.test(target)) problems.push(`${where}: npm install ${target} asks the npm registry, where ${pkg.name} is not published`);
        if (target.endsWith('.tgz') && !target.endsWith(`/${tarball}`) && target !== tarball) problems.push(`${where}: ${target} — npm pack writes ${tarball}`);
      }
    }
    for (const { where, match } of mentions(/[\w-]+-\d+\.\d+\.\d+\.tgz/)) {
      if (match[0] !== tarball) problems.push(`${where}: ${match[0]} — npm pack writes ${tarball}`);
    }
    expect(problems).toEqual([]);
  });
});
