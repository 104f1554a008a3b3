// The bash permission parser is loaded while a session that can run bash waits for its first
// model reply, so the first bash approval does not pay for loading the grammar; a session
// without bash never loads it. Real engine, tools and Anthropic SDK against the fake server.
// The tests share this file's process, so their order matters: the session without bash runs
// first, while the parser is still cold.
import { afterEach, describe, expect, it } from 'vitest';
import { bashParserState, type BashParserState } from '../../src/core/permission/bash-parser.js';
import { text, toolNames } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { waitFor } from '../support/wait.js';

let h: Harness | undefined;
afterEach(async () => {
  h?.engine.cancelAll();
  await h?.close();
  h = undefined;
});

/** One more turn of the event loop: a warm-up scheduled during the request would have started by then. */
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

  it('has the parser ready while the first request of a session with bash is still unanswered', async () => {
    h = await startHarness();
    expect(bashParserState()).toBe('cold');
    let seenDuringRequest: BashParserState | undefined;
    h.server.setHandler(async () => {
      // The reply waits for the warm-up (with a deadline): today's lazy parser never starts.
      await waitFor(() => bashParserState() === 'ready', 'the bash parser to be warmed up', { timeoutMs: 8000 }).catch(() => undefined);
      seenDuringRequest = bashParserState();
      return text('done');
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'hello')).status).toBe('completed');
    expect(toolNames(h.server.requests[0]!)).toContain('bash');
    expect(seenDuringRequest).toBe('ready');
  });
});
