import { afterEach, describe, expect, it, vi } from 'vitest';
import { Box } from 'ink';
import { render, cleanup } from 'ink-testing-library';
import { CompletionMenu } from '../../../src/ui/components/input/CompletionMenu.js';
import { PromptInput, type PromptInputProps } from '../../../src/ui/components/input/index.js';
import { KEY, press, tick, waitFor, waitForFrame } from '../keys/harness.js';

afterEach(() => cleanup());

async function setup(extra: Partial<PromptInputProps> = {}) {
  const onSubmit = vi.fn<(text: string) => void>();
  const onInterrupt = vi.fn();
  const onExitRequest = vi.fn();
  const onCycleAgent = vi.fn<(reverse: boolean) => void>();
  const r = render(
    <PromptInput onSubmit={onSubmit} onInterrupt={onInterrupt} onExitRequest={onExitRequest} onCycleAgent={onCycleAgent} {...extra} />,
  );
  await tick();
  return { ...r, onSubmit, onInterrupt, onExitRequest, onCycleAgent, frame: () => r.lastFrame() ?? '' };
}

const commands = [
  { name: 'help', description: 'Show help' },
  { name: 'new', description: 'Start a new session' },
  { name: 'sessions', description: 'Resume a session' },
  { name: 'agents', description: 'List agents' },
];

describe('PromptInput editing', () => {
  it('types text and submits it on Enter, then clears', async () => {
    const t = await setup();
    await press(t.stdin, 'hello world');
    await waitForFrame(t.lastFrame, (f) => f.includes('hello world'));
    await press(t.stdin, KEY.enter);
    expect(t.onSubmit).toHaveBeenCalledWith('hello world');
    await waitForFrame(t.lastFrame, (f) => !f.includes('hello world'));
  });

  it('ignores Enter on a blank prompt', async () => {
    const t = await setup();
    await press(t.stdin, '   ', KEY.enter);
    expect(t.onSubmit).not.toHaveBeenCalled();
  });

  it('edits with left/right, backspace, home/end and ctrl+a/ctrl+e', async () => {
    const t = await setup();
    await press(t.stdin, 'abc', KEY.left, KEY.backspace, 'X');
    await press(t.stdin, KEY.home, '<', KEY.end, '>');
    await press(t.stdin, KEY.ctrlA, '[', KEY.ctrlE, ']');
    await press(t.stdin, KEY.enter);
    expect(t.onSubmit).toHaveBeenCalledWith('[<aXc>]');
  });

  it('ctrl+u clears the line and ctrl+w deletes the previous word', async () => {
    const t = await setup();
    await press(t.stdin, 'one two three', KEY.ctrlW);
    await waitForFrame(t.lastFrame, (f) => f.includes('one two') && !f.includes('three'));
    await press(t.stdin, KEY.ctrlU);
    await waitForFrame(t.lastFrame, (f) => !f.includes('one'));
    await press(t.stdin, 'fresh', KEY.enter);
    expect(t.onSubmit).toHaveBeenCalledWith('fresh');
  });

  it('inserts newlines with a trailing backslash, Shift+Enter and ctrl+j', async () => {
    const t = await setup();
    await press(t.stdin, 'first\\', KEY.enter, 'second', KEY.shiftEnter, 'third', KEY.ctrlJ, 'fourth');
    await waitForFrame(t.lastFrame, (f) => f.includes('fourth'));
    const lines = t.frame().split('\n');
    expect(lines.findIndex((l) => l.includes('second'))).toBe(lines.findIndex((l) => l.includes('first')) + 1);
    await press(t.stdin, KEY.enter);
    expect(t.onSubmit).toHaveBeenCalledWith('first\nsecond\nthird\nfourth');
  });

  it('moves between lines with up/down inside a multi-line draft', async () => {
    const t = await setup({ history: ['old entry'] });
    await press(t.stdin, 'ab', KEY.ctrlJ, 'cd', KEY.up, 'X', KEY.down, 'Y', KEY.enter);
    expect(t.onSubmit).toHaveBeenCalledWith('abX\ncdY');
  });

  it('shows queued messages and the placeholder', async () => {
    const t = await setup({ queued: ['run the tests'], placeholder: 'Ask anything' });
    expect(t.frame()).toContain('queued: run the tests');
    expect(t.frame()).toContain('Ask anything');
  });

  it('shows the hint and ignores keys when disabled', async () => {
    const t = await setup({ disabled: true, disabledHint: 'Read-only child view — ctrl+x up returns' });
    expect(t.frame()).toContain('Read-only child view');
    await press(t.stdin, 'abc', KEY.enter);
    expect(t.onSubmit).not.toHaveBeenCalled();
  });

  it('ignores keys while not active (leader chord pending)', async () => {
    const t = await setup({ isActive: false });
    await press(t.stdin, 'abc', KEY.enter);
    expect(t.onSubmit).not.toHaveBeenCalled();
  });

  it('applies a burst of keys delivered in one chunk in order', async () => {
    const t = await setup();
    t.stdin.write('ab');
    t.stdin.write(KEY.left);
    t.stdin.write('X');
    t.stdin.write(KEY.enter);
    await waitFor(() => t.onSubmit.mock.calls.length > 0);
    expect(t.onSubmit).toHaveBeenCalledWith('aXb');
  });
});

describe('PromptInput history', () => {
  it('walks older with Up and back to the draft with Down', async () => {
    const t = await setup({ history: ['first', 'second'] });
    await press(t.stdin, 'draft', KEY.up);
    await waitForFrame(t.lastFrame, (f) => f.includes('second'));
    await press(t.stdin, KEY.up);
    await waitForFrame(t.lastFrame, (f) => f.includes('first'));
    await press(t.stdin, KEY.up); // no older entry: stays
    await press(t.stdin, KEY.down, KEY.down);
    await waitForFrame(t.lastFrame, (f) => f.includes('draft'));
    await press(t.stdin, KEY.up, KEY.enter);
    expect(t.onSubmit).toHaveBeenCalledWith('second');
  });

  it('does not open the command menu for a recalled /command', async () => {
    const t = await setup({ history: ['/help', 'older'].reverse(), commands });
    await press(t.stdin, KEY.up);
    await waitForFrame(t.lastFrame, (f) => f.includes('/help'));
    expect(t.frame()).not.toContain('Show help');
    await press(t.stdin, KEY.up);
    await waitForFrame(t.lastFrame, (f) => f.includes('older'));
  });
});

describe('PromptInput / menu', () => {
  it('opens on / at the start and filters as you type', async () => {
    const t = await setup({ commands });
    await press(t.stdin, '/');
    await waitForFrame(t.lastFrame, (f) => f.includes('/help') && f.includes('/sessions'));
    await press(t.stdin, 's');
    const f = await waitForFrame(t.lastFrame, (fr) => !fr.includes('/help'));
    expect(f).toContain('/sessions');
    // substring match ranks after prefix matches
    expect(f).toContain('/agents');
    expect(f.indexOf('/sessions')).toBeLessThan(f.indexOf('/agents'));
  });

  it('does not open for a / after other text', async () => {
    const t = await setup({ commands });
    await press(t.stdin, 'a /');
    await tick(20);
    expect(t.frame()).not.toContain('Show help');
  });

  it('completes the selected command with Tab and Enter', async () => {
    const t = await setup({ commands });
    await press(t.stdin, '/', KEY.down, KEY.tab);
    await waitForFrame(t.lastFrame, (f) => f.includes('/new') && !f.includes('Show help'));
    await press(t.stdin, 'x', KEY.enter);
    expect(t.onSubmit).toHaveBeenCalledWith('/new x');
    await press(t.stdin, '/se', KEY.enter);
    await waitForFrame(t.lastFrame, (f) => f.includes('/sessions') && !f.includes('Resume a session'));
    expect(t.onSubmit).toHaveBeenCalledTimes(1);
  });

  it('submits a command typed out in full on the first Enter', async () => {
    const t = await setup({ commands });
    await press(t.stdin, '/help', KEY.enter);
    expect(t.onSubmit).toHaveBeenCalledWith('/help');
  });

  it('Up/Down wrap through the menu', async () => {
    const t = await setup({ commands });
    await press(t.stdin, '/', KEY.up, KEY.tab, KEY.enter);
    expect(t.onSubmit).toHaveBeenCalledWith('/agents');
  });

  it('Esc closes the menu without interrupting; the next Esc interrupts', async () => {
    const t = await setup({ commands });
    await press(t.stdin, '/');
    await waitForFrame(t.lastFrame, (f) => f.includes('Show help'));
    await press(t.stdin, KEY.escape);
    await waitForFrame(t.lastFrame, (f) => !f.includes('Show help'));
    expect(t.onInterrupt).not.toHaveBeenCalled();
    await press(t.stdin, KEY.escape);
    await waitFor(() => t.onInterrupt.mock.calls.length === 1);
  });
});

describe('PromptInput @ completion', () => {
  const subagents = [{ name: 'explore', description: 'Read-only search' }, { name: 'general', description: 'General work' }];
  const completeFile = (prefix: string): string[] =>
    ['src/', 'src/app.ts', 'README.md', 'test/'].filter((p) => p.startsWith(prefix));

  it('lists agents and files for the typed prefix and inserts the choice', async () => {
    const t = await setup({ subagents, completeFile });
    await press(t.stdin, 'look at @');
    await waitForFrame(t.lastFrame, (f) => f.includes('@explore') && f.includes('README.md'));
    await press(t.stdin, 'R', KEY.tab);
    await waitForFrame(t.lastFrame, (f) => f.includes('look at @README.md') && !f.includes('@explore'));
    await press(t.stdin, 'now', KEY.enter);
    expect(t.onSubmit).toHaveBeenCalledWith('look at @README.md now');
  });

  it('inserts an agent with Enter', async () => {
    const t = await setup({ subagents, completeFile });
    await press(t.stdin, '@ex');
    await waitForFrame(t.lastFrame, (f) => f.includes('Read-only search'));
    await press(t.stdin, KEY.enter, 'find routes', KEY.enter);
    expect(t.onSubmit).toHaveBeenCalledWith('@explore find routes');
  });

  it('keeps completing inside a directory', async () => {
    const t = await setup({ subagents, completeFile });
    await press(t.stdin, '@s', KEY.tab);
    await waitForFrame(t.lastFrame, (f) => f.includes('src/app.ts'));
    await press(t.stdin, KEY.down, KEY.tab, KEY.enter);
    expect(t.onSubmit).toHaveBeenCalledWith('@src/app.ts');
  });
});

describe('PromptInput Esc, Tab and Ctrl+C', () => {
  it('Esc interrupts when no menu is open', async () => {
    const t = await setup();
    await press(t.stdin, KEY.escape);
    await waitFor(() => t.onInterrupt.mock.calls.length === 1);
  });

  it('Tab cycles the agent; Shift+Tab (ESC [ Z) cycles the permission mode instead', async () => {
    const onCycleMode = vi.fn();
    const t = await setup({ onCycleMode });
    await press(t.stdin, KEY.tab, KEY.shiftTab, KEY.shiftTab);
    expect(t.onCycleAgent.mock.calls).toEqual([[false]]);
    expect(onCycleMode).toHaveBeenCalledTimes(2);
  });

  it('Ctrl+C clears a non-empty input without exiting', async () => {
    const t = await setup();
    await press(t.stdin, 'some text', KEY.ctrlC);
    await waitForFrame(t.lastFrame, (f) => !f.includes('some text'));
    expect(t.frame()).not.toContain('again to exit');
    expect(t.onExitRequest).not.toHaveBeenCalled();
  });

  it('Ctrl+C twice on an empty input exits; the first shows a hint', async () => {
    const t = await setup();
    await press(t.stdin, KEY.ctrlC);
    await waitForFrame(t.lastFrame, (f) => f.includes('Press Ctrl+C again to exit'));
    expect(t.onExitRequest).not.toHaveBeenCalled();
    await press(t.stdin, KEY.ctrlC);
    expect(t.onExitRequest).toHaveBeenCalledTimes(1);
  });

  it('a second Ctrl+C after the window only re-arms', async () => {
    let clock = 1000;
    const t = await setup({ now: () => clock });
    await press(t.stdin, KEY.ctrlC);
    clock += 2500;
    await press(t.stdin, KEY.ctrlC);
    expect(t.onExitRequest).not.toHaveBeenCalled();
    clock += 500;
    await press(t.stdin, KEY.ctrlC);
    expect(t.onExitRequest).toHaveBeenCalledTimes(1);
  });

  it('typing between the two presses cancels the exit', async () => {
    const t = await setup();
    await press(t.stdin, KEY.ctrlC, 'a', KEY.backspace, KEY.ctrlC);
    expect(t.onExitRequest).not.toHaveBeenCalled();
  });
});

describe('PromptInput rows', () => {
  async function sized(onRows: (n: number) => void) {
    const r = render(
      <Box flexDirection="column" width={80}>
        <PromptInput onSubmit={() => {}} prompt="build" width={80} commands={commands} onRowsChange={onRows} />
      </Box>,
    );
    await tick();
    return { ...r, drawn: () => (r.lastFrame() ?? '').split('\n').length };
  }

  it('reports the rows a key gives it before that frame is drawn', async () => {
    const reported: number[] = [];
    const r = await sized((n) => reported.push(n));
    await waitFor(() => reported.length > 0);
    expect(reported.at(-1)).toBe(r.drawn());
    // Each frame Ink writes, with the rows reported by then: the screen above must have
    // made room already, never a frame later.
    const seen: Array<[number, number | undefined]> = [];
    const write = r.stdout.write;
    r.stdout.write = (frame: string) => {
      seen.push([frame.split('\n').length, reported.at(-1)]);
      write(frame);
    };
    for (const key of ['one', KEY.ctrlJ, 'two', KEY.ctrlJ, `three ${'long '.repeat(20)}`]) await press(r.stdin, key);
    expect(seen.length).toBeGreaterThanOrEqual(5);
    for (const [drawn, rows] of seen) expect(rows).toBe(drawn);
    // Border 2, "one", "two", and the third line wrapped onto two rows.
    expect(r.drawn()).toBe(6);
  });

  it('counts the completion menu', async () => {
    const reported: number[] = [];
    const r = await sized((n) => reported.push(n));
    await press(r.stdin, '/');
    await waitForFrame(r.lastFrame, (f) => f.includes('sessions'));
    expect(reported.at(-1)).toBe(r.drawn());
    expect(r.drawn()).toBe(3 + commands.length);
  });
});

describe('CompletionMenu', () => {
  it('keeps each label whole beside a long description, and cuts a label only past its column', () => {
    const long = 'A description far too long for one row of the menu, which must give way to the label.';
    const r = render(
      <Box flexDirection="column" width={80}>
        <CompletionMenu
          index={0}
          items={[
            { kind: 'agent', label: '@explore', insert: '@explore ', description: long },
            { kind: 'file', label: '@src/a/very/deep/folder/with/a/long/name.ts', insert: '@src/a/very/deep/folder/with/a/long/name.ts ' },
          ]}
        />
      </Box>,
    );
    const lines = (r.lastFrame() ?? '').split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('@explore (agent)');
    expect(lines[0]).toContain('A description far too long');
    expect(lines[0]).toMatch(/…$/);
    expect(lines[1]).toContain('@src/a/very/deep/folder/wit…');
  });
});
