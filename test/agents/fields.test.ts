// Every front-matter key of an agent file is either acted on or named in a load warning for
// that file (issue 39 item 5): the fixtures in test/fixtures/agent-fields (every field of
// Claude Code's sub-agent files, OpenCode's style, fields no format has) and the built-ins.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAgents, type AgentWarning } from '../../src/core/agents/index.js';
import { readFrontMatter } from '../../src/core/frontmatter.js';
import { ProjectNarrowing } from '../../src/core/trust/narrow.js';

const REPO = join(import.meta.dirname, '..', '..');
const BUILTIN_DIR = join(REPO, 'agents');
const FIXTURES = join(REPO, 'test', 'fixtures', 'agent-fields');

/** Keys the loader acts on; `permissionMode` is the permission modes' (DESIGN §26). */
const ACTED_ON = new Set([
  'name', 'description', 'mode', 'model', 'temperature', 'top_p', 'tools', 'disallowedTools', 'permission', 'permissionMode',
  'max_turns', 'steps', 'maxTurns', 'maxSteps', 'color', 'hidden', 'disable', 'disabled', 'isolation', 'sandbox', 'runner',
  'skills', 'memory', 'background', 'mcpServers', 'hooks', 'effort',
]);

let root: string;
let project: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'oci-agent-fields-'));
  project = join(root, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(project, '.claude'), { recursive: true });
  cpSync(FIXTURES, join(project, '.claude', 'agents'), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function load() {
  return loadAgents({ builtinDir: BUILTIN_DIR, configDir: join(root, 'config'), cwd: project, configAgents: {} });
}

function frontMatterKeys(file: string): string[] {
  const read = readFrontMatter(readFileSync(file, 'utf8'));
  if (!read.ok) throw new Error(`${file}: ${read.reason}`);
  return Object.keys(read.data);
}

function warningsOf(warnings: AgentWarning[], file: string): string[] {
  return warnings.filter((w) => w.source === file).map((w) => w.message);
}

describe('agent file fields', () => {
  it('acts on or names in a warning every front-matter key of every file: zero silent drops', () => {
    const { warnings } = load();
    const files = [
      ...readdirSync(BUILTIN_DIR).map((name) => join(BUILTIN_DIR, name)),
      ...readdirSync(FIXTURES).map((name) => join(project, '.claude', 'agents', name)),
    ];
    const silent: string[] = [];
    const seen = new Set<string>();
    for (const file of files) {
      const messages = warningsOf(warnings, file);
      for (const key of frontMatterKeys(file)) {
        seen.add(key);
        const warned = messages.some((m) => m.includes(`"${key}`));
        if (!ACTED_ON.has(key) && !warned) silent.push(`${file}: ${key}`);
      }
    }
    expect(silent).toEqual([]);
    // The fixtures do carry every field of Claude Code's sub-agent files.
    for (const key of ['name', 'description', 'tools', 'disallowedTools', 'model', 'permissionMode', 'maxTurns', 'skills', 'mcpServers', 'hooks', 'memory', 'background', 'isolation', 'color', 'effort', 'disabled']) {
      expect(seen).toContain(key);
    }
  });

  it('applies every Claude Code field it acts on, and names the rest with the file', () => {
    const { agents, warnings } = load();
    const file = join(project, '.claude', 'agents', 'every-field.md');
    const agent = agents.get('every-field')!;
    expect(agent).toMatchObject({ mode: 'subagent', model: 'haiku', maxTurns: 7, skills: ['code-style'], memory: 'project', background: true, isolation: 'worktree', color: 'cyan', disable: false, effort: 'high' });
    // `mcpServers: [github, …]` keeps the configured server's tools on its list; `local` is its own server.
    expect(agent.tools).toEqual(['read', 'grep', 'glob', 'bash', 'task', 'mcp__github__*', 'mcp__local__*']);
    expect(agent.mcpServers).toEqual({ local: { type: 'local', command: ['node', 'server.mjs'] } });
    expect(agent.disabledTools).toEqual(['bash']);
    expect(agent.permission).toEqual({ task: { '*': 'deny', explore: 'allow' } });
    // Its model (haiku) takes no effort setting: said with the file, as the model is its own.
    expect(warningsOf(warnings, file)).toEqual(['"effort: high" is not applied: anthropic/claude-haiku-4-5 takes no effort setting.']);
    // `hooks:` is read as a settings file's hooks, and runs in this agent's sessions only.
    expect(agent.hooks?.PreToolUse?.[0]?.hooks).toEqual([{ command: './check.sh', timeoutSeconds: 60, source: file }]);
  });

  it('names unknown keys and a memory scope that does not exist; reads maxSteps and disabled', () => {
    const { agents, warnings } = load();
    const file = join(project, '.claude', 'agents', 'odd-fields.md');
    expect(agents.get('odd-fields')).toMatchObject({ maxTurns: 3 });
    expect(agents.get('odd-fields')!.memory).toBeUndefined();
    expect(warningsOf(warnings, file)).toEqual([
      'ignoring "memory: everywhere": expected user, project or local, so it has no memory folder.',
      'ignoring unknown field "reasoningEffort" (not a field of Claude Code\'s or OpenCode\'s agent files).',
      'ignoring unknown field "favouriteColour" (not a field of Claude Code\'s or OpenCode\'s agent files).',
    ]);
  });

  it('disallowedTools takes tools away after tools, turns scopes into deny rules and names unknown tools', () => {
    const file = join(project, '.claude', 'agents', 'careful.md');
    const text = readFileSync(join(FIXTURES, 'every-field.md'), 'utf8')
      .replace('name: every-field', 'name: careful')
      .replace('disallowedTools: Bash', 'disallowedTools: [Write, "Bash(rm:*)", "mcp__github__*", Teleport, "Agent(general)"]')
      .replace('tools: Read, Grep, Glob, Bash, Agent(explore)', 'tools: "*"');
    writeAgent(file, text);
    const { agents, warnings } = load();
    const agent = agents.get('careful')!;
    expect(agent.tools).toBeUndefined();
    expect(agent.disabledTools).toEqual(['write', 'mcp__github__*']);
    expect(agent.permission).toEqual({ bash: { rm: 'deny', 'rm *': 'deny' }, task: { general: 'deny' } });
    expect(warnings.find((w) => w.source === file && w.unknownTools)?.unknownTools).toEqual(['Teleport']);
  });

  it('an untrusted project cannot give an agent a memory folder, nor keep disallowedTools from narrowing', () => {
    const narrowing = new ProjectNarrowing(project);
    const { agents } = loadAgents({ builtinDir: BUILTIN_DIR, configDir: join(root, 'config'), cwd: project, configAgents: {}, narrowing });
    const agent = agents.get('every-field')!;
    expect(agent.memory).toBeUndefined();
    expect(agent.disabledTools).toEqual(['bash']);
    expect(narrowing.ignored).toContain('agent every-field memory (.claude/agents/every-field.md)');
    // Hooks are commands run outside any sandbox: an untrusted file cannot add them.
    expect(narrowing.ignored).toContain('agent every-field hooks (.claude/agents/every-field.md)');
    expect(agents.get('every-field')!.hooks).toBeUndefined();
    // Its own MCP server would be a program started on this machine.
    expect(narrowing.ignored).toContain('agent every-field mcpServers.local (.claude/agents/every-field.md)');
    expect(agent.mcpServers).toBeUndefined();
  });

  it('reads every form of mcpServers Claude Code writes, and names what it cannot read', () => {
    const file = join(project, '.claude', 'agents', 'servers.md');
    writeAgent(
      file,
      [
        '---',
        'description: servers',
        'tools: Read',
        'mcpServers:',
        '  - github',
        '  - notes:',
        '      command: node',
        '      args: [notes.mjs, "${OCI_AGENT_FIELDS_UNSET:-fallback}"]',
        '      env: { LEVEL: "2" }',
        '  - web:',
        '      type: http',
        '      url: https://example.com/mcp',
        '      headers: { X-Team: core }',
        '  - broken:',
        '      args: [no-command]',
        '  - "bad name": { command: node }',
        '  - 42',
        '---',
        'body',
      ].join('\n'),
    );
    writeAgent(join(project, '.claude', 'agents', 'mapped.md'), '---\ndescription: mapped\nmcpServers:\n  solo: { command: solo-server }\n---\nbody\n');
    writeAgent(join(project, '.claude', 'agents', 'loud.md'), '---\ndescription: loud\neffort: Maximum\n---\nbody\n');
    const { agents, warnings } = load();
    const agent = agents.get('servers')!;
    expect(agent.mcpServers).toEqual({
      notes: { type: 'local', command: ['node', 'notes.mjs', 'fallback'], environment: { LEVEL: '2' } },
      web: { type: 'remote', url: 'https://example.com/mcp', transport: 'http', headers: { 'X-Team': 'core' } },
    });
    expect(agent.tools).toEqual(['read', 'mcp__github__*', 'mcp__notes__*', 'mcp__web__*']);
    expect(warningsOf(warnings, file)).toEqual([
      'ignoring the server "broken" of "mcpServers": expected {"command", "args", "env"} or {"type": "http"|"sse", "url", "headers"}.',
      'ignoring the server "bad name" of "mcpServers": a server\'s name may hold only letters, digits, ".", "_" and "-".',
      'ignoring the entry 42 of "mcpServers": expected a server\'s name or { <name>: { command, args, env } }.',
    ]);
    expect(agents.get('mapped')!.mcpServers).toEqual({ solo: { type: 'local', command: ['solo-server'] } });
    expect(agents.get('loud')!.effort).toBeUndefined();
    expect(warningsOf(warnings, join(project, '.claude', 'agents', 'loud.md'))).toEqual(['ignoring "effort: Maximum": expected low, medium, high, xhigh, max.']);
  });

  it('disabled: true disables the agent, as disable does', () => {
    const file = join(project, '.claude', 'agents', 'off.md');
    writeAgent(file, '---\ndescription: off\ndisabled: true\n---\nbody\n');
    expect(load().agents.get('off')!.disable).toBe(true);
  });
});

function writeAgent(file: string, text: string): void {
  writeFileSync(file, text);
}
