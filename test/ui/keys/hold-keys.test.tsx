// The key router's hold (useHoldKeys, or a keymap action returning a promise): keys that arrive
// in the same write as one that opens something later — a question opened once a core call has
// answered — wait for it and then act in order, as if typed one by one.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useMemo, useState } from 'react';
import { Text } from 'ink';
import { cleanup, render } from 'ink-testing-library';
import { createKeymap, KeyRouter, useHoldKeys, useKeys, type KeymapAction } from '../../../src/ui/keys/index.js';
import { PromptInput } from '../../../src/ui/components/input/index.js';
import { ConfirmLine } from '../../../src/ui/components/dialogs/ConfirmLine.js';
import { KEY, press, tick, waitFor, waitForFrame } from './harness.js';

afterEach(() => cleanup());

/** A promise the test settles: the "core call" behind the question. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

interface ScreenProps {
  /** What asking waits on before the question shows. */
  answer: () => Promise<void>;
  onYes: () => void;
  onSubmit: (text: string) => void;
}

/** `q` asks a y/n question once `answer` settles; until then the prompt has the keys. */
function Screen({ answer, onYes, onSubmit }: ScreenProps) {
  const [asking, setAsking] = useState(false);
  const hold = useHoldKeys();
  useKeys(
    (input) => {
      if (input !== 'q') return false;
      const asked = answer().then(() => setAsking(true));
      hold(asked);
      return true;
    },
    { isActive: !asking, shortcut: true },
  );
  return (
    <>
      {asking ? <ConfirmLine question="Really?" onYes={() => (onYes(), setAsking(false))} onNo={() => setAsking(false)} /> : <Text>idle</Text>}
      <PromptInput onSubmit={onSubmit} isActive={!asking} />
    </>
  );
}

function App(props: ScreenProps & { onAction?: (a: KeymapAction) => void | Promise<unknown> }) {
  const keymap = useMemo(() => createKeymap(), []);
  return (
    <KeyRouter keymap={keymap} {...(props.onAction ? { onAction: props.onAction } : {})}>
      <Screen {...props} />
    </KeyRouter>
  );
}

describe('holding keys behind one whose effect comes later', () => {
  it('a `y` written together with the key that asks answers the question once it is open', async () => {
    const core = gate();
    const onYes = vi.fn();
    const onSubmit = vi.fn<(t: string) => void>();
    const t = render(<App answer={() => core.opened} onYes={onYes} onSubmit={onSubmit} />);
    await tick();
    t.stdin.write('qy');
    await tick(20);
    // The question is not open yet: the `y` waits rather than going anywhere.
    expect(t.lastFrame()).toContain('idle');
    expect(t.lastFrame()).not.toContain('y');
    core.open();
    await waitFor(() => onYes.mock.calls.length === 1, () => t.lastFrame() ?? '');
    await waitForFrame(t.lastFrame, (f) => f.includes('idle'));
    // Keys after it, in the same write, were typed after the answer, in order.
    await press(t.stdin, 'ok', KEY.enter);
    expect(onSubmit).toHaveBeenCalledWith('ok');
  });

  it('keys written after the answer, in the same write, reach the prompt in order', async () => {
    const onYes = vi.fn();
    const onSubmit = vi.fn<(t: string) => void>();
    const t = render(<App answer={() => Promise.resolve()} onYes={onYes} onSubmit={onSubmit} />);
    await tick();
    t.stdin.write('qyab\r');
    await waitFor(() => onSubmit.mock.calls.length === 1, () => t.lastFrame() ?? '');
    expect(onYes).toHaveBeenCalledTimes(1);
    expect(onSubmit).toHaveBeenCalledWith('ab');
  });

  it('a keymap action that returns a promise holds the keys behind it', async () => {
    const core = gate();
    const onYes = vi.fn();
    let ask: () => void = () => {};
    // ctrl+x l stands in for any leader action whose effect comes later.
    const onAction = (action: KeymapAction) => {
      if (action !== 'session_list') return;
      return core.opened.then(() => ask());
    };
    function Asker() {
      const [asking, setAsking] = useState(false);
      ask = () => setAsking(true);
      return asking ? <ConfirmLine question="Open?" onYes={() => (onYes(), setAsking(false))} onNo={() => setAsking(false)} /> : <Text>closed</Text>;
    }
    const keymap = createKeymap();
    const t = render(
      <KeyRouter keymap={keymap} onAction={onAction}>
        <Asker />
      </KeyRouter>,
    );
    await tick();
    t.stdin.write('\u0018ly');
    await tick(20);
    core.open();
    await waitFor(() => onYes.mock.calls.length === 1, () => t.lastFrame() ?? '');
  });
});
