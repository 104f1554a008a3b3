// Piped input for `run` (and `-p`): what a script sends on stdin joins the prompt.
//
// Contract: stdin is read only when it is a pipe, a socket or a regular file — never a
// terminal, /dev/null or another device (a CI job's closed stdin is reopened as /dev/null
// by Node). Reading ends at EOF or after MAX_STDIN_BYTES (the rest is left unread, so
// `yes | opencode-ink run …` ends too). When the prompt has words of its own, a pipe that
// stays silent for STDIN_FIRST_BYTE_MS (or $OPENCODE_INK_STDIN_WAIT_MS) is given up on: a
// parent process that spawns us with an open stdin it never writes to or closes must not hang
// the run.
import { fstatSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { ConfigError } from '../core/errors.js';

/** About 130k tokens of code or prose: room for the answer in a 200k-token context. */
export const MAX_STDIN_BYTES = 512 * 1024;
/** How long a prompt with words waits for a pipe's first byte. */
export const STDIN_FIRST_BYTE_MS = 3000;
/** Sets that wait (whole milliseconds) for a parent that knows it writes sooner or later. */
export const STDIN_WAIT_ENV = 'OPENCODE_INK_STDIN_WAIT_MS';

/** The first-byte wait `env` asks for, STDIN_FIRST_BYTE_MS when it asks nothing; a usage error when it is not whole milliseconds. */
export function stdinWaitMs(env: NodeJS.ProcessEnv): number {
  const raw = env[STDIN_WAIT_ENV];
  if (raw === undefined || raw === '') return STDIN_FIRST_BYTE_MS;
  if (!/^\d{1,9}$/.test(raw.trim())) throw new ConfigError(`${STDIN_WAIT_ENV} must be a whole number of milliseconds, e.g. 3000; got "${raw}".`);
  return Number(raw.trim());
}

export type InputKind = 'pipe' | 'file' | 'other';

/** What kind of thing file descriptor `fd` is; `other` for terminals, devices and closed descriptors. */
export function inputKind(fd = 0): InputKind {
  try {
    const st = fstatSync(fd);
    if (st.isFIFO() || st.isSocket()) return 'pipe';
    if (st.isFile()) return 'file';
    return 'other';
  } catch {
    return 'other';
  }
}

export interface PipedText {
  text: string;
  /** Bytes read (at most the cap plus one chunk). */
  bytes: number;
  /** The input went on past the cap; `text` holds its first part only. */
  truncated: boolean;
}

export interface ReadOptions {
  maxBytes?: number;
  /** Give up (resolve `undefined`) when no byte has arrived after this many ms. */
  firstByteTimeoutMs?: number;
}

/** Reads `stream` to EOF (or the cap) as UTF-8; undefined when the first byte did not come in time. */
export function readStream(stream: NodeJS.ReadableStream & { destroy?: () => void }, opts: ReadOptions = {}): Promise<PipedText | undefined> {
  const maxBytes = opts.maxBytes ?? MAX_STDIN_BYTES;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    /** Stops listening and settles with `result()` (or with what it throws). */
    const finish = (result: () => PipedText | undefined) => {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      try {
        resolve(result());
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    };
    const text = (truncated: boolean): PipedText => ({ text: decode(Buffer.concat(chunks), maxBytes, truncated), bytes, truncated });
    const stop = () => {
      stream.pause();
      stream.destroy?.();
    };
    const onData = (chunk: Buffer | string) => {
      clearTimeout(timer);
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      chunks.push(buf);
      bytes += buf.length;
      if (bytes > maxBytes) {
        // Stop reading: the writer gets SIGPIPE/EPIPE, as with `head`.
        stop();
        finish(() => text(true));
      }
    };
    const onEnd = () => finish(() => text(false));
    const onError = (err: Error) =>
      finish(() => {
        throw new ConfigError(`Could not read stdin: ${err.message}.`);
      });
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    if (opts.firstByteTimeoutMs !== undefined) {
      timer = setTimeout(() => {
        stop();
        finish(() => undefined);
      }, opts.firstByteTimeoutMs);
    }
  });
}

/** UTF-8 text of `buf`; when truncated, cut at the cap on a whole character (and line, if one is near). */
function decode(buf: Buffer, maxBytes: number, truncated: boolean): string {
  const nul = buf.indexOf(0);
  if (nul !== -1 && nul < maxBytes) {
    throw new ConfigError(`stdin holds binary data (a NUL byte at offset ${nul}); pipe text, or name the file in the prompt for the agent to read.`);
  }
  if (!truncated) return buf.toString('utf8');
  let head = buf.subarray(0, maxBytes);
  const lastNewline = head.lastIndexOf(0x0a);
  if (lastNewline > maxBytes * 0.9) head = head.subarray(0, lastNewline + 1);
  // write() holds back a character cut in half; end() is never called, so it is dropped.
  return new StringDecoder('utf8').write(head);
}

export interface PromptSources {
  words: readonly string[];
  /** Where stdin comes from (see inputKind). */
  kind: InputKind;
  /** Called only when stdin is to be read: creating process.stdin on a terminal has effects of its own. */
  stdin: () => NodeJS.ReadableStream & { destroy?: () => void };
  stderr: NodeJS.WritableStream;
  maxBytes?: number;
  firstByteMs?: number;
}

/**
 * The prompt for `run`: the words, then a blank line and stdin when stdin is piped; stdin
 * alone when there are no words. Throws a usage error (exit 2) when both are empty.
 */
export async function composePrompt(src: PromptSources): Promise<string> {
  const words = src.words.join(' ').trim();
  const maxBytes = src.maxBytes ?? MAX_STDIN_BYTES;
  let piped: PipedText | undefined;
  if (src.kind !== 'other') {
    // Files always end; a pipe may be held open by a parent that never writes. With no
    // words there is nothing else to run, so wait (and say what we are waiting for).
    const firstByteMs = src.firstByteMs ?? STDIN_FIRST_BYTE_MS;
    if (src.kind === 'file' || words === '') {
      const hint = src.kind === 'pipe' ? setTimeout(() => src.stderr.write('Waiting for the prompt on stdin (end it with Ctrl+D)...\n'), firstByteMs) : undefined;
      try {
        piped = await readStream(src.stdin(), { maxBytes });
      } finally {
        clearTimeout(hint);
      }
    } else {
      piped = await readStream(src.stdin(), { maxBytes, firstByteTimeoutMs: firstByteMs });
      if (!piped) {
        src.stderr.write(`Note: nothing arrived on stdin within ${firstByteMs / 1000} s; running the prompt without it (redirect stdin from /dev/null to skip the wait).\n`);
      }
    }
  }
  // trimEnd, not a /\s+$/ regex: that backtracks quadratically over long runs of spaces.
  let input = piped?.text.trimEnd() ?? '';
  if (piped?.truncated && input) {
    const cap = formatBytes(maxBytes);
    src.stderr.write(`Note: stdin is larger than ${cap}; the prompt includes only its first ${cap}.\n`);
    input += `\n[stdin truncated: only the first ${cap} are included]`;
  }
  if (input.trim() === '') input = '';
  if (!words && !input) {
    throw new ConfigError(
      src.kind === 'other'
        ? 'run needs a prompt, e.g. opencode-ink run "explain this repository" (or pipe one on stdin).'
        : 'run needs a prompt, and stdin was empty: pass words, e.g. opencode-ink run "explain this repository", or pipe some text.',
    );
  }
  if (!input) return words;
  if (!words) return input;
  return `${words}\n\n${input}`;
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
