// End-to-end in a real terminal (tmux): desktop notifications reach the terminal (DESIGN §9).
// `pipe-pane` records every byte the program writes to its pane, so the test sees exactly the
// escape sequence a terminal would get. A turn that ran past `notify.after_seconds` ends with
// OSC 9 wrapped in tmux's passthrough; an approval that waits while the pane lost focus (tmux
// reports focus to the pane once a client is attached and `focus-events` is on) names the
// waiting sub-agent; a terminal without OSC 9 gets the bell, which tmux's `alert-bell` hook
// sees; with `notify.enabled: false` nothing is sent.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCliProject, type CliProject } from '../support/cli.js';
import { scriptConversations } from '../support/conversations.js';
import { text, toolUse } from '../support/fake-anthropic.js';
import { hasTmux, tmuxServer, type TmuxServer } from '../support/tmux.js';
import { startTerm, type Term } from '../support/tmux-cli.js';

const ESC = '\u001B';
const BEL = '\u0007';
/** OSC 9 inside tmux's DCS passthrough, as the program writes it when $TMUX is set. */
const passthroughOsc9 = (body: string) => `${ESC}Ptmux;${ESC}${ESC}]9;opencode-ink: ${body}${BEL}${ESC}\\`;

// A terminal that shows OSC 9 (the program picks the form from TERM_PROGRAM).
const OSC9_TERMINAL = { TERM_PROGRAM: 'WezTerm' };

let ctx: CliProject;
let inner: TmuxServer;
let outer: TmuxServer | undefined;
let term: Term | undefined;
let seq = 0;

function writeConfig(config: Record<string, unknown>): void {
  const dir = ctx.env.OPENCODE_INK_CONFIG_DIR!;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
}

/** Starts the app and records what it writes to its pane into a file; returns that file. */
function startRecorded(name: string, env: Record<string, string> = OSC9_TERMINAL): string {
  const bytes = join(ctx.dir, `${name}.bytes`);
  term = startTerm(inner, ctx, name, [], { env });
  inner.run('pipe-pane', '-o', '-t', name, `cat >> '${bytes}'`);
  return bytes;
}

const recorded = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

async function waitForBytes(file: string, predicate: (bytes: string) => boolean, what: string, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const bytes = recorded(file);
    if (predicate(bytes)) return bytes;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Timed out waiting for ${what}. Recorded: ${JSON.stringify(recorded(file).slice(-400))}`);
}

describe.runIf(hasTmux || process.env.CI)('notifications in a real terminal', () => {
  beforeEach(async () => {
    ctx = await startCliProject();
    inner = tmuxServer(`oci-notify-${process.pid}-${++seq}`);
  });
  afterEach(async () => {
    term?.kill();
    term = undefined;
    outer?.kill();
    outer = undefined;
    inner.kill();
    await ctx.close();
  });

  it('sends OSC 9 through tmux when a turn longer than notify.after_seconds ends', async () => {
    writeConfig({ notify: { after_seconds: 0 } });
    scriptConversations(ctx.server, { 'tidy the notes': [text('Tidied the notes.')] });
    const bytes = startRecorded('long');
    await term!.waitFor((s) => s.includes('Ask anything'), 'the prompt');
    term!.keys('-l', 'tidy the notes');
    term!.keys('Enter');
    await term!.waitFor((s) => s.includes('Tidied the notes.'), 'the reply');
    const written = await waitForBytes(bytes, (b) => b.includes(']9;opencode-ink'), 'the notification');
    expect(written).toMatch(new RegExp(`${ESC}Ptmux;${ESC}${ESC}\\]9;opencode-ink: build finished after \\d+ s${BEL}${ESC}\\\\`));
  }, 60_000);

  it('rings the bell, which tmux raises as an alert, in a terminal that shows no OSC 9', async () => {
    writeConfig({ notify: { after_seconds: 0 } });
    scriptConversations(ctx.server, { 'tidy the notes': [text('Tidied the notes.')] });
    const rang = join(ctx.dir, 'bell-rang');
    startRecorded('bell', {});
    inner.run('set-hook', '-g', 'alert-bell', `run-shell "touch '${rang}'"`);
    await term!.waitFor((s) => s.includes('Ask anything'), 'the prompt');
    term!.keys('-l', 'tidy the notes');
    term!.keys('Enter');
    await waitForBytes(rang, () => existsSync(rang), 'the bell alert');
  }, 60_000);

  it('names the waiting sub-agent when its approval waits while the pane is not focused', async () => {
    writeConfig({ notify: { after_seconds: 3600 }, permission: { bash: 'ask' } });
    scriptConversations(ctx.server, {
      'count the files': [toolUse('task', { description: 'Count files', prompt: 'count them now', subagent_type: 'general' }), text('Counted.')],
      'count them now': [toolUse('bash', { command: 'ls | wc -l' }), text('3 files')],
    });
    const bytes = startRecorded('focus');
    inner.run('set-option', '-g', 'focus-events', 'on');
    // tmux reports focus to a pane only while a client shows it: attach one from a second server.
    outer = tmuxServer(`oci-notify-outer-${process.pid}-${seq}`);
    outer.run('new-session', '-d', '-s', 'viewer', '-x', '100', '-y', '30', `env -u TMUX tmux -L oci-notify-${process.pid}-${seq} attach -t focus`);
    await term!.waitFor((s) => s.includes('Ask anything'), 'the prompt');
    // Another window takes the client's focus: the app's pane gets a focus-out report.
    inner.run('new-window', '-t', 'focus');
    // Typed into the app's window, which stays in the background.
    inner.run('send-keys', '-t', 'focus:0', '-l', 'count the files');
    inner.run('send-keys', '-t', 'focus:0', 'Enter');
    const written = await waitForBytes(bytes, (b) => b.includes('wants to bash'), 'the approval notification');
    expect(written).toContain(passthroughOsc9('build › general (Count files) wants to bash ls | wc -l'));
    // The turn is still waiting on the approval: no turn-end notification was sent.
    expect(written).not.toContain('finished after');
  }, 60_000);

  it('sends nothing with notify.enabled false', async () => {
    writeConfig({ notify: { enabled: false, after_seconds: 0 } });
    scriptConversations(ctx.server, { 'tidy the notes': [text('Tidied the notes.'), text('Tidied again.')] });
    const bytes = startRecorded('off');
    await term!.waitFor((s) => s.includes('Ask anything'), 'the prompt');
    term!.keys('-l', 'tidy the notes');
    term!.keys('Enter');
    await term!.waitFor((s) => s.includes('Tidied the notes.'), 'the reply');
    // A second turn drawn on screen means the first one's end was handled long before.
    term!.keys('-l', 'and again');
    term!.keys('Enter');
    await term!.waitFor((s) => s.includes('Tidied again.'), 'the second reply');
    await waitForBytes(bytes, (b) => b.includes('Tidied again.'), 'the second reply in the recording');
    const written = recorded(bytes);
    expect(written).not.toContain(']9;');
    expect(written).not.toContain(']777;');
  }, 60_000);
});
