// Runs a search regex over file contents in a worker thread, so that a pattern which
// backtracks catastrophically (`^(a+)+$` against `aaa…ab`, a backreference, a look-around)
// can never freeze the program: JavaScript's regex engine cannot be interrupted, but a
// worker can be terminated.
//
// Contract
// - `LineMatcher.start(regex, options)` starts one worker for one search; `match(bytes, …)`
//   hands it one file's bytes (decoded as UTF-8 there) and resolves with the matching lines.
//   Files are matched one at a time; `close()` ends the worker and must always be called.
// - The matching time of the whole search (time the worker spends on files, summed) is
//   capped by `timeLimitMs`: past it the worker is terminated and `match` rejects with a
//   `ToolError` that names the pattern and the file, and says how to recover.
// - When `signal` aborts, the worker is terminated at once and `match` rejects with the
//   signal's reason, as any aborted tool does.
// - Lines are split on `\n`, a trailing `\r` is dropped, a final empty line is not a line:
//   the same lines ripgrep reports.
import { Worker } from 'node:worker_threads';
import { ToolError } from './types.js';

/** What the caller needs from a file: every matching line, only the count, or only whether one matches. */
export type MatchMode = 'lines' | 'count' | 'any';

export interface LineHit {
  line: number;
  text: string;
}

export interface FileMatch {
  count: number;
  /** Only in `lines` mode. */
  lines: LineHit[];
}

export interface LineMatcherOptions {
  /** Summed matching time allowed for the whole search. */
  timeLimitMs: number;
  signal?: AbortSignal | undefined;
}

interface Request {
  id: number;
  bytes: Uint8Array;
  mode: MatchMode;
}

// Plain JavaScript evaluated as the worker's script: nothing to bundle or transpile, and the
// same in tests, in the bundled binary and in a library user's build.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const regex = new RegExp(workerData.source, workerData.flags);
parentPort.on('message', ({ id, bytes, mode }) => {
  const lines = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8').split('\\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const hits = [];
  let count = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const text = raw.endsWith('\\r') ? raw.slice(0, -1) : raw;
    if (!regex.test(text)) continue;
    count++;
    if (mode === 'lines') hits.push({ line: i + 1, text });
    else if (mode === 'any') break;
  }
  parentPort.postMessage({ id, count, lines: hits });
});
`;

export class LineMatcher {
  private readonly worker: Worker;
  private nextId = 0;
  private readonly timeLimitMs: number;
  private remainingMs: number;
  private pending: { id: number; resolve: (m: FileMatch) => void; reject: (e: unknown) => void } | undefined;
  private failure: unknown;
  private readonly onAbort = (): void => this.fail(this.signal?.reason);

  private constructor(
    private readonly regex: RegExp,
    options: LineMatcherOptions,
    private readonly signal = options.signal,
  ) {
    this.timeLimitMs = options.timeLimitMs;
    this.remainingMs = options.timeLimitMs;
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { source: regex.source, flags: regex.flags } });
    // Nothing else keeps the process alive for it: a forgotten close() must not hang exit.
    this.worker.unref();
    this.worker.on('message', (reply: { id: number } & FileMatch) => {
      const pending = this.pending;
      if (pending?.id !== reply.id) return;
      this.pending = undefined;
      pending.resolve({ count: reply.count, lines: reply.lines });
    });
    this.worker.on('error', (err) => this.fail(new ToolError(`grep failed: ${err.message}`)));
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  static start(regex: RegExp, options: LineMatcherOptions): LineMatcher {
    options.signal?.throwIfAborted();
    return new LineMatcher(regex, options);
  }

  /** Matches one file's bytes; `label` names the file in a time-limit error. */
  async match(bytes: Uint8Array, mode: MatchMode, label: string): Promise<FileMatch> {
    if (this.failure !== undefined) throw this.failure;
    const id = this.nextId++;
    const started = performance.now();
    const reply = new Promise<FileMatch>((resolve, reject) => {
      this.pending = { id, resolve, reject };
    });
    const timer = setTimeout(() => this.fail(this.tooSlow(label)), Math.max(0, this.remainingMs));
    try {
      const request: Request = { id, bytes, mode };
      this.worker.postMessage(request);
      return await reply;
    } finally {
      clearTimeout(timer);
      this.remainingMs -= performance.now() - started;
    }
  }

  async close(): Promise<void> {
    this.signal?.removeEventListener('abort', this.onAbort);
    await this.worker.terminate();
  }

  private tooSlow(label: string): ToolError {
    const seconds = Math.round(this.timeLimitMs / 100) / 10;
    return new ToolError(
      `The pattern ${JSON.stringify(this.regex.source)} took too long to search (over ${seconds} s in all; stopped in ${label}). ` +
        'It probably backtracks catastrophically, as nested quantifiers like (a+)+ do: use a simpler pattern, or narrow the search with path or glob.',
    );
  }

  /** Stops the worker at once and rejects the file being matched (and every later one). */
  private fail(error: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    void this.worker.terminate();
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(error);
  }
}
