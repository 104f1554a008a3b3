// Images in the TUI (DESIGN §22): `[image shot.png 64×64]` where the picture is — under the
// user's message it was attached to and under the `read` call that returned it — the same
// when followed live and when reloaded from the store, and counted in the layout's rows.
import { render } from 'ink-testing-library';
import { Box } from 'ink';
import { describe, expect, it } from 'vitest';
import { TranscriptEntryView } from '../../../src/ui/components/transcript/TranscriptItem.js';
import { createUiState, loadHistory, transcriptView, type SessionMeta, type UiState } from '../../../src/ui/state/index.js';
import { entryRows } from '../../../src/ui/screens/live-layout.js';
import type { Message } from '../../../src/core/messages.js';
import { ev, run, usage } from '../state/fixtures.js';

const SID = 'root';
const P = [SID];
const WIDTH = 60;
const SHOT = { name: 'shot.png', width: 64, height: 64, media_type: 'image/png' as const };

function live(): UiState {
  return run([
    ev('session.created', SID, P, 'build', { parent_id: null, title: 'T', tool_call_id: null, task_description: null, depth: 0 }, 1),
    { type: 'ui.user_message', session_id: SID, text: 'what is in @shot.png?', ts: 2 },
    ev('prompt.images', SID, P, 'build', { images: [SHOT] }, 3),
    ev('message.started', SID, P, 'build', { message_id: 'm1' }, 4),
    ev('message.completed', SID, P, 'build', { message_id: 'm1', usage: usage(10, 10), stop_reason: 'tool_use' }, 5),
    ev('tool.started', SID, P, 'build', { call_id: 'call_1', tool: 'read', input: { file_path: 'other.png' } }, 6),
    ev('tool.completed', SID, P, 'build', { call_id: 'call_1', tool: 'read', output: 'Image other.png (PNG, 32×16, 1 KB).', is_error: false, images: [{ ...SHOT, name: 'other.png', width: 32, height: 16 }] }, 7),
  ]);
}

function reloaded(): UiState {
  const ref = { type: 'image' as const, sha256: 'a'.repeat(64), media_type: 'image/png' as const };
  const messages: Message[] = [
    { role: 'user', content: [{ type: 'text', text: 'what is in @shot.png?' }, { ...ref, name: 'shot.png', width: 64, height: 64 }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'read', input: { file_path: 'other.png' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'Image other.png (PNG, 32×16, 1 KB).', images: [{ ...ref, name: 'other.png', width: 32, height: 16 }] }] },
  ];
  const meta: SessionMeta = { parent_id: null, agent: 'build', title: 'T', status: 'completed', created_at: 1 };
  return loadHistory(createUiState(), SID, messages, meta);
}

function draw(state: UiState): { frame: string; rows: number } {
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
  const rows = entries.reduce((n, entry) => n + entryRows(entry, { state, width: WIDTH, latestTools: 0, expanded: false }), 0);
  return { frame, rows };
}

describe('images in the transcript', () => {
  it('shows [image shot.png 64×64] under the user message and under the read call, live', () => {
    const { frame, rows } = draw(live());
    const lines = frame.split('\n');
    const prompt = lines.findIndex((l) => l.includes('what is in @shot.png?'));
    expect(lines[prompt + 1]).toContain('[image shot.png 64×64]');
    const call = lines.findIndex((l) => l.includes('read') && l.includes('other.png'));
    expect(lines[call + 1]).toContain('[image other.png 32×16]');
    expect(rows).toBe(lines.length);
  });

  it('keeps a typed prompt out of the printed transcript until the core attached its pictures', () => {
    // <Static> prints an item once: printed before `prompt.images`, the prompt line would never show them.
    let state = run([
      ev('session.created', SID, P, 'build', { parent_id: null, title: 'T', tool_call_id: null, task_description: null, depth: 0 }, 1),
      { type: 'ui.user_message', session_id: SID, text: 'what is in @shot.png?', ts: 2 },
    ]);
    expect(transcriptView(state, SID).finished).toHaveLength(0);
    state = run([ev('prompt.images', SID, P, 'build', { images: [SHOT] }, 3)], state);
    const [printed] = transcriptView(state, SID).finished;
    expect(printed?.item).toMatchObject({ kind: 'user', text: 'what is in @shot.png?', images: [SHOT] });
    expect(draw(state).frame).toContain('[image shot.png 64×64]');
  });

  it('prints a prompt without pictures once its turn starts, or once the core refused it', () => {
    const typed = run([
      ev('session.created', SID, P, 'build', { parent_id: null, title: 'T', tool_call_id: null, task_description: null, depth: 0 }, 1),
      { type: 'ui.user_message', session_id: SID, text: 'hello', ts: 2 },
    ]);
    expect(transcriptView(run([ev('session.status', SID, P, 'build', { status: 'running' }, 3)], typed), SID).finished).toHaveLength(1);
    expect(transcriptView(run([{ type: 'ui.prompt_settled', session_id: SID }], typed), SID).finished).toHaveLength(1);
  });

  it('draws a reloaded session the same way', () => {
    expect(draw(reloaded()).frame).toBe(draw(live()).frame);
  });

  it('keeps escape sequences in a file name off the screen', () => {
    const state = run([
      ev('session.created', SID, P, 'build', { parent_id: null, title: 'T', tool_call_id: null, task_description: null, depth: 0 }, 1),
      { type: 'ui.user_message', session_id: SID, text: 'look', ts: 2 },
      ev('prompt.images', SID, P, 'build', { images: [{ ...SHOT, name: 'evil\u001b[31m.png' }] }, 3),
    ]);
    expect(draw(state).frame).not.toContain('\u001b[31m');
  });
});
