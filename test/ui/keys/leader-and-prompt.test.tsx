// The app's wiring contract: under a KeyRouter the keymap sees keys first, so
// `<leader>X` navigates and never reaches the prompt — even when keys arrive in a burst.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useMemo, useState } from 'react';
import { Text } from 'ink';
import { render, cleanup } from 'ink-testing-library';
import { createKeymap, KeyRouter, useLeaderPending, type KeymapAction } from '../../../src/ui/keys/index.js';
import { PromptInput } from '../../../src/ui/components/input/index.js';
import { AskUserDialog } from '../../../src/ui/components/dialogs/index.js';
import { KEY, press, tick, waitFor, waitForFrame } from './harness.js';

afterEach(() => cleanup());

function Hint() {
  return <Text>{useLeaderPending() ? 'LEADER' : 'ready'}</Text>;
}

function App({ onAction, onSubmit }: { onAction: (a: KeymapAction) => void; onSubmit: (t: string) => void }) {
  const keymap = useMemo(() => createKeymap(), []);
  return (
    <KeyRouter keymap={keymap} onAction={onAction}>
      <PromptInput onSubmit={onSubmit} />
      <Hint />
    </KeyRouter>
  );
}

async function setup() {
  const onAction = vi.fn<(a: KeymapAction) => void>();
  const onSubmit = vi.fn<(t: string) => void>();
  const r = render(<App onAction={onAction} onSubmit={onSubmit} />);
  await tick();
  return { ...r, onAction, onSubmit };
}

describe('KeyRouter with the prompt', () => {
  it('routes <leader>left to the keymap and leaves the prompt cursor alone', async () => {
    const t = await setup();
    await press(t.stdin, 'ab', KEY.ctrlX);
    await waitForFrame(t.lastFrame, (f) => f.includes('LEADER'));
    await press(t.stdin, KEY.left);
    await waitForFrame(t.lastFrame, (f) => f.includes('ready'));
    expect(t.onAction).toHaveBeenCalledWith('session_child_cycle_reverse');
    await press(t.stdin, 'X', KEY.enter);
    expect(t.onSubmit).toHaveBeenCalledWith('abX');
  });

  it('holds up when the keys arrive in one burst', async () => {
    const t = await setup();
    for (const k of ['a', KEY.ctrlX, 'l', 'b', KEY.enter]) t.stdin.write(k);
    await waitFor(() => t.onSubmit.mock.calls.length > 0);
    expect(t.onAction).toHaveBeenCalledWith('session_list');
    expect(t.onSubmit).toHaveBeenCalledWith('ab');
  });

  it('splits a leader chord and its key that arrive in one read ("\\x18l", as tmux sends C-x l)', async () => {
    const t = await setup();
    await press(t.stdin, 'a');
    t.stdin.write(`${KEY.ctrlX}l`);
    await waitFor(() => t.onAction.mock.calls.length > 0);
    expect(t.onAction).toHaveBeenCalledWith('session_list');
    await press(t.stdin, 'b', KEY.enter);
    expect(t.onSubmit).toHaveBeenCalledWith('ab');
  });

  it('swallows an unbound key after the leader, then types normally', async () => {
    const t = await setup();
    for (const k of [KEY.ctrlX, 'q', 'z', KEY.enter]) t.stdin.write(k);
    await waitFor(() => t.onSubmit.mock.calls.length > 0);
    expect(t.onAction).not.toHaveBeenCalled();
    expect(t.onSubmit).toHaveBeenCalledWith('z');
  });
});

function DialogApp({ onSubmit, onAnswer }: { onSubmit: (t: string) => void; onAnswer: (t: string) => void }) {
  const [asking, setAsking] = useState(true);
  return (
    <KeyRouter keymap={createKeymap()}>
      {asking ? (
        <AskUserDialog asker="build" question="Proceed?" options={['Yes', 'No']} position={1} total={1}
          onAnswer={(a) => { onAnswer(a); setAsking(false); }} onDecline={() => setAsking(false)} />
      ) : null}
      <PromptInput onSubmit={onSubmit} isActive={!asking} />
    </KeyRouter>
  );
}

describe('KeyRouter with a dialog over the prompt', () => {
  it('gives keys to the dialog only, then hands the keyboard back to the prompt', async () => {
    const onSubmit = vi.fn<(t: string) => void>();
    const onAnswer = vi.fn<(t: string) => void>();
    const { stdin, lastFrame } = render(<DialogApp onSubmit={onSubmit} onAnswer={onAnswer} />);
    await tick();
    await press(stdin, 'x', KEY.backspace, KEY.down, KEY.enter);
    expect(onAnswer).toHaveBeenCalledWith('No');
    expect(onSubmit).not.toHaveBeenCalled();
    await waitForFrame(lastFrame, (f) => !f.includes('Proceed?'));
    await press(stdin, 'hi', KEY.enter);
    expect(onSubmit).toHaveBeenCalledWith('hi');
  });
});
