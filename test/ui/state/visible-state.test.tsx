// What the viewed session's screen redraws for: its own changes and child statuses on the
// next frame, child tool-call summaries on the clock tick.
import { Text } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, describe, it } from 'vitest';
import { createUiStore, FrameScheduler, type UiState } from '../../../src/ui/state/index.js';
import { useVisibleState } from '../../../src/ui/state/use-visible-state.js';
import { waitForFrame } from '../keys/harness.js';
import { A, ev, ROOT, treeEvents } from './fixtures.js';

function View({ frames }: { frames: FrameScheduler<UiState> }) {
  const state = useVisibleState(frames, ROOT);
  const tools = (state.items[A] ?? []).filter((i) => i.kind === 'tool').length;
  const rootText = (state.items[ROOT] ?? []).map((i) => (i.kind === 'assistant' ? i.text : '')).join('');
  return <Text>{`tools=${tools} text=${rootText} status=${state.sessions[A]?.status}`}</Text>;
}

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('useVisibleState', () => {
  it('shows its own text, a child status and a child tool call', async () => {
    const store = createUiStore();
    for (const e of treeEvents()) store.dispatch(e);
    const frames = new FrameScheduler<UiState>(store, 20);
    const app = render(<View frames={frames} />);
    cleanup = () => {
      app.unmount();
      frames.dispose();
    };
    const first = await waitForFrame(app.lastFrame, (f) => f.startsWith('tools='));
    const tools = Number(/tools=(\d+)/.exec(first)![1]);

    store.dispatch(ev('text.delta', ROOT, [ROOT], 'build', { text: 'hello' }));
    await waitForFrame(app.lastFrame, (f) => /text=.*hello/.test(f));

    store.dispatch(ev('session.status', A, [ROOT, A], 'explore', { status: 'completed' }));
    await waitForFrame(app.lastFrame, (f) => f.includes('status=completed'));

    store.dispatch(ev('tool.started', A, [ROOT, A], 'explore', { call_id: 'z1', tool: 'read', input: { file_path: 'q' } }));
    await waitForFrame(app.lastFrame, (f) => f.includes(`tools=${tools + 1}`));
  });
});
