// The bash permission parser loads as the model begins writing a bash call, so that call's
// permission check does not also pay for loading the grammar; a session that never calls
// bash never loads it, even when bash is among its tools. Real engine, tools and Anthropic
// SDK against the fake server. The tests share this file's process (and its one parser), so
// their order matters: the sessions that must leave it cold run first.
import { afterEach, describe, expect, it } from 'vitest';
import { bashParserState } from '../../src/core/permission/bash-parser.js';
import { reply, text, toolNames } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  h?.engine.cancelAll();
  await h?.close();
  h = undefined;
});

/** One more turn of the event loop: a warm-up started during the request would have begun by then. */
const nextTurnOfTheLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('bash parser warm-up', () => {
  it('does not load the parser for a session whose agent has no bash', async () => {
    h = await startHarness({ config: { agent: { build: { tools: { bash: false } } } } });
    expect(bashParserState()).toBe('cold');
    h.server.enqueue(text('done'));
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'hello')).status).toBe('completed');
    expect(toolNames(h.server.requests[0]!)).not.toContain('bash');
    await nextTurnOfTheLoop();
    expect(bashParserState()).toBe('cold');
  });

  it('does not load the parser for a session that has bash but only reads', async () => {
    h = await startHarness();
    // A slow reply: time enough for any warm-up that starts while a request is out.
    h.server.enqueue({ ...reply({ type: 'tool_use', name: 'glob', input: { pattern: '*' } }), delayMs: 500 }, text('done'));
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'hello')).status).toBe('completed');
    expect(toolNames(h.server.requests[0]!)).toContain('bash');
    await nextTurnOfTheLoop();
    expect(bashParserState()).toBe('cold');
  });

  it('starts loading the parser while a bash call is still streaming in', async () => {
    h = await startHarness();
    // A slow stream: the call's blocks arrive 250 ms apart, so it is still being written well
    // after its content_block_start.
    h.server.enqueue({ ...reply({ type: 'tool_use', name: 'bash', input: { command: 'echo hi' } }), chunkDelayMs: 250 }, text('done'));
    let stateWhenToolStarted: string | undefined;
    h.engine.on((event) => {
      if (event.type === 'tool.started' && stateWhenToolStarted === undefined) stateWhenToolStarted = bashParserState();
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'say hi')).status).toBe('completed');
    // Before the call was whole (tool.started), its check's parser was already on its way.
    expect(stateWhenToolStarted).toBeDefined();
    expect(stateWhenToolStarted).not.toBe('cold');
  });
});
