// The router's two layers: a shortcut handler sees each key before the prompt, whatever the
// order the components mounted in, and a key it consumes (returns true) never reaches the
// prompt; one it passes on does — even in a burst of keys read at once.
import { afterEach, expect, it, vi } from 'vitest';
import { Text } from 'ink';
import { render, cleanup } from 'ink-testing-library';
import { KeyRouter, useKeys } from '../../../src/ui/keys/index.js';
import { PromptInput } from '../../../src/ui/components/input/index.js';
import { KEY, press, tick, waitFor } from './harness.js';

afterEach(() => cleanup());

const CTRL_B = '\u0002';

/** Consumes Ctrl+B while `armed` says so, like the screen's "background" key. */
function Background({ armed, seen }: { armed: () => boolean; seen: (consumed: boolean) => void }) {
  useKeys(
    (input, key) => {
      if (!key.ctrl || input !== 'b') return false;
      const consumed = armed();
      seen(consumed);
      return consumed;
    },
    { shortcut: true },
  );
  return <Text>shortcut</Text>;
}

it('a shortcut that consumes Ctrl+B keeps it from the prompt; one that passes it on lets the cursor move', async () => {
  let armed = true;
  const seen = vi.fn<(consumed: boolean) => void>();
  const onSubmit = vi.fn<(text: string) => void>();
  // The prompt mounts first, so it subscribes first: the layer, not the order, decides.
  const t = render(
    <KeyRouter>
      <PromptInput onSubmit={onSubmit} />
      <Background armed={() => armed} seen={seen} />
    </KeyRouter>,
  );
  await tick();
  await press(t.stdin, 'ab', CTRL_B, 'X', KEY.enter);
  await waitFor(() => onSubmit.mock.calls.length === 1);
  expect(onSubmit).toHaveBeenLastCalledWith('abX');

  armed = false;
  // In one write: Ink hands the keys over before React renders in between.
  t.stdin.write(`ab${CTRL_B}X\r`);
  await waitFor(() => onSubmit.mock.calls.length === 2);
  expect(onSubmit).toHaveBeenLastCalledWith('aXb');
  expect(seen.mock.calls).toEqual([[true], [false]]);
});
