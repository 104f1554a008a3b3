// Coalesces store changes into frames: listeners hear at most one notification per
// interval, always with a trailing one so the last change is never lost. Ten sub-agents
// streaming deltas then cost ~20 renders a second, not one per delta: each render redraws
// the whole live region, which is what the CPU goes on (see bench/RESULTS.md).

export const FRAME_MS = 50;

export interface FrameSource<T> {
  getState(): T;
  subscribe(listener: () => void): () => void;
}

export class FrameScheduler<T> {
  private readonly listeners = new Set<() => void>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastFlush = -Infinity;
  private snapshot: T;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly source: FrameSource<T>,
    private readonly intervalMs = FRAME_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.snapshot = source.getState();
    this.unsubscribe = source.subscribe(() => this.schedule());
  }

  /**
   * The state as of the last frame, not the latest: React reads a value that only moves
   * when listeners are told, so a render never sees a half-applied burst.
   */
  readonly getSnapshot = (): T => this.snapshot;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** Always deferred (even the first change) so a synchronous burst lands in one frame. */
  schedule(): void {
    if (this.timer !== undefined) return;
    const wait = Math.max(0, this.lastFlush + this.intervalMs - this.now());
    this.timer = setTimeout(() => this.flush(), wait);
  }

  /** Delivers pending changes now (tests, and exit paths that must paint the last state). */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.lastFlush = this.now();
    const next = this.source.getState();
    if (next === this.snapshot) return;
    this.snapshot = next;
    for (const listener of [...this.listeners]) listener();
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.unsubscribe();
    this.listeners.clear();
  }
}
