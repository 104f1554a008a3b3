// End-to-end: the built binary in a real pseudo-terminal (tmux). Drives the offline demo by
// keyboard: approves, answers a routed question, types a prompt, opens the session picker
// with a leader chord sent in one write, steps into a child session and back. A second
// run at 80x24 (with NO_COLOR) checks that no finished line is lost while dialogs open.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasTmux, tmuxServer } from '../support/tmux.js';
import { launchTerm, type Term } from '../support/tmux-cli.js';
import { waitForText } from '../support/wait.js';

let home: string;

const server = tmuxServer(`oci-e2e-${process.pid}`);

/** The offline demo in a terminal of its own, with its own data and config dirs. */
function start(name: string, cols: number, rows: number, extraEnv: Record<string, string> = {}): Term {
  const env = { HOME: home, OPENCODE_INK_DATA_DIR: `${home}/${name}/data`, OPENCODE_INK_CONFIG_DIR: `${home}/${name}/config`, ...extraEnv };
  return launchTerm(server, name, { args: ['--demo'], env, cols, rows });
}

/**
 * Plays the scripted part: approves every permission and answers the routed question
 * with "Both", in whatever order the dialogs come. Returns what it did.
 */
async function playDemo(t: Term): Promise<{ answered: boolean; approvals: number; askers: string[] }> {
  await t.waitFor((s) => s.includes('Scripted demo'), 'the demo banner');
  let answered = false;
  let approvals = 0;
  const askers: string[] = [];
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const s = t.screen();
    if (s.includes('Next step would be')) break;
    // The question's dialog (its text also shows in the asking block's latest line, and
    // behind another dialog as "Also waiting").
    if (s.includes('Question from') && s.includes('Which should get the rate limit?') && !answered) {
      askers.push(/Question from (.*?)\s*│/.exec(s)?.[1] ?? '');
      t.keys('Down');
      await t.waitFor((x) => /❯ 2\. Both/.test(x), 'the second option to be highlighted');
      t.keys('Enter');
      answered = true;
      await t.waitFor((x) => !x.includes('Which should get the rate limit?'), 'the question to close');
    } else if (s.includes('Allow once')) {
      const asking = /wants to (?:use \S+|\S+ \S+)/.exec(s)?.[0] ?? '';
      t.keys('Enter');
      approvals++;
      await t.waitFor((x) => !x.includes('Allow once') || !x.includes(asking), 'the approval to close');
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  // Its last words: the turn is over.
  await t.waitFor((s) => s.includes('tests/auth.test.js.'), 'the end of the final answer');
  return { answered, approvals, askers };
}

/** Types a prompt, waits until the input shows it, then sends it (keys-in-one-write.test.ts sends both in one write). */
async function typePrompt(t: Term, text: string): Promise<void> {
  t.keys('-l', text);
  await t.waitFor((s) => s.includes(text), 'the typed prompt');
  t.keys('Enter');
}

describe.runIf(hasTmux || process.env.CI)('the built binary in a terminal', () => {
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'oci-e2e-'));
  });
  afterAll(() => {
    server.kill();
    // The killed program may still be closing its store in there: retry while it finishes.
    rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  });

  it('runs the demo: approvals, a routed question, a typed prompt, the picker and navigation into a child', async () => {
    const t = start('wide', 100, 40);
    const played = await playDemo(t);
    expect(played.answered).toBe(true);
    expect(played.askers).toEqual(['build › explore (Find API routes)']);
    expect(played.approvals).toBeGreaterThanOrEqual(2);

    await typePrompt(t, 'Can you also add a test?');
    const replied = await t.waitFor((s) => s.includes('(scripted demo reply) You asked: “Can you also add a test?”'), 'the reply to the typed prompt');
    expect(replied).toContain('› Can you also add a test?');
    await t.waitFor((s) => !s.includes('working…'), 'the turn to end');

    // One write, as a fast typist's terminal delivers it: "\x18l".
    t.keys('C-x', 'l');
    const picker = await t.waitFor((s) => s.includes('Enter open · type to filter'), 'the session picker');
    expect(picker).not.toMatch(/build l\b/);
    t.keys('Escape');
    await t.waitFor((s) => !s.includes('Enter open · type to filter'), 'the picker to close');

    t.keys('C-x');
    t.keys('Right');
    const child = await t.waitFor((s) => s.includes('goes to this sub-agent'), 'the child view');
    expect(child).toMatch(/explore \(1 of 3\)/);

    t.keys('C-x');
    t.keys('Up');
    await t.waitFor((s) => !s.includes('goes to this sub-agent') && s.includes('(scripted demo reply)'), 'the parent view again');

    t.keys('-l', '/exit');
    await t.waitFor((s) => s.includes('/exit'), 'the typed command');
    t.keys('Enter');
    await t.waitFor((s) => !s.includes('Ask anything'), 'the app to exit');
  }, 120_000);

  it('keeps every finished line at 80x24 while dialogs and diffs come and go, without colour under NO_COLOR', async () => {
    const t = start('small', 80, 24, { NO_COLOR: '1' });
    const played = await playDemo(t);
    expect(played.answered).toBe(true);

    // Finished output is printed once; a live region taller than the screen makes Ink
    // erase lines above it. Every line must still be there, in order.
    const expected = [
      'Scripted demo',
      '› Add rate limiting to the login route. Map the code first.',
      "I'll map the code first: three sub-agents",
      'explore Find API routes · completed',
      'explore Find auth middleware · completed',
      'general Check the test setup · completed',
      'The sub-agents agree: login lives in src/server.ts and has no throttling. Adding',
      'a limiter there.',
      'edit src/server.ts (+2 −2)',
      "app.post('/v1/login', rateLimit, login);",
      'Done',
      'Next step would be defining rateLimit',
      'tests/auth.test.js.',
    ];
    const inOrder = (lines: readonly string[]) => {
      let at = -1;
      for (const want of expected) {
        at = lines.findIndex((l, i) => i > at && l.includes(want));
        if (at < 0) return false;
      }
      return true;
    };
    // A capture taken while Ink repaints its live region can miss rows that are about to be
    // drawn; a line really erased never comes back, so this still fails when one is lost.
    const history = await waitForText(() => t.history(), (text) => inOrder(text.split('\n')), 'every finished line, in order', { timeoutMs: 5000, intervalMs: 100 });
    const lines = history.split('\n');
    // Wrapped prose starts its continuation rows at the margin, not with the breaking space.
    expect(lines.some((l) => l.startsWith(' a limiter'))).toBe(false);
    // The demo's answer names both routes: the "Both" answer reached the sub-agent.
    expect(lines.join('\n')).toContain("app.post('/v1/login', rateLimit, login);");

    // NO_COLOR: attributes (bold, inverse) may stay, colours may not.
    // eslint-disable-next-line no-control-regex
    const colours = t.styled().match(/\u001B\[[0-9;]*m/g)?.filter((code) => /\[(?:[0-9;]*;)?(?:3[0-8]|9[0-7]|4[0-8]|10[0-7])(?:;|m)/.test(code)) ?? [];
    expect(colours).toEqual([]);
    t.keys('-l', '/exit');
    await t.waitFor((s) => s.includes('/exit'), 'the typed command');
    t.keys('Enter');
    await t.waitFor((s) => !s.includes('Ask anything'), 'the app to exit');
  }, 120_000);

  it('follows Ctrl+B in the demo: the main agent waits for the background sub-agents and names each result as it arrives', async () => {
    const t = start('background', 100, 40);
    await t.waitFor((s) => s.includes('ctrl+b background'), 'a running sub-agent block');
    t.keys('C-b');
    await t.waitFor((s) => s.includes('still working in'), 'the main agent to wait for the background sub-agents', 20_000);
    const played = await playDemo(t);
    expect(played.answered).toBe(true);
    const history = t.history();
    // The results arrived as results (not as prompts), before the edit that used them.
    expect(history).not.toContain('You asked');
    const arrived = history.indexOf('reported back: completed');
    expect(arrived).toBeGreaterThan(history.indexOf('still working in'));
    expect(arrived).toBeLessThan(history.indexOf('Adding a limiter there'));
    expect(history).toContain("app.post('/v1/login', rateLimit, login);");
  }, 120_000);
});
