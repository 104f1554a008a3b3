import { describe, expect, it } from 'vitest';
import { repairHistory } from '../../src/core/agent/history.js';
import type { Message } from '../../src/core/messages.js';

describe('repairHistory', () => {
  it('adds an interrupted result for a tool call that never got one', () => {
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'bash', input: { command: 'ls' } }] },
    ];
    const repaired = repairHistory(history);
    expect(repaired).toHaveLength(3);
    expect(repaired[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't1', content: expect.stringMatching(/interrupted/), is_error: true }],
    });
  });

  it('merges consecutive user messages with tool results first', () => {
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
      { role: 'user', content: [{ type: 'text', text: 'and then?' }] },
    ];
    const repaired = repairHistory(history);
    expect(repaired.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(repaired[2]!.content.map((p) => p.type)).toEqual(['tool_result', 'text']);
  });

  it('fills only the missing results of a partly answered message and drops orphan results', () => {
    const history: Message[] = [
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'ghost', content: 'x' }, { type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a', name: 'read', input: {} },
          { type: 'tool_use', id: 'b', name: 'read', input: {} },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'done' }] },
    ];
    const repaired = repairHistory(history);
    expect(repaired[0]!.content).toEqual([{ type: 'text', text: 'hi' }]);
    const ids = repaired[2]!.content.map((p) => (p.type === 'tool_result' ? p.tool_use_id : p.type));
    expect(ids.sort()).toEqual(['a', 'b']);
  });
});
