import { afterEach, describe, expect, it } from 'vitest';
import { Text } from 'ink';
import { render, cleanup } from 'ink-testing-library';
import { createKeymap, useKeymap, type KeymapAction, type Keymap } from '../../../src/ui/keys/index.js';
import { KEY, press, tick, waitForFrame } from './harness.js';

afterEach(() => cleanup());

function Probe({ keymap, actions, isActive = true }: { keymap: Keymap; actions: KeymapAction[]; isActive?: boolean }) {
  const { pending } = useKeymap(keymap, (a) => actions.push(a), { isActive, timeoutMs: 200 });
  return <Text>{pending ? 'PENDING' : 'idle'}</Text>;
}

describe('useKeymap', () => {
  it('reports the pending leader and fires the action on the second key', async () => {
    const actions: KeymapAction[] = [];
    const { stdin, lastFrame } = render(<Probe keymap={createKeymap()} actions={actions} />);
    await tick();
    await press(stdin, KEY.ctrlX);
    await waitForFrame(lastFrame, (f) => f.includes('PENDING'));
    await press(stdin, KEY.right);
    await waitForFrame(lastFrame, (f) => f.includes('idle'));
    expect(actions).toEqual(['session_child_cycle']);
  });

  it('drops the pending flag after its timeout', async () => {
    const actions: KeymapAction[] = [];
    const { stdin, lastFrame } = render(<Probe keymap={createKeymap({}, { timeoutMs: 200 })} actions={actions} />);
    await tick();
    await press(stdin, KEY.ctrlX);
    await waitForFrame(lastFrame, (f) => f.includes('PENDING'));
    await waitForFrame(lastFrame, (f) => f.includes('idle'), 1000);
    await press(stdin, KEY.right);
    expect(actions).toEqual([]);
  });

  it('ignores keys while inactive', async () => {
    const actions: KeymapAction[] = [];
    const { stdin } = render(<Probe keymap={createKeymap()} actions={actions} isActive={false} />);
    await tick();
    await press(stdin, KEY.ctrlX, KEY.up);
    expect(actions).toEqual([]);
  });
});
