// Word-wise editing keys at the prompt, as terminals send them: Alt+B/F (ESC b/f),
// Ctrl+←/→ (CSI 1;5 D/C), Alt+←/→ (CSI 1;3 D/C), Ctrl+W, Ctrl+U, Ctrl+K, Alt+D.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, cleanup } from 'ink-testing-library';
import { PromptInput } from '../../../src/ui/components/input/index.js';
import { KEY, press, tick, waitFor } from '../keys/harness.js';

afterEach(() => cleanup());

const ALT_B = '\u001Bb';
const ALT_F = '\u001Bf';
const ALT_D = '\u001Bd';
const CTRL_LEFT = '\u001B[1;5D';
const CTRL_RIGHT = '\u001B[1;5C';
const ALT_LEFT = '\u001B[1;3D';
const CTRL_K = '\u000B';

async function typed(...keys: string[]): Promise<string> {
  const onSubmit = vi.fn<(text: string) => void>();
  const r = render(<PromptInput onSubmit={onSubmit} />);
  await tick();
  await press(r.stdin, ...keys, KEY.enter);
  await waitFor(() => onSubmit.mock.calls.length > 0);
  cleanup();
  return onSubmit.mock.calls[0]![0];
}

describe('word-wise editing', () => {
  it('Alt+B / Alt+F move by word', async () => {
    expect(await typed('one two three', ALT_B, ALT_B, '>', ALT_F, '<')).toBe('one >two< three');
  });

  it('Ctrl+← / Ctrl+→ and Alt+← move by word', async () => {
    expect(await typed('alpha beta gamma', CTRL_LEFT, CTRL_LEFT, CTRL_RIGHT, '!')).toBe('alpha beta! gamma');
    expect(await typed('alpha beta', ALT_LEFT, '_')).toBe('alpha _beta');
  });

  it('Ctrl+W deletes the word before the cursor, Alt+D the word after', async () => {
    expect(await typed('keep drop', KEY.ctrlW, 'new')).toBe('keep new');
    expect(await typed('one two three', KEY.home, ALT_F, ALT_D)).toBe('one three');
  });

  it('Ctrl+U deletes to the line start, Ctrl+K to the line end', async () => {
    expect(await typed('first second', CTRL_LEFT, KEY.ctrlU)).toBe('second');
    expect(await typed('first second', CTRL_LEFT, CTRL_K)).toBe('first');
  });
});
