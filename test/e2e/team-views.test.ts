// End-to-end in a real terminal (tmux), at 120x35 and at 50x20: the team's task list opens
// with Ctrl+T (id, status, title, owner, blockers) and closes with Esc; the panel of live
// sub-agents opens with ctrl+x a, lists both background children with their latest call,
// opens the second one's view with ↓ Enter (typed in one write with the key that opened
// it), stays on screen there, and empties once the children have finished.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliProject, type CliProject } from '../support/cli.js';
import { scriptConversations, toolUse } from '../support/conversations.js';
import { reply, text } from '../support/fake-anthropic.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';
import { startTerm, type Term } from '../support/tmux-cli.js';

const server = tmuxServer(`oci-team-${process.pid}`);
let ctx: CliProject;
const terms: Term[] = [];

/** Nothing drawn past the terminal's last row: the prompt and the status line are on screen. */
function fits(screen: string, rows: number): void {
  const lines = screen.replace(/\n+$/, '').split('\n');
  expect(lines.length).toBeLessThanOrEqual(rows);
  expect(screen).toContain('╰');
}

describe.runIf(hasTmux || process.env.CI)('the task list and the sub-agents panel in a terminal', () => {
  beforeAll(async () => {
    ctx = await startCliProject();
  });
  afterAll(async () => {
    for (const t of terms) t.kill();
    server.kill();
    await ctx.close();
  });

  for (const [cols, rows] of [
    [120, 35],
    [50, 20],
  ] as const) {
    it(`shows both at ${cols}x${rows}`, async () => {
      const tag = `${cols}x${rows}`;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      scriptConversations(ctx.server, {
        [`plan at ${tag}`]: [
          reply(toolUse('task_list', { action: 'create', title: 'Write the tests' }), toolUse('task_list', { action: 'create', title: 'Fix the parser', blocked_by: ['1'] })),
          reply(
            toolUse('task', { description: 'Slow one', prompt: `slow one at ${tag}`, subagent_type: 'general', run_in_background: true }),
            toolUse('task', { description: 'Slow two', prompt: `slow two at ${tag}`, subagent_type: 'general', run_in_background: true }),
          ),
          text('Planned.'),
          text('One is back.'),
          text('Both are back.'),
        ],
        [`slow one at ${tag}`]: [reply(toolUse('list', { path: '.' })), async () => (await released, text('one done'))],
        [`slow two at ${tag}`]: [reply(toolUse('glob', { pattern: '*.md' })), async () => (await released, text('two done'))],
      });
      const term = startTerm(server, ctx, `team${tag}`, [], { cols, rows });
      terms.push(term);
      await term.waitFor((s) => s.includes('Ask anything'), 'the prompt');
      term.keys('-l', `plan at ${tag}`);
      term.keys('Enter');
      await term.waitFor((s) => s.includes('Planned.') && s.includes('Slow two · running'), 'the reply, both children running', 30_000);

      term.keys('C-t');
      const list = await term.waitFor((s) => s.includes('Team tasks') && s.includes('Fix the parser'), 'the task list');
      expect(list).toContain('0 of 2 done');
      expect(list).toMatch(/› 1 ○ pending Write the tests · unowned/);
      expect(list).toMatch(/ 2 ○ pending Fix the parser · /);
      if (cols >= 120) expect(list).toContain('Fix the parser · unowned · after 1');
      fits(list, rows);
      term.keys('Escape');
      await term.waitFor((s) => !s.includes('Team tasks') && s.includes('Ask anything'), 'the list to close');

      term.keys('C-x', 'a');
      const panel = await term.waitFor((s) => s.includes('Sub-agents · 2 live') && s.includes('⎿ list .') && s.includes('⎿ glob *.md'), 'the panel');
      expect(panel).toMatch(/› \S general \(Slow one\) · running \d+s · ⎿ list \./);
      expect(panel).toMatch(/\S general \(Slow two\) · running \d+s · ⎿ glob \*\.md/);
      fits(panel, rows);
      term.keys('Escape');
      await term.waitFor((s) => s.includes('ctrl+x a to pick'), 'the keys back at the prompt');

      // The key, ↓ and Enter in one write: the second child's view, the panel still on.
      term.keys('-l', '\u0018a\u001b[B\r');
      const child = await term.waitFor((s) => s.includes('sub-agent session') && s.includes('Sub-agents · 2 live'), "the second child's view");
      expect(child).toContain('general (Slow two)');
      fits(child, rows);

      release();
      await term.waitFor((s) => s.includes('No sub-agents are running.'), 'the panel to empty', 30_000);
      term.kill();
    }, 120_000);
  }
});
