// An unbounded queue read by one async iterator. Contract: `push` never blocks the producer
// (the engine emits synchronously); the iterator yields every item pushed, in order, then
// ends when `close()` is called, throwing the error given to it if any. A second iterator is
// refused with a clear error. A reader that stops early (`break`) detaches: later items are
// dropped instead of kept for nobody.
export class EventQueue<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private head = 0;
  private ended: { error?: unknown } | undefined;
  private wake: (() => void) | undefined;
  private taken = false;
  private detached = false;

  constructor(private readonly what: string) {}

  push(item: T): void {
    if (this.ended || this.detached) return;
    this.items.push(item);
    this.notify();
  }

  /** Ends the iteration after the items already pushed; with an error, the iterator throws it then. */
  close(error?: unknown): void {
    if (this.ended) return;
    this.ended = error === undefined ? {} : { error };
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.taken) throw new Error(`${this.what} can be iterated only once.`);
    this.taken = true;
    try {
      for (;;) {
        if (this.head < this.items.length) {
          const item = this.items[this.head]!;
          this.head++;
          // Let go of what was read, now and then rather than per item.
          if (this.head > 1024 && this.head * 2 > this.items.length) {
            this.items = this.items.slice(this.head);
            this.head = 0;
          }
          yield item;
          continue;
        }
        if (this.ended) {
          if ('error' in this.ended) throw this.ended.error;
          return;
        }
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      this.detached = true;
      this.items = [];
      this.head = 0;
    }
  }
}
