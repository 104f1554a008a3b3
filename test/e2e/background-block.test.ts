// End-to-end in a real terminal (tmux): a `run_in_background` sub-agent's block follows its
// child while the user stays in the parent's view — the elapsed time moves while the child
// works, and the block says `completed` once it ends, without stepping into the child.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliProject, type CliProject } from '../support/cli.js';
import { scriptConversations } from '../support/conversations.js';
import { reply, text } from '../support/fake-anthropic.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';
import { startTerm, type Term } from '../support/tmux-cli.js';

const server = tmuxServer(`oci-bg-${process.pid}`);
let ctx: CliProject;
let term: Term | undefined;

describe.runIf(hasTmux || process.env.CI)('a background sub-agent seen from its parent', () => {
  beforeAll(async () => {
    ctx = await startCliProject();
  });
  afterAll(async () => {
    term?.kill();
    server.kill();
    await ctx.close();
  });

  it('moves its elapsed time while the child runs and shows the end, staying in the parent view', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    scriptConversations(ctx.server, {
      'survey the repo': [
        reply({ type: 'tool_use', name: 'task', input: { description: 'Long background survey', prompt: 'the long survey', subagent_type: 'explore', run_in_background: true } }),
        text('Started the survey.'),
        text('The survey says: all good.'),
      ],
      // The child answers only when the test lets it.
      'the long survey': [async () => (await released, text('survey findings'))],
    });
    term = startTerm(server, ctx, 'bg', []);
    await term.waitFor((s) => s.includes('Ask anything'), 'the prompt');
    term.keys('-l', 'survey the repo');
    term.keys('Enter');
    await term.waitFor((s) => s.includes('Started the survey.'), "the parent's reply");
    // Still in the parent's view: the block's clock moves past 0s while the child works.
    const moving = await term.waitFor((s) => /explore Long background survey · running · [2-9]s/.test(s), 'the elapsed time to move', 15_000);
    expect(moving).not.toContain('sub-agent session');
    release();
    const done = await term.waitFor((s) => /explore Long background survey · completed/.test(s), 'the block to show the end');
    expect(done).not.toMatch(/Long background survey · running/);
    await term.waitFor((s) => s.includes('The survey says: all good.'), 'the parent taking up the result');
  });
});
