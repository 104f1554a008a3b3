// A bounded window on a command's output, for `bash` and background shells (`bash_output`).
//
// Contract: `push` takes chunks as they arrive and never holds more than `headBytes +
// tailBytes`; what it keeps is the beginning and the end (the middle of a long log rarely
// matters), and it counts what it dropped, in bytes and in lines. `text()` renders the kept
// output with one `[... N bytes (M lines) omitted ...]` line where the middle was; `take()`
// does the same and starts over empty, so each read of a background shell returns only what
// was printed since the previous one.
export const OUTPUT_HEAD_BYTES = 15 * 1024;
export const OUTPUT_TAIL_BYTES = 15 * 1024;

const NEWLINE = 0x0a;

function countLines(chunk: Buffer): number {
  let n = 0;
  for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, i + 1)) n++;
  return n;
}

export class OutputCap {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  /** Bytes pushed since the last `take()` (or ever, for a cap never taken from). */
  total = 0;
  /** Bytes and lines dropped from the middle since the last `take()`. */
  droppedBytes = 0;
  droppedLines = 0;

  constructor(
    private readonly headLimit = OUTPUT_HEAD_BYTES,
    private readonly tailLimit = OUTPUT_TAIL_BYTES,
  ) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headBytes < this.headLimit) {
      const take = chunk.subarray(0, this.headLimit - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (!chunk.length) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes > this.tailLimit) {
      const first = this.tail[0]!;
      const excess = this.tailBytes - this.tailLimit;
      const dropped = first.length <= excess ? first : first.subarray(0, excess);
      if (first.length <= excess) this.tail.shift();
      else this.tail[0] = first.subarray(excess);
      this.tailBytes -= dropped.length;
      this.droppedBytes += dropped.length;
      this.droppedLines += countLines(dropped);
    }
  }

  /** Nothing was pushed since the last `take()`. */
  get empty(): boolean {
    return this.total === 0;
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    if (this.droppedBytes === 0) return head + tail;
    const lines = this.droppedLines === 1 ? '1 line' : `${this.droppedLines} lines`;
    return `${head}\n\n[... ${this.droppedBytes} bytes (${lines}) omitted ...]\n\n${tail}`;
  }

  /** The text so far, and the cap emptied for what comes next. */
  take(): { text: string; droppedBytes: number; droppedLines: number } {
    const taken = { text: this.text(), droppedBytes: this.droppedBytes, droppedLines: this.droppedLines };
    this.head = [];
    this.headBytes = 0;
    this.tail = [];
    this.tailBytes = 0;
    this.total = 0;
    this.droppedBytes = 0;
    this.droppedLines = 0;
    return taken;
  }

  lastChars(n: number): string {
    const text = Buffer.concat(this.tail.length ? this.tail : this.head).toString('utf8');
    return text.slice(-n);
  }
}
