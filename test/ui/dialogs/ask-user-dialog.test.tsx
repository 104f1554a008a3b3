import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, cleanup } from 'ink-testing-library';
import { AskUserDialog, type AskUserDialogProps } from '../../../src/ui/components/dialogs/index.js';
import { KEY, press, tick, waitFor, waitForFrame } from '../keys/harness.js';

afterEach(() => cleanup());

async function setup(extra: Partial<AskUserDialogProps> = {}) {
  const onAnswer = vi.fn<(text: string) => void>();
  const onDecline = vi.fn();
  const props: AskUserDialogProps = {
    asker: 'build › explore (Find API routes)',
    question: 'Which framework?',
    options: ['Express', 'Fastify', 'Koa'],
    position: 1,
    total: 1,
    onAnswer,
    onDecline,
    ...extra,
  };
  const r = render(<AskUserDialog {...props} />);
  await tick();
  return { ...r, onAnswer, onDecline, frame: () => r.lastFrame() ?? '' };
}

describe('AskUserDialog', () => {
  it('shows the asker path, the question and the options', async () => {
    const t = await setup();
    const f = t.frame();
    expect(f).toContain('build › explore (Find API routes)');
    expect(f).toContain('Which framework?');
    expect(f).toMatch(/❯ 1\. Express/);
    expect(f).toContain('2. Fastify');
    expect(f).not.toContain('1 of 1');
  });

  it('Enter picks the first option by default', async () => {
    const t = await setup();
    await press(t.stdin, KEY.enter);
    expect(t.onAnswer).toHaveBeenCalledWith('Express');
  });

  it('Up/Down move the highlight and Enter picks it', async () => {
    const t = await setup();
    await press(t.stdin, KEY.down, KEY.down);
    await waitForFrame(t.lastFrame, (f) => /❯ 3\. Koa/.test(f));
    await press(t.stdin, KEY.up, KEY.enter);
    expect(t.onAnswer).toHaveBeenCalledWith('Fastify');
  });

  it('wraps around from the top', async () => {
    const t = await setup();
    await press(t.stdin, KEY.up, KEY.enter);
    expect(t.onAnswer).toHaveBeenCalledWith('Koa');
  });

  it('typed free text overrides the options, with Backspace editing', async () => {
    const t = await setup();
    await press(t.stdin, KEY.down, 'Hapii', KEY.backspace);
    await waitForFrame(t.lastFrame, (f) => f.includes('Hapi') && !f.includes('Hapii'));
    await press(t.stdin, KEY.enter);
    expect(t.onAnswer).toHaveBeenCalledWith('Hapi');
    expect(t.onAnswer).toHaveBeenCalledTimes(1);
  });

  it('clearing the typed text goes back to the highlighted option', async () => {
    const t = await setup();
    await press(t.stdin, KEY.down, 'x', KEY.backspace, KEY.enter);
    expect(t.onAnswer).toHaveBeenCalledWith('Fastify');
  });

  it('Esc declines', async () => {
    const t = await setup();
    await press(t.stdin, 'partial', KEY.escape);
    await waitFor(() => t.onDecline.mock.calls.length === 1);
    expect(t.onAnswer).not.toHaveBeenCalled();
  });

  it('shows the queue position and who else is waiting', async () => {
    const t = await setup({ position: 1, total: 3, waiting: ['build › general (Refactor)', 'build › explore (Docs)'] });
    expect(t.frame()).toContain('1 of 3');
    expect(t.frame()).toContain('Also waiting: build › general (Refactor), build › explore (Docs)');
  });

  it('cuts a question longer than the rows it is given, keeping the options', async () => {
    const question = Array.from({ length: 10 }, (_, i) => `Question line ${i + 1}`).join('\n');
    const t = await setup({ question, maxQuestionRows: 3 });
    const f = t.frame();
    expect(f).toContain('Question line 2');
    expect(f).not.toContain('Question line 3');
    expect(f).toContain('cut to fit the screen');
    expect(f).toContain('Koa');
  });

  it('keeps a long typed answer on one row', async () => {
    const t = await setup();
    const rows = t.frame().split('\n').length;
    await press(t.stdin, 'word '.repeat(40));
    await waitForFrame(t.lastFrame, (f) => f.includes('word word'));
    expect(t.frame().split('\n').length).toBe(rows);
  });

  it('without options is a text prompt that will not send an empty answer', async () => {
    const t = await setup({ options: [] });
    expect(t.frame()).toContain('Answer:');
    await press(t.stdin, KEY.enter);
    expect(t.onAnswer).not.toHaveBeenCalled();
    await press(t.stdin, 'use port 8080', KEY.enter);
    expect(t.onAnswer).toHaveBeenCalledWith('use port 8080');
  });

  it('starts fresh when the next queued question arrives', async () => {
    const t = await setup();
    await press(t.stdin, 'draft');
    await waitForFrame(t.lastFrame, (f) => f.includes('draft'));
    t.rerender(
      <AskUserDialog asker="build" question="Next one?" options={['Yes', 'No']} position={1} total={1} onAnswer={t.onAnswer} onDecline={t.onDecline} />,
    );
    await waitForFrame(t.lastFrame, (f) => f.includes('Next one?'));
    expect(t.frame()).not.toContain('draft');
    await tick();
    await press(t.stdin, KEY.enter);
    expect(t.onAnswer).toHaveBeenCalledWith('Yes');
  });
});
