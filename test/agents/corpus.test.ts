// Real Claude Code sub-agent files load with zero silent drops (issue 39 item 5). The corpus
// (test/fixtures/agent-corpus/corpus.json, see SOURCE.md there) holds the front matter of
// hundreds of agent files from public collections, prose replaced by placeholders of the same
// YAML form. Each entry is written as an agent file into a project of its collection and loaded
// through loadAgents: every file loads or is named in a warning, and every front-matter key is
// acted on or named in a warning for that file.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAgents, NO_DESCRIPTION_WARNING, type AgentDefinition, type AgentWarning } from '../../src/core/agents/index.js';
import { readFrontMatter } from '../../src/core/frontmatter.js';
import { rulesFromConfig } from '../../src/core/permission/rules.js';
import { selectToolNames } from '../../src/core/subagents/index.js';

const REPO = join(import.meta.dirname, '..', '..');
const BUILTIN_DIR = join(REPO, 'agents');
const CORPUS_FILE = join(REPO, 'test', 'fixtures', 'agent-corpus', 'corpus.json');
const FORMS_FIXTURE = join(REPO, 'test', 'fixtures', 'agent-fields', 'claude-forms.md');

/** Keys the loader acts on (as in fields.test.ts); any other key must be named in a warning. */
const ACTED_ON = new Set([
  'name', 'description', 'mode', 'model', 'temperature', 'top_p', 'tools', 'disallowedTools', 'permission', 'permissionMode',
  'max_turns', 'steps', 'maxTurns', 'maxSteps', 'color', 'hidden', 'disable', 'disabled', 'isolation', 'sandbox', 'runner',
  'skills', 'memory', 'background', 'mcpServers', 'hooks',
]);

interface CorpusEntry {
  repo: string;
  path: string;
  commit: string;
  /** The front matter block as the file had it, prose replaced. */
  frontMatter: string;
  /** Set when the file wrote its `---` block indented after blank lines. */
  layout?: { indent: number; leadingBlankLines: number };
}

interface Corpus {
  sources: { repo: string; commit: string; licence: string }[];
  keysSeen: string[];
  entries: CorpusEntry[];
}

const corpus = JSON.parse(readFileSync(CORPUS_FILE, 'utf8')) as Corpus;

/** The file as its author laid it out, with a short body of our own. */
function agentFileText(entry: CorpusEntry): string {
  const body = '\nYou are a placeholder agent for a loader test.\n';
  if (!entry.layout) return `---\n${entry.frontMatter}\n---\n${body}`;
  const pad = ' '.repeat(entry.layout.indent);
  const block = ['---', ...entry.frontMatter.split('\n'), '---'].map((line) => (line === '' ? line : pad + line));
  return `${'\n'.repeat(entry.layout.leadingBlankLines)}${block.join('\n')}\n${body}`;
}

interface Written {
  entry: CorpusEntry;
  file: string;
}

let root: string;
const written: Written[] = [];
const agentsBySource = new Map<string, AgentDefinition>();
const warnings: AgentWarning[] = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'oci-agent-corpus-'));
  // One project per collection, as its users would have it: one `.claude/agents` folder.
  corpus.sources.forEach((source, index) => {
    const project = join(root, `project-${index}`);
    const dir = join(project, '.claude', 'agents');
    mkdirSync(join(project, '.git'), { recursive: true });
    mkdirSync(dir, { recursive: true });
    const taken = new Set<string>();
    for (const entry of corpus.entries.filter((e) => e.repo === source.repo)) {
      // Collections keep agents in sub-folders; a flat folder needs a unique file name.
      let name = basename(entry.path);
      if (taken.has(name)) name = entry.path.replaceAll('/', '--');
      taken.add(name);
      const file = join(dir, name);
      writeFileSync(file, agentFileText(entry));
      written.push({ entry, file });
    }
    const loaded = loadAgents({ builtinDir: BUILTIN_DIR, configDir: join(root, 'config'), cwd: project, configAgents: {} });
    for (const agent of loaded.agents.values()) agentsBySource.set(agent.source, agent);
    warnings.push(...loaded.warnings);
  });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function warningsOf(file: string): string[] {
  return warnings.filter((w) => w.source === file).map((w) => w.message);
}

describe('the corpus of real agent files', () => {
  it('holds at least 158 files from several authors, each with its source and commit', () => {
    expect(corpus.entries.length).toBeGreaterThanOrEqual(158);
    expect(new Set(corpus.entries.map((e) => e.repo.split('/')[0])).size).toBeGreaterThanOrEqual(4);
    const commits = new Map(corpus.sources.map((s) => [s.repo, s.commit]));
    for (const entry of corpus.entries) expect(entry.commit, `${entry.repo}:${entry.path}`).toBe(commits.get(entry.repo));
  });

  it('lists every front-matter key it holds, so a new key fails this test until the loader handles it', () => {
    const keys = new Set<string>();
    for (const entry of corpus.entries) {
      const read = readFrontMatter(agentFileText(entry).trimStart());
      if (read.ok) for (const key of Object.keys(read.data)) keys.add(key);
    }
    expect([...keys].sort()).toEqual(corpus.keysSeen);
  });

  it('loads every file, each as written: no file is refused, none dropped in silence', () => {
    const refused: string[] = [];
    const silent: string[] = [];
    for (const { entry, file } of written) {
      const agent = agentsBySource.get(file);
      const messages = warningsOf(file);
      if (messages.some((m) => m.startsWith('skipped:'))) refused.push(`${entry.repo}:${entry.path}: ${messages.join(' ')}`);
      if (!agent && messages.length === 0) silent.push(`${entry.repo}:${entry.path}`);
    }
    expect(silent).toEqual([]);
    // Claude Code loads all of them; so must we.
    expect(refused).toEqual([]);
  });

  it('acts on every front-matter key of every file or names it in a warning for that file', () => {
    const silent: string[] = [];
    for (const { entry, file } of written) {
      const read = readFrontMatter(readFileSync(file, 'utf8'));
      if (!read.ok) continue;
      const messages = warningsOf(file);
      for (const key of Object.keys(read.data)) {
        if (!ACTED_ON.has(key) && !messages.some((m) => m.includes(`"${key}`))) silent.push(`${entry.repo}:${entry.path}: ${key}`);
      }
    }
    expect(silent).toEqual([]);
  });

  it('applies what each file says: name, description, model, memory, maxTurns, disallowedTools, hooks, colour and tools', () => {
    const wrong: string[] = [];
    for (const { entry, file } of written) {
      const read = readFrontMatter(readFileSync(file, 'utf8'));
      const agent = agentsBySource.get(file);
      if (!read.ok || !agent) continue;
      const fields = read.data;
      const where = `${entry.repo}:${entry.path}`;
      const messages = warningsOf(file);
      if (typeof fields.name === 'string' && agent.name !== fields.name) wrong.push(`${where}: name ${agent.name}`);
      if (typeof fields.description === 'string' && agent.description !== fields.description) wrong.push(`${where}: description`);
      if (fields.model !== undefined && agent.model !== fields.model) wrong.push(`${where}: model ${agent.model}`);
      if (fields.memory !== undefined && agent.memory !== fields.memory) wrong.push(`${where}: memory ${agent.memory}`);
      if (fields.maxTurns !== undefined && agent.maxTurns !== fields.maxTurns) wrong.push(`${where}: maxTurns ${agent.maxTurns}`);
      if (fields.disallowedTools !== undefined && agent.disabledTools === undefined) wrong.push(`${where}: disallowedTools`);
      if (fields.hooks !== undefined && agent.hooks === undefined) wrong.push(`${where}: hooks`);
      if (fields.color !== undefined && agent.color === undefined && !messages.some((m) => m.includes('"color'))) wrong.push(`${where}: color`);
      // A tools list gives the agent those tools, or the file says which names it could not give.
      if (fields.tools !== undefined && agent.tools === undefined && messages.length === 0) wrong.push(`${where}: tools`);
    }
    expect(wrong).toEqual([]);
  });

  it('names a file whose front-matter block is indented or after blank lines, rather than loading it as if it had no fields', () => {
    const misplaced = written.filter(({ entry }) => entry.layout);
    expect(misplaced.length).toBeGreaterThan(0);
    for (const { file } of misplaced) {
      expect(warningsOf(file)).toEqual([
        'its "---" front-matter block does not start the file at the first line, unindented, so none of its fields (name, description, tools, …) is read and the whole file is the prompt.',
        NO_DESCRIPTION_WARNING,
      ]);
    }
  });

  it('gives every tool the corpus names that has an equivalent here, and names only the others', () => {
    const unknown = new Set(warnings.flatMap((w) => w.unknownTools ?? []));
    // Plugin and agent names written as tools, Claude Code's notebook editor and its deferred-tool search,
    // which this program has no counterpart for (its team set-up tools are `task` and `send_message` here).
    expect([...unknown].sort()).toEqual([
      'NotebookEdit', 'Playwright', 'ToolSearch', 'airis-mcp-gateway', 'chrome-mcp', 'computer-use', 'context-manager',
      'error-coordinator', 'pied-piper', 'subagent-catalog:fetch', 'subagent-catalog:search',
    ]);
  });

  it('takes the models the corpus names: Claude Code aliases, inherit and full ids', () => {
    const models = new Set(written.map(({ file }) => agentsBySource.get(file)?.model).filter((m) => m !== undefined));
    for (const model of ['sonnet', 'opus', 'haiku', 'inherit']) expect(models).toContain(model);
  });
});

describe('the forms Claude Code agent files are written in', () => {
  let project: string;
  beforeAll(() => {
    project = join(root, 'forms');
    mkdirSync(join(project, '.git'), { recursive: true });
    mkdirSync(join(project, '.claude', 'agents'), { recursive: true });
  });

  function load(name: string, text: string) {
    const file = join(project, '.claude', 'agents', `${name}.md`);
    writeFileSync(file, text);
    const loaded = loadAgents({ builtinDir: BUILTIN_DIR, configDir: join(root, 'config'), cwd: project, configAgents: {} });
    rmSync(file);
    return { agent: loaded.agents.get(name), warnings: loaded.warnings.filter((w) => w.source === file).map((w) => w.message) };
  }

  it('reads YAML lists, a folded description, inherit and a colour of Claude Code\'s palette', () => {
    const { agent, warnings } = load('claude-forms', readFileSync(FORMS_FIXTURE, 'utf8'));
    expect(warnings).toEqual([]);
    expect(agent).toMatchObject({ model: 'inherit', maxTurns: 12, skills: ['code-style'], background: false, isolation: 'worktree', memory: 'local' });
    expect(agent!.description).toMatch(/^Written in the YAML forms[\s\S]*<example>[\s\S]*<\/example>$/);
    expect(agent!.tools).toEqual(['read', 'grep', 'bash']);
    expect(agent!.disabledTools).toEqual(['bash']);
    // Purple is a Claude Code colour the terminal has no name for: drawn as its hue.
    expect(agent!.color).toBe('#af87ff');
    expect(agent!.hooks?.Stop?.[0]?.hooks[0]).toMatchObject({ command: './done.sh' });
  });

  it('takes colour names in any case and #hex, and names a colour it cannot draw', () => {
    const colour = (value: string) => load('tinted', `---\ndescription: d\ncolor: "${value}"\n---\nbody\n`);
    expect(colour('Blue').agent!.color).toBe('blue');
    expect(colour('cyanbright').agent!.color).toBe('cyanBright');
    expect(colour('#FF5733').agent!.color).toBe('#FF5733');
    expect(colour('orange').agent!.color).toBe('#ff8700');
    const unknown = colour('chartreuse-ish');
    expect(unknown.agent!.color).toBeUndefined();
    expect(unknown.warnings).toEqual(['ignoring "color: chartreuse-ish": expected a colour name (red, green, yellow, blue, magenta, cyan, purple, orange, pink, gray, …) or a #rrggbb hex.']);
  });

  it('reads a description that starts with markdown bold, as collections write them, printing nothing', async () => {
    const printed: string[] = [];
    const onWarning = (warning: Error) => printed.push(warning.message);
    process.on('warning', onWarning);
    try {
      const { agent, warnings } = load('bold', '---\nname: bold\ndescription: **Reviewer**: checks code. Use when: asked.\ntools: Read\n---\nbody\n');
      expect(warnings).toEqual([]);
      expect(agent!.description).toBe('**Reviewer**: checks code. Use when: asked.');
      // Process warnings are emitted on a later tick: let them arrive before looking.
      await new Promise<void>((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    // The YAML library's warnings would go to the program's stderr, over the TUI.
    expect(printed).toEqual([]);
  });

  it('names a sub-agent file with no description, which Claude Code would skip', () => {
    // A heading first, then a `---` block: no front matter at all.
    const headed = load('headed', '# Reviewer\n\nReviews code.\n\n---\nmodel: sonnet\n---\n\nBe brief.\n');
    expect(headed.agent!.description).toBe('');
    expect(headed.warnings).toEqual([NO_DESCRIPTION_WARNING]);
    expect(load('blank', '---\nname: blank\ndescription: "  "\n---\nbody\n').warnings).toEqual([NO_DESCRIPTION_WARNING]);
    expect(load('described', '---\ndescription: Reviews code.\n---\nbody\n').warnings).toEqual([]);
  });

  it('reads SendMessage as the team\'s send_message, and disallowedTools: SendMessage takes it from a team member', () => {
    const listed = load('messenger', '---\ndescription: d\ntools: Read, SendMessage\n---\nbody\n');
    expect(listed.warnings).toEqual([]);
    expect(listed.agent!.tools).toEqual(['read', 'send_message']);
    const muted = load('muted', '---\ndescription: d\ndisallowedTools: SendMessage\n---\nbody\n').agent!;
    // A team member is given send_message past its allowlist (subagents/gates.ts): the deny rule is what takes it away.
    const gate = (agent: AgentDefinition) =>
      selectToolNames({ available: ['read', 'send_message', 'ask_user'], agent, chain: [rulesFromConfig(agent.permission)], depth: 1, maxDepth: 2 }).names;
    expect(gate(muted)).toEqual(['read', 'ask_user']);
    expect(gate(listed.agent!)).toEqual(['read', 'send_message', 'ask_user']);
  });
});
