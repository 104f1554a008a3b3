// Custom commands from every location and both ecosystems' formats (DESIGN §10).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCommands } from '../../src/core/commands/index.js';

let dir: string;
let project: string;
let configDir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'oci-commands-'));
  project = join(dir, 'project');
  configDir = join(dir, 'config');
  mkdirSync(join(project, '.git'), { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function put(path: string, text: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe('loadCommands', () => {
  it('reads each location, in both formats', () => {
    put(join(project, '.opencode/commands/a.md'), '---\ndescription: from .opencode/commands\nagent: explore\nsubtask: false\n---\nA $ARGUMENTS\n');
    put(join(project, '.opencode/command/b.md'), '---\ndescription: from .opencode/command\nmodel: anthropic/claude-haiku-4-5\n---\nB\n');
    const claude = put(
      join(project, '.claude/commands/c.md'),
      '---\nallowed-tools: Bash(git diff:*), Read\nargument-hint: <file> [focus]\ndescription: Review: a file\nmodel: haiku\n---\nC $1 $2\n',
    );
    put(join(configDir, 'commands/d.md'), 'D without front-matter\n');
    const { commands, warnings } = loadCommands({
      configDir,
      cwd: project,
      configCommands: { e: { template: 'E $1', description: 'from config', agent: 'plan', subtask: true } },
    });
    expect(warnings).toEqual([]);
    expect(commands.get('a')).toMatchObject({ template: 'A $ARGUMENTS', description: 'from .opencode/commands', agent: 'explore', subtask: false });
    expect(commands.get('b')).toMatchObject({ template: 'B', model: 'anthropic/claude-haiku-4-5' });
    expect(commands.get('c')).toMatchObject({ template: 'C $1 $2', description: 'Review: a file', model: 'haiku', argumentHint: '<file> [focus]', source: claude });
    expect(commands.get('d')).toMatchObject({ template: 'D without front-matter' });
    expect(commands.get('d')!.description).toBeUndefined();
    expect(commands.get('e')).toMatchObject({ template: 'E $1', agent: 'plan', subtask: true, source: 'config' });
  });

  it('lets later locations override earlier ones by name', () => {
    put(join(project, '.opencode/commands/x.md'), 'one');
    put(join(project, '.opencode/command/x.md'), 'two');
    put(join(project, '.opencode/command/y.md'), 'two');
    put(join(project, '.claude/commands/y.md'), 'three');
    put(join(project, '.claude/commands/z.md'), 'three');
    put(join(configDir, 'commands/z.md'), 'four');
    put(join(configDir, 'commands/w.md'), 'four');
    const { commands } = loadCommands({ configDir, cwd: project, configCommands: { w: { template: 'five' } } });
    expect(Object.fromEntries([...commands].map(([k, v]) => [k, v.template]))).toEqual({ x: 'two', y: 'three', z: 'four', w: 'five', init: expect.stringContaining('AGENTS.md') });
  });

  it('prefers a nearer project folder to the git root', () => {
    put(join(project, '.opencode/command/x.md'), 'root');
    const sub = join(project, 'packages/app');
    put(join(sub, '.opencode/command/x.md'), 'nearer');
    const { commands } = loadCommands({ configDir, cwd: sub });
    expect(commands.get('x')!.template).toBe('nearer');
  });

  it('skips a broken file with a warning naming it, and loads the rest', () => {
    const broken = put(join(project, '.opencode/command/broken.md'), '---\ndescription: [unclosed\n---\nbody\n');
    const wrong = put(join(project, '.opencode/command/wrong.md'), '---\nsubtask: sometimes\n---\nbody\n');
    const empty = put(join(project, '.opencode/command/empty.md'), '---\ndescription: nothing\n---\n\n');
    put(join(project, '.opencode/command/fine.md'), 'works');
    const { commands, warnings } = loadCommands({ configDir, cwd: project });
    expect([...commands.keys()]).toEqual(['init', 'fine']);
    expect(warnings.map((w) => w.source).sort()).toEqual([broken, empty, wrong].sort());
    expect(warnings.find((w) => w.source === broken)!.message).toMatch(/^skipped: invalid YAML front-matter/);
    expect(warnings.find((w) => w.source === wrong)!.message).toMatch(/subtask must be true or false \(got "sometimes"\)/);
    expect(warnings.find((w) => w.source === empty)!.message).toMatch(/no template/);
  });

  it('skips a custom command named like a built-in, saying why', () => {
    const file = put(join(project, '.opencode/command/help.md'), 'my help');
    const { commands, warnings } = loadCommands({ configDir, cwd: project });
    expect(commands.has('help')).toBe(false);
    expect(warnings).toEqual([{ source: file, message: expect.stringMatching(/\/help is a built-in command/) }]);
  });
});
