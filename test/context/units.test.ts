// Context management's pure parts: limits, pruning, the stored summary's reading, cut points.
import { describe, expect, it } from 'vitest';
import { activeHistory, chooseCut, compactionMark, pruneToolOutputs, requestChars, summaryMessage } from '../../src/core/context/index.js';
import type { Message } from '../../src/core/messages.js';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const call = (id: string): Message => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'read', input: { file_path: id } }] });
const result = (id: string, size = 1000): Message => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'x'.repeat(size) }] });

describe('pruneToolOutputs', () => {
  it('replaces outputs older than the last two tool rounds with a note', () => {
    const history = [user('go'), call('a'), result('a'), call('b'), result('b', 100), call('c'), result('c'), call('d'), result('d')];
    const { messages, pruned } = pruneToolOutputs(history);
    expect(pruned).toBe(1);
    expect(messages[2]!.content[0]).toEqual({ type: 'tool_result', tool_use_id: 'a', content: '[output pruned: 1000 chars]' });
    expect(messages[4]).toBe(history[4]);
    expect(messages[6]).toBe(history[6]);
    expect(messages[8]).toBe(history[8]);
    expect(history[2]!.content[0]).toMatchObject({ content: 'x'.repeat(1000) });
  });
});

describe('activeHistory', () => {
  it('starts from the newest summary, with the messages it kept, and nests', () => {
    const h: Message[] = [user('one'), call('a'), result('a'), user('two'), call('b'), result('b')];
    h.push(summaryMessage('S1', { kept: 3, tokens_before: 10 }));
    const first = activeHistory(h);
    expect(first).toHaveLength(4);
    expect(JSON.stringify(first[0])).toContain('S1');
    expect(first.slice(1)).toEqual(h.slice(3, 6));
    h.push(user('three'), call('c'), result('c'));
    // The active history is now [S1, two, b-call, b-result, three, c-call, c-result]; keep the last 3.
    h.push(summaryMessage('S2', { kept: 3, tokens_before: 10 }));
    const active = activeHistory(h);
    expect(active).toHaveLength(4);
    expect(compactionMark(active[0]!)).toEqual({ kept: 3, tokens_before: 10 });
    expect(JSON.stringify(active)).toContain('S2');
    expect(JSON.stringify(active)).not.toContain('S1');
    expect(JSON.stringify(active)).toContain('three');
    expect(JSON.stringify(active)).not.toContain('"two"');
  });

  it('treats a damaged mark as an ordinary message', () => {
    const bad = { role: 'user', content: [{ type: 'text', text: 'x', compaction: { kept: -1, tokens_before: 0 } }] } as Message;
    const h = [user('one'), bad];
    expect(activeHistory(h)).toEqual(h);
    expect(compactionMark(bad)).toBeUndefined();
  });
});

describe('chooseCut', () => {
  it('keeps the last two user turns when they fit, never starting at tool results', () => {
    const h = [user('one'), call('a'), result('a'), user('two'), call('b'), result('b'), user('three')];
    expect(chooseCut(h, 10_000)).toBe(3);
    // Too big to keep two turns: the longest tail that fits, starting at an assistant message.
    const cut = chooseCut(h, 300)!;
    expect(h[cut]!.role === 'assistant' || h[cut]!.content.some((p) => p.type === 'text')).toBe(true);
    expect(cut).toBeGreaterThan(3);
    expect(chooseCut([user('only')], 10_000)).toBeUndefined();
  });
});

describe('requestChars', () => {
  it('counts the tools as their JSON, whether a spec is measured for the first time or again, in any list', () => {
    const read = { name: 'read', description: 'Reads a file "quoted" ünïcode', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } };
    const task = { name: 'task', description: 'Starts a sub-agent', input_schema: { type: 'object', properties: { prompt: { type: 'string', description: 'x'.repeat(500) } }, required: ['prompt'] } };
    const messages = [user('hello')];
    const plain = (tools: readonly object[]) => 'sys'.length + JSON.stringify(tools).length + JSON.stringify(messages).length;
    for (const tools of [[], [read], [read, task], [task, read], [read, task], [task, task, read]]) {
      expect(requestChars({ system: 'sys', tools, messages })).toBe(plain(tools));
    }
  });
});
