// A long answer streamed in awkward deltas (a paragraph break split between its two
// newlines, a word split in half) draws the same as the same answer reloaded from the
// store: the pieces that move into <Static> keep the blank lines between them.
import { render } from 'ink-testing-library';
import { Box } from 'ink';
import { beforeAll, describe, expect, it } from 'vitest';
import { TranscriptEntryView } from '../../../src/ui/components/transcript/TranscriptItem.js';
import { createUiState, loadHistory, transcriptView, type SessionMeta, type UiInput, type UiState } from '../../../src/ui/state/index.js';
import { entryRows } from '../../../src/ui/screens/live-layout.js';
import { loadMarkdown } from '../../../src/ui/render/markdown.js';

// The app loads marked once its first frame is drawn (or before it, for a transcript).
beforeAll(() => loadMarkdown());
import { ev, run, usage } from '../state/fixtures.js';

const SID = 'root';
const P = [SID];
const WIDTH = 60;

/** Paragraphs, a list, a heading and a fence: 60+ lines, so the stream is cut several times. */
const ANSWER = Array.from({ length: 12 }, (_, i) =>
  [`## Part ${i + 1}`, '', `Paragraph ${i + 1} explains one thing.`, 'It goes on for a second line.', '', `- point ${i}a`, `- point ${i}b`, '', ...(i % 4 === 0 ? ['```ts', `const part = ${i};`, '', 'return part;', '```', ''] : [])].join('\n'),
).join('\n');

/** Deltas cut at awkward places: between the two newlines of every paragraph break, inside words. */
function awkwardDeltas(text: string): string[] {
  const deltas: string[] = [];
  let start = 0;
  for (let i = 1; i < text.length; i++) {
    if ((text[i - 1] === '\n' && text[i] === '\n') || i % 7 === 0) {
      deltas.push(text.slice(start, i));
      start = i;
    }
  }
  deltas.push(text.slice(start));
  return deltas;
}

function streamed(deltas: string[]): UiState {
  const events: UiInput[] = [
    ev('session.created', SID, P, 'build', { parent_id: null, title: 'T', tool_call_id: null, task_description: null, depth: 0 }, 1),
    ev('message.started', SID, P, 'build', { message_id: 'm1' }, 2),
    ...deltas.map((text) => ev('text.delta', SID, P, 'build', { text }, 3)),
  ];
  return run(events);
}

function finish(state: UiState): UiState {
  return run([ev('message.completed', SID, P, 'build', { message_id: 'm1', usage: usage(10, 10), stop_reason: 'end_turn' }, 4)], state);
}

const META: SessionMeta = { parent_id: null, agent: 'build', title: 'T', status: 'completed', created_at: 1 };

/** The same text as the store gives it back: one message, never cut. */
function reloaded(text = ANSWER): UiState {
  return loadHistory(createUiState(), SID, [{ role: 'assistant', content: [{ type: 'text', text }] }], META);
}

/** The transcript as the app draws it: printed pieces, then the live ones, one column. */
function draw(state: UiState): string {
  const view = transcriptView(state, SID);
  const entries = [...view.finished, ...view.live];
  const { lastFrame, unmount } = render(
    <Box flexDirection="column" width={WIDTH}>
      {entries.map((entry) => (
        <TranscriptEntryView key={entry.key} entry={entry} state={state} width={WIDTH} />
      ))}
    </Box>,
  );
  const frame = lastFrame() ?? '';
  unmount();
  return frame;
}

function counted(state: UiState): number {
  const view = transcriptView(state, SID);
  return [...view.finished, ...view.live].reduce((n, entry) => n + entryRows(entry, { state, width: WIDTH, latestTools: 0, expanded: false }), 0);
}

describe('a streamed answer', () => {
  it('was cut into pieces, and draws exactly as the reloaded answer, blank lines included', () => {
    const state = finish(streamed(awkwardDeltas(ANSWER)));
    const view = transcriptView(state, SID);
    expect(view.finished.length).toBeGreaterThan(2);
    const whole = draw(reloaded());
    expect(whole.split('\n').filter((l) => l.trim() === '').length).toBeGreaterThan(30);
    expect(draw(state)).toBe(whole);
  });

  it('draws the same while still streaming, and its rows are counted exactly', () => {
    const deltas = awkwardDeltas(ANSWER);
    for (const upTo of [deltas.length, Math.floor(deltas.length / 2)]) {
      const state = streamed(deltas.slice(0, upTo));
      const text = deltas.slice(0, upTo).join('');
      expect(transcriptView(state, SID).finished.length).toBeGreaterThan(0);
      expect(draw(state)).toBe(draw(reloaded(text)));
      expect(counted(state)).toBe(draw(state).split('\n').length);
    }
  });
});
