// The tie between a foreground sub-agent and its parent's turn (DESIGN §7 Cancel, §23 detach).
// Contract: `signal` aborts when the parent's turn is cancelled, for as long as the link holds;
// `cut` ends the link for good — a detached child goes on when its former parent is cancelled,
// like a background one. A link must be cut once the child ends, so no listener is left behind.
import { onAbort } from '../abort-fanout.js';

export class ParentLink {
  private readonly relay = new AbortController();
  private unlink: (() => void) | undefined;

  constructor(parentSignal: AbortSignal) {
    this.unlink = onAbort(parentSignal, () => this.relay.abort());
  }

  /** Aborts with the parent's turn while linked. */
  get signal(): AbortSignal {
    return this.relay.signal;
  }

  cut(): void {
    this.unlink?.();
    this.unlink = undefined;
  }
}
