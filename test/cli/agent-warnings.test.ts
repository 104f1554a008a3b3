// A folder of Claude Code agents naming tools we lack: one summary line on stderr at start,
// the details in `opencode-ink agents` (text and JSON); other warnings keep their own line.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';

let ctx: CliProject;

beforeEach(async () => {
  ctx = await startCliProject();
  const dir = join(ctx.project, '.claude', 'agents');
  mkdirSync(dir, { recursive: true });
  // 40 files as Claude Code users write them: 30 name ExitPlanMode, 20 NotebookEdit, one Teleport (no tool of any program).
  for (let i = 0; i < 40; i++) {
    const extra = i % 4 !== 0 ? ['ExitPlanMode', ...(i % 3 === 0 ? ['NotebookEdit'] : [])] : ['NotebookEdit'];
    const tools = ['Read', 'Grep', ...extra, ...(i === 7 ? ['Teleport'] : [])];
    const name = `agent-${String(i).padStart(2, '0')}`;
    writeFileSync(join(dir, `${name}.md`), `---\nname: ${name}\ndescription: Agent number ${i}.\ntools: ${tools.join(', ')}\n---\nYou are agent ${i}.\n`);
  }
  // A file with no unknown tool but a scope we cannot apply, and a broken one.
  writeFileSync(join(dir, 'scoped.md'), '---\nname: scoped\ndescription: Scoped reads.\ntools: Read(src/**), Grep\n---\nRead.\n');
  writeFileSync(join(dir, 'broken.md'), '---\nname: [unclosed\n---\nBody\n');
});

afterEach(() => ctx.close());

const warningLines = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('Warning:'));

describe('agent file warnings', () => {
  it('sum up unknown tools in one line on stderr and keep the other warnings one line each', async () => {
    const result = await runCli(['agents'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(0);
    const lines = warningLines(result.stderr);
    expect(lines[0]).toBe('Warning: 40 agent files name tools this program does not have (e.g. ExitPlanMode, NotebookEdit, Teleport); see `opencode-ink agents`.');
    expect(lines.filter((l) => l.includes('broken.md'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('scoped.md') && l.includes('"Read(src/**)"'))).toHaveLength(1);
    expect(lines).toHaveLength(3);
    expect(result.stderr).not.toContain('agent-07.md');
  });

  it('list every warning in `agents`, and per agent in `agents --json` without changing its shape', async () => {
    const text = await runCli(['agents'], { cwd: ctx.project, env: ctx.env });
    const [, details = ''] = text.stdout.split('\nWarnings:\n');
    const detail = details.split('\n').filter((l) => l.trim().length > 0);
    expect(detail).toHaveLength(42);
    expect(detail.find((l) => l.includes('agent-07.md'))).toMatch(/unknown tools "ExitPlanMode", "Teleport"/);
    expect(detail.some((l) => l.includes('broken.md') && l.includes('skipped'))).toBe(true);

    const json = await runCli(['agents', '--json'], { cwd: ctx.project, env: ctx.env });
    expect(json.code).toBe(0);
    const agents = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(Array.isArray(agents)).toBe(true);
    const seven = agents.find((a) => a.name === 'agent-07')!;
    expect(Object.keys(seven).sort()).toEqual(['description', 'mode', 'model', 'name', 'source', 'tools', 'warnings']);
    expect(seven.warnings).toEqual([expect.stringContaining('"ExitPlanMode", "Teleport"')]);
    expect(agents.find((a) => a.name === 'scoped')!.warnings).toEqual([expect.stringContaining('"Read(src/**)"')]);
    // An agent without warnings keeps exactly the documented keys.
    expect(Object.keys(agents.find((a) => a.name === 'build')!).sort()).toEqual(['description', 'mode', 'model', 'name', 'source', 'tools']);
  });

  it('print the full line when only one file names an unknown tool', async () => {
    const single = await startCliProject();
    try {
      const dir = join(single.project, '.claude', 'agents');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'solo.md'), '---\nname: solo\ndescription: Solo.\ntools: Read, ExitPlanMode\n---\nSolo.\n');
      const result = await runCli(['agents'], { cwd: single.project, env: single.env });
      expect(warningLines(result.stderr)).toEqual([expect.stringMatching(/^Warning: .*solo\.md: ignoring unknown tool "ExitPlanMode"/)]);
    } finally {
      await single.close();
    }
  });
});
