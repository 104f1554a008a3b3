// A long paste shows as one `[Pasted N lines]` token in the draft and is sent in full.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, cleanup } from 'ink-testing-library';
import { PromptInput } from '../../../src/ui/components/input/index.js';
import { PASTE_END, PASTE_START } from '../../../src/ui/keys/key-stream.js';
import { KEY, press, tick, waitFor, waitForFrame } from '../keys/harness.js';

afterEach(() => cleanup());

const lines = (n: number, tag = 'line') => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`).join('\n');
const paste = (text: string) => `${PASTE_START}${text}${PASTE_END}`;

async function setup() {
  const onSubmit = vi.fn<(text: string) => void>();
  const r = render(<PromptInput onSubmit={onSubmit} />);
  await tick();
  return { ...r, onSubmit };
}

describe('long pastes', () => {
  it('shows a 400-line paste as one token, keeps the prompt small, and sends the whole text', async () => {
    const t = await setup();
    const body = lines(400);
    await press(t.stdin, 'look at this: ', paste(body), ' thanks');
    // Waits for the keys typed after the paste too: under load they can come a frame later.
    const frame = await waitForFrame(t.lastFrame, (f) => f.includes('[Pasted 400 lines] thanks'));
    expect(frame).toContain('look at this: [Pasted 400 lines] thanks');
    expect(frame).not.toContain('line 2');
    expect(frame.split('\n').length).toBeLessThanOrEqual(3);
    await press(t.stdin, KEY.enter);
    await waitFor(() => t.onSubmit.mock.calls.length > 0);
    expect(t.onSubmit).toHaveBeenCalledWith(`look at this: ${body} thanks`);
  });

  it('keeps a short paste inline', async () => {
    const t = await setup();
    await press(t.stdin, paste('one\ntwo'));
    const frame = await waitForFrame(t.lastFrame, (f) => f.includes('two'));
    expect(frame).not.toContain('Pasted');
  });

  it('numbers a second paste of the same size and expands each in its place', async () => {
    const t = await setup();
    await press(t.stdin, paste(lines(20, 'a')), ' and ', paste(lines(20, 'b')));
    await waitForFrame(t.lastFrame, (f) => f.includes('[Pasted 20 lines] and [Pasted 20 lines #2]'));
    await press(t.stdin, KEY.enter);
    await waitFor(() => t.onSubmit.mock.calls.length > 0);
    expect(t.onSubmit).toHaveBeenCalledWith(`${lines(20, 'a')} and ${lines(20, 'b')}`);
  });

  it('Backspace removes a token as a whole, and then nothing of the paste is sent', async () => {
    const t = await setup();
    await press(t.stdin, 'x', paste(lines(50)));
    await waitForFrame(t.lastFrame, (f) => f.includes('[Pasted 50 lines]'));
    await press(t.stdin, KEY.backspace);
    await waitForFrame(t.lastFrame, (f) => !f.includes('Pasted'));
    await press(t.stdin, 'y', KEY.enter);
    await waitFor(() => t.onSubmit.mock.calls.length > 0);
    expect(t.onSubmit).toHaveBeenCalledWith('xy');
  });

  it('shows one very long line as a character count', async () => {
    const t = await setup();
    await press(t.stdin, paste('z'.repeat(5000)));
    await waitForFrame(t.lastFrame, (f) => f.includes('[Pasted 5000 characters]'));
  });
});
