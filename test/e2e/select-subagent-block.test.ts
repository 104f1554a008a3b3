// End-to-end in a real terminal (tmux) with the built binary: three sub-agents each write a
// file; in the parent's view `ctrl+x s ↑ u`, arriving in one write, selects the second block
// (marked `❯` on screen) and asks to revert it; `n` declines, then `uy` in one write removes
// its file alone, and Enter then steps into that sub-agent's view. On a 40x10 terminal the
// hint and the question fit (keys and y/n in view, the prompt's box whole) and `uy` works too.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliProject, type CliProject } from '../support/cli.js';
import { reply, text } from '../support/fake-anthropic.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';
import { startTerm, type Term } from '../support/tmux-cli.js';

const server = tmuxServer(`oci-select-${process.pid}`);
let ctx: CliProject;
let term: Term | undefined;

const NAMES = ['one', 'two', 'three'] as const;

/** Writes `data` to the app in a single write (paste-buffer without -p adds no paste markers). */
function writeOnce(name: string, data: string): void {
  server.run('set-buffer', '-b', 'oci-select', data);
  server.run('paste-buffer', '-d', '-r', '-b', 'oci-select', '-t', name);
}

describe.runIf(hasTmux || process.env.CI)("selecting a sub-agent's block in the terminal", () => {
  beforeAll(async () => {
    ctx = await startCliProject();
  });
  afterAll(async () => {
    term?.kill();
    server.kill();
    await ctx.close();
  });

  it('ctrl+x s ↑ u in one write selects the second of three blocks and, after y, reverts it alone', async () => {
    // One sub-agent after the other, each writing its own file.
    for (const name of NAMES) {
      ctx.server.enqueue(
        reply({ type: 'tool_use', id: `toolu_task_${name}`, name: 'task', input: { description: `Make ${name}`, prompt: `write ${name}.txt`, subagent_type: 'general' } }),
        reply({ type: 'tool_use', id: `toolu_write_${name}`, name: 'write', input: { file_path: `${name}.txt`, content: `${name}\n` } }),
        text(`WROTE-${name}`),
      );
    }
    ctx.server.enqueue(text('PARENT-DONE'));
    term = startTerm(server, ctx, 'select', ['--yes'], { cols: 100, rows: 30 });
    await term.waitFor((s) => s.includes('Ask anything'), 'the prompt');
    term.keys('-l', 'make three files');
    term.keys('Enter');
    const files = NAMES.map((name) => join(ctx.project, `${name}.txt`));
    await term.waitFor((s) => s.includes('PARENT-DONE') && (s.match(/\+1 −0 in 1 file/g) ?? []).length === 3, 'the three sub-agents and the turn to finish', 60_000);
    expect(files.every((f) => existsSync(f))).toBe(true);

    writeOnce(term.name, '\u0018s\u001b[Au');
    const asked = await term.waitFor((s) => /Revert build › general \(Make two\)'s changes to 1 file .*y\/n/.test(s), 'the y/n question for the second block', 30_000);
    expect(asked).toMatch(/^❯ \S general Make two/m);
    expect(asked).toContain('❯ sub-agent 2 of 3 · ↑↓ move · enter open · u revert · o diff · esc done');
    term.keys('n');
    await term.waitFor((s) => !s.includes('y/n'), 'the question to close');
    expect(files.every((f) => existsSync(f))).toBe(true);

    // The `y` arrives with the `u`, before the question is open: it answers it all the same.
    writeOnce(term.name, 'uy');
    await term.waitFor((s) => s.includes('1 file restored (two.txt)'), 'the revert notice', 30_000);
    expect(files.map((f) => existsSync(f))).toEqual([true, false, true]);

    term.keys('Enter');
    const child = await term.waitFor((s) => s.includes('sub-agent session'), "the second sub-agent's view");
    expect(child).toContain('WROTE-two');
  }, 150_000);

  it('on a 40x10 terminal the hint, the selected block and the question fit, and `uy` in one write reverts', async () => {
    term?.kill();
    for (const name of ['four', 'five']) {
      ctx.server.enqueue(
        reply({ type: 'tool_use', id: `toolu_task_${name}`, name: 'task', input: { description: `Make ${name} with a description far wider than the screen`, prompt: `write ${name}.txt`, subagent_type: 'general' } }),
        reply({ type: 'tool_use', id: `toolu_write_${name}`, name: 'write', input: { file_path: `${name}.txt`, content: `${name}\n` } }),
        text(`WROTE-${name}`),
      );
    }
    ctx.server.enqueue(text('SMALL-DONE'));
    term = startTerm(server, ctx, 'small', ['--yes'], { cols: 40, rows: 10 });
    await term.waitFor((s) => s.includes('Ask anything'), 'the prompt');
    term.keys('-l', 'make two files');
    term.keys('Enter');
    await term.waitFor((s) => s.includes('SMALL-DONE'), 'the two sub-agents and the turn to finish', 60_000);
    const four = join(ctx.project, 'four.txt');
    expect(existsSync(four)).toBe(true);

    writeOnce(term.name, '\u0018s\u001b[A');
    const selected = await term.waitFor((s) => s.includes('❯ 1/2 build › general (Make four'), 'the first block selected');
    const rows = selected.split('\n');
    // Which block (cut to the width), then every key on a line of its own; the prompt's box is whole.
    const hint = rows.findIndex((r) => r.startsWith('❯ 1/2 build › general (Make four'));
    expect(rows[hint]).toMatch(/…$/);
    expect(rows[hint + 1]).toBe('↑↓ enter open · u revert · o diff · esc');
    expect(rows[hint + 2]).toMatch(/^╭─+╮$/);
    expect(rows[hint + 3]).toMatch(/^│ build esc to type here +│$/);
    expect(rows[hint + 4]).toMatch(/^╰─+╯$/);
    // The selected block itself, in the scrollback, carries the marker, cut to the width.
    expect(term.history()).toMatch(/^❯ \S general Make four with a desc.*…$/m);

    writeOnce(term.name, 'u');
    const asked = await term.waitFor((s) => /^Revert build › general \(Make four.*… y\/n$/m.test(s), 'the question with its y/n', 30_000);
    expect(asked.split('\n').filter((r) => r.startsWith('╭'))).toHaveLength(1);
    term.keys('n');
    await term.waitFor((s) => !s.includes('y/n'), 'the question to close');

    writeOnce(term.name, 'uy');
    await term.waitFor((s) => s.includes('restored (four.txt)'), 'the revert notice', 30_000);
    expect(existsSync(four)).toBe(false);
    expect(existsSync(join(ctx.project, 'five.txt'))).toBe(true);
  }, 150_000);
});
