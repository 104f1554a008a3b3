// The pure mappings behind `opencode-ink acp`: tool kinds and titles, locations and diffs,
// plans, stop reasons, prompt text and the replay of a stored conversation.
import { describe, expect, it } from 'vitest';
import { promptText } from '../../src/acp/server.js';
import { planFrom, replayUpdates, stopReason, toolDiff, toolKind, toolLocations, toolTitle } from '../../src/acp/translate.js';
import type { TurnOutcome } from '../../src/core/agent/loop.js';
import { emptyUsage } from '../../src/core/messages.js';

const outcome = (status: TurnOutcome['status']): TurnOutcome => ({ status, text: '', usage: emptyUsage(), cost: 0, steps: 1 });

describe('acp translations', () => {
  it('maps tools to kinds, with other for tools it does not know', () => {
    expect(['read', 'edit', 'write', 'grep', 'bash', 'webfetch', 'task', 'mcp__x__y'].map(toolKind)).toEqual(['read', 'edit', 'edit', 'search', 'execute', 'fetch', 'think', 'other']);
  });

  it('titles a call by its main argument and survives malformed input', () => {
    expect(toolTitle('bash', { command: 'npm test\nnpm run lint' })).toBe('bash: npm test');
    expect(toolTitle('task', { subagent_type: 'explore', description: 'Find API routes' })).toBe('explore (Find API routes)');
    expect(toolTitle('read', { file_path: 'src/a.ts' })).toBe('read src/a.ts');
    expect(toolTitle('bash', 'not an object')).toBe('bash');
    expect(toolTitle('edit', null)).toBe('edit');
    expect(toolTitle('bash', { command: 'x'.repeat(500) }).length).toBeLessThan(100);
  });

  it('gives absolute locations and diffs for edits and writes only', () => {
    expect(toolLocations({ file_path: 'src/a.ts', offset: 10 }, '/p')).toEqual([{ path: '/p/src/a.ts', line: 10 }]);
    expect(toolLocations({ command: 'ls' }, '/p')).toEqual([]);
    expect(toolDiff('edit', { file_path: '/abs/a.ts', old_string: 'a', new_string: 'b' }, '/p')).toEqual([{ type: 'diff', path: '/abs/a.ts', oldText: 'a', newText: 'b' }]);
    expect(toolDiff('write', { file_path: 'n.txt', content: 'new' }, '/p')).toEqual([{ type: 'diff', path: '/p/n.txt', oldText: null, newText: 'new' }]);
    expect(toolDiff('edit', { file_path: 'a.ts', old_string: 1 }, '/p')).toEqual([]);
    expect(toolDiff('read', { file_path: 'a.ts' }, '/p')).toEqual([]);
  });

  it('turns a todo list into plan entries, leaving out cancelled ones and bad input', () => {
    expect(planFrom({ todos: [{ content: 'a', status: 'completed' }, { content: 'b', status: 'cancelled' }, { content: '', status: 'pending' }, 'junk', { content: 'c', status: 'weird' }] })).toEqual([
      { content: 'a', priority: 'medium', status: 'completed' },
      { content: 'c', priority: 'medium', status: 'pending' },
    ]);
    expect(planFrom({ todos: 'nope' })).toBeUndefined();
    expect(planFrom(undefined)).toBeUndefined();
  });

  it('maps outcomes and the model stop reason to stop reasons', () => {
    expect(stopReason(outcome('completed'), 'end_turn')).toBe('end_turn');
    expect(stopReason(outcome('cancelled'), 'end_turn')).toBe('cancelled');
    expect(stopReason(outcome('max_turns'), 'tool_use')).toBe('max_turn_requests');
    expect(stopReason(outcome('completed'), 'refusal')).toBe('refusal');
    expect(stopReason(outcome('completed'), 'max_tokens')).toBe('max_tokens');
  });

  it('appends embedded resources and links to the prompt text as context', () => {
    const text = promptText([
      { type: 'text', text: 'Explain ' },
      { type: 'text', text: 'this.' },
      { type: 'resource', resource: { uri: 'file:///p/a.ts', text: 'const a = 1;' } },
      { type: 'resource_link', uri: 'file:///p/b.ts', name: 'b.ts' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    ]);
    expect(text).toBe('Explain this.\n\n<context uri="file:///p/a.ts">\nconst a = 1;\n</context>\n\n<context uri="file:///p/b.ts" name="b.ts">(referenced; read it with your tools if needed)</context>');
  });

  it('replays a conversation: user and agent text, thinking, tool calls and their results', () => {
    const updates = replayUpdates(
      [
        { role: 'user', content: [{ type: 'text', text: 'fix it' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hm', signature: 's' },
            { type: 'tool_use', id: 't1', name: 'edit', input: { file_path: 'a.ts', old_string: 'x', new_string: 'y' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'Edited a.ts' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Fixed.' }] },
      ],
      '/p',
    );
    expect(updates.map((u) => u.sessionUpdate)).toEqual(['user_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk']);
    expect(updates[2]).toMatchObject({ toolCallId: 't1', kind: 'edit', content: [{ type: 'diff', path: '/p/a.ts', oldText: 'x', newText: 'y' }] });
    expect(updates[3]).toMatchObject({ toolCallId: 't1', status: 'completed' });
  });
});
