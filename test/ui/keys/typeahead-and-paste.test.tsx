// Keys that arrive in one read are typed and Enter sends them; only a bracketed paste is
// taken as a paste, and its newlines stay in the draft.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, cleanup } from 'ink-testing-library';
import { PromptInput } from '../../../src/ui/components/input/index.js';
import { AskUserDialog } from '../../../src/ui/components/dialogs/index.js';
import { KeyRouter } from '../../../src/ui/keys/key-router.js';
import { createKeymap } from '../../../src/ui/keys/keymap.js';
import { PASTE_END, PASTE_START } from '../../../src/ui/keys/key-stream.js';
import { tick, waitFor, waitForFrame } from './harness.js';

afterEach(() => cleanup());

describe('keys read together', () => {
  it('the prompt sends "fix the bug⏎" written in one go', async () => {
    const onSubmit = vi.fn<(text: string) => void>();
    const r = render(
      <KeyRouter keymap={createKeymap()}>
        <PromptInput onSubmit={onSubmit} />
      </KeyRouter>,
    );
    await tick();
    r.stdin.write('fix the bug\r');
    await waitFor(() => onSubmit.mock.calls.length > 0);
    expect(onSubmit).toHaveBeenCalledWith('fix the bug');
  });

  it('the AskUser dialog answers "blue⏎" written in one go', async () => {
    const onAnswer = vi.fn<(text: string) => void>();
    const r = render(
      <AskUserDialog asker="build" question="Colour?" options={['red', 'green']} position={1} total={1} onAnswer={onAnswer} onDecline={() => {}} />,
    );
    await tick();
    r.stdin.write('blue\r');
    await waitFor(() => onAnswer.mock.calls.length > 0);
    expect(onAnswer).toHaveBeenCalledWith('blue');
  });

  it('a bracketed paste keeps its newlines in the draft and is not sent', async () => {
    const onSubmit = vi.fn<(text: string) => void>();
    const r = render(<PromptInput onSubmit={onSubmit} />);
    await tick();
    r.stdin.write(`${PASTE_START}first line\r\nsecond line${PASTE_END}`);
    await waitForFrame(r.lastFrame, (f) => f.includes('second line'));
    expect(onSubmit).not.toHaveBeenCalled();
    r.stdin.write('\r');
    await waitFor(() => onSubmit.mock.calls.length > 0);
    expect(onSubmit).toHaveBeenCalledWith('first line\nsecond line');
  });

  it('a paste split over several writes is still one paste', async () => {
    const onSubmit = vi.fn<(text: string) => void>();
    const r = render(<PromptInput onSubmit={onSubmit} />);
    await tick();
    r.stdin.write(`${PASTE_START}alpha\r`);
    await tick(5);
    r.stdin.write(`beta${PASTE_END}\r`);
    await waitFor(() => onSubmit.mock.calls.length > 0);
    expect(onSubmit).toHaveBeenCalledWith('alpha\nbeta');
  });

  it('Alt+Enter and Ctrl+J insert a newline; Enter after them sends both lines', async () => {
    const onSubmit = vi.fn<(text: string) => void>();
    const r = render(<PromptInput onSubmit={onSubmit} />);
    await tick();
    r.stdin.write('one');
    await tick(5);
    r.stdin.write('\u001B\r');
    await tick(5);
    r.stdin.write('two\nthree\r');
    await waitFor(() => onSubmit.mock.calls.length > 0);
    expect(onSubmit).toHaveBeenCalledWith('one\ntwo\nthree');
  });
});
