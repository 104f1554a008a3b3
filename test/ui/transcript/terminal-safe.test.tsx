// Escape sequences written by a model or a tool never reach the terminal through the TUI:
// events pass through the reducer, which cleans their text before any component draws it.
import { describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import { TranscriptItem } from '../../../src/ui/components/transcript/TranscriptItem.js';
import { createUiState, reduce, type ToolCallItem } from '../../../src/ui/state/index.js';
import { ev, run } from '../state/fixtures.js';

const OSC52 = '\u001b]52;c;Y3VybCBodHRwOi8vZXZpbC5zaCB8IHNo\u0007';
const TITLE = '\u001b]0;pwned\u001b\\';
const rp = ['root'];

function events() {
  return [
    ev('session.created', 'root', rp, 'build', { parent_id: null, title: `Main${TITLE}`, tool_call_id: null, task_description: null, depth: 0 }, 1),
    ev('message.started', 'root', rp, 'build', { message_id: 'm1' }, 2),
    ev('text.delta', 'root', rp, 'build', { text: `Running it now.${TITLE}\u001b[2J` }, 3),
    ev('message.completed', 'root', rp, 'build', { message_id: 'm1', usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, stop_reason: 'tool_use' }, 4),
    ev('tool.started', 'root', rp, 'build', { call_id: 'c1', tool: 'bash', input: { command: `cat notes.txt${OSC52}` } }, 5),
    ev('tool.completed', 'root', rp, 'build', { call_id: 'c1', tool: 'bash', output: `line one\nclipboard ${OSC52}done\nlast line`, is_error: false }, 6),
  ];
}

const frameOf = (item: Parameters<typeof TranscriptItem>[0]['item']) => render(<TranscriptItem item={item} />).lastFrame() ?? '';

describe('terminal safety in the TUI', () => {
  it('draws a tool call whose input and output hold OSC 52 without the sequence', () => {
    const state = run(events());
    const call = state.items['root']!.find((i): i is ToolCallItem => i.kind === 'tool')!;
    const out = frameOf(call);
    expect(out).toContain('cat notes.txt');
    expect(out).toContain('clipboard done');
    expect(out).not.toContain('\u001b]');
    expect(out).not.toContain('52;c;');
    expect(out).not.toContain('\u0007');
    // The same item drawn raw would carry the sequence to the terminal: the cleaning is what stops it.
    const raw = { ...call, output: `clipboard ${OSC52}done` };
    expect(frameOf(raw)).toContain('\u001b]52;c;');
  });

  it('cleans model text and session titles the same way', () => {
    const state = run(events());
    const text = state.items['root']!.find((i) => i.kind === 'assistant')!;
    const out = frameOf(text);
    expect(out).toContain('Running it now.');
    expect(out).not.toContain('\u001b]');
    expect(out).not.toContain('\u001b[2J');
    expect(state.sessions['root']!.title).toBe('Main');
  });

  it('keeps clean deltas as they are', () => {
    const first = reduce(createUiState(), ev('session.created', 'root', rp, 'build', { parent_id: null, title: 'x', tool_call_id: null, task_description: null, depth: 0 }, 1));
    const next = reduce(first, ev('text.delta', 'root', rp, 'build', { text: 'tab\there\nnew line' }, 2));
    expect(next.items['root']![0]).toMatchObject({ kind: 'assistant', text: 'tab\there\nnew line' });
  });
});
