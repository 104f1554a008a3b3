// The prompt `run` builds from its words and piped stdin, at the edges: the byte cap on a
// multi-byte character, a writer that never writes, where the blank line goes.
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { composePrompt, readStream, STDIN_FIRST_BYTE_MS, stdinWaitMs, type InputKind } from '../../src/cli/stdin.js';
import { ConfigError } from '../../src/core/errors.js';

function sink(): { stream: Writable; text: () => string } {
  let out = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out += chunk.toString();
      cb();
    },
  });
  return { stream, text: () => out };
}

function compose(words: string[], input: string | Buffer | undefined, kind: InputKind = 'pipe', extra: { maxBytes?: number; firstByteMs?: number } = {}) {
  const stdin = new PassThrough();
  if (input !== undefined) stdin.end(input);
  const err = sink();
  return { result: composePrompt({ words, kind, stdin: () => stdin, stderr: err.stream, ...extra }), stderr: err.text, stdin };
}

describe('composePrompt', () => {
  it('puts stdin after the words and a blank line, trimming only its trailing whitespace', async () => {
    expect(await compose(['review', 'this'], '  indented\n\n').result).toBe('review this\n\n  indented');
  });

  it('uses stdin alone without words, and words alone when stdin is blank', async () => {
    expect(await compose([], 'just stdin\n').result).toBe('just stdin');
    expect(await compose(['just', 'words'], ' \n\t\n').result).toBe('just words');
  });

  it('never reads stdin that is not a pipe or a file', async () => {
    expect(await compose(['words'], 'ignored', 'other').result).toBe('words');
    await expect(compose([], 'ignored', 'other').result).rejects.toThrow(ConfigError);
  });

  it('cuts at the cap on a whole character, never half of one', async () => {
    // 'é' is two bytes: a cap of 5 bytes falls in the middle of the third.
    const { result, stderr } = compose(['x'], 'ééééé', 'pipe', { maxBytes: 5 });
    const prompt = await result;
    expect(prompt).toBe('x\n\néé\n[stdin truncated: only the first 5 bytes are included]');
    expect(prompt).not.toContain('\uFFFD');
    expect(stderr()).toContain('larger than 5 bytes');
  });

  it('gives up on a silent pipe after the wait when there are words', async () => {
    const { result, stderr } = compose(['words'], undefined, 'pipe', { firstByteMs: 20 });
    expect(await result).toBe('words');
    expect(stderr()).toContain('nothing arrived on stdin within 0.02 s');
  });

  it('waits for a file however slow, even with words', async () => {
    const { result, stdin } = compose(['words'], undefined, 'file', { firstByteMs: 5 });
    setTimeout(() => stdin.end('late'), 40);
    expect(await result).toBe('words\n\nlate');
  });

  it('trims a huge run of trailing-looking whitespace quickly (no regex backtracking)', async () => {
    const spaces = `${' '.repeat(400_000)}x${' '.repeat(10)}`;
    expect(await compose(['w'], spaces, 'pipe', { maxBytes: 1_000_000 }).result).toBe(`w\n\n${' '.repeat(400_000)}x`);
  });

  it('refuses binary input', async () => {
    await expect(compose(['x'], Buffer.from([0x41, 0x00, 0x42])).result).rejects.toThrow(/binary data \(a NUL byte at offset 1\)/);
  });
});

describe('readStream', () => {
  it('reports how many bytes it read and whether it stopped early', async () => {
    const stdin = new PassThrough();
    stdin.end('abcdef');
    expect(await readStream(stdin, { maxBytes: 100 })).toEqual({ text: 'abcdef', bytes: 6, truncated: false });
  });

  it('turns a read error into a one-line usage error', async () => {
    const stdin = new PassThrough();
    const read = readStream(stdin);
    stdin.destroy(new Error('EIO: i/o error'));
    await expect(read).rejects.toThrow('Could not read stdin: EIO: i/o error.');
  });
});

describe('stdinWaitMs', () => {
  it('is the default without OPENCODE_INK_STDIN_WAIT_MS, and its whole milliseconds with it', () => {
    expect(stdinWaitMs({})).toBe(STDIN_FIRST_BYTE_MS);
    expect(stdinWaitMs({ OPENCODE_INK_STDIN_WAIT_MS: '' })).toBe(STDIN_FIRST_BYTE_MS);
    expect(stdinWaitMs({ OPENCODE_INK_STDIN_WAIT_MS: '250' })).toBe(250);
    expect(stdinWaitMs({ OPENCODE_INK_STDIN_WAIT_MS: '0' })).toBe(0);
  });

  it('refuses anything else in one sentence naming the variable', () => {
    for (const bad of ['2s', '-1', '1.5', 'soon', '9999999999']) {
      expect(() => stdinWaitMs({ OPENCODE_INK_STDIN_WAIT_MS: bad })).toThrow(ConfigError);
      expect(() => stdinWaitMs({ OPENCODE_INK_STDIN_WAIT_MS: bad })).toThrow(`OPENCODE_INK_STDIN_WAIT_MS must be a whole number of milliseconds, e.g. 3000; got "${bad}".`);
    }
  });
});
