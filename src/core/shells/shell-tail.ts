// What a background shell printed last, for a person watching it (`/shells`, Enter), apart
// from the model's reads. Contract: `push` keeps at most TAIL_BYTES of the newest output
// (whole buffers, cut at the front), never touching what `bash_output` will return; `text()`
// is that tail; `watch(listener)` hands each later chunk to the listener until the returned
// function is called. Listeners that throw are dropped, so a broken view cannot stop a shell.
export const TAIL_BYTES = 8 * 1024;

export class ShellTail {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private readonly listeners = new Set<(text: string) => void>();

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.bytes > TAIL_BYTES && this.chunks.length > 0) {
      const first = this.chunks[0]!;
      const over = this.bytes - TAIL_BYTES;
      if (first.length <= over) {
        this.chunks.shift();
        this.bytes -= first.length;
      } else {
        this.chunks[0] = first.subarray(over);
        this.bytes -= over;
      }
    }
    if (this.listeners.size === 0) return;
    const text = chunk.toString('utf8');
    for (const listener of [...this.listeners]) {
      try {
        listener(text);
      } catch {
        this.listeners.delete(listener);
      }
    }
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }

  watch(listener: (text: string) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
