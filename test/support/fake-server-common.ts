// What the fake API servers (fake-anthropic.ts, fake-openai.ts) share: counting the requests
// that arrived so a test can wait for the n-th, and closing with connections still open.
import type { Server } from 'node:http';

/** The requests a fake server recorded; `arrived()` after each one wakes the waiters. */
export class RequestLog<T> {
  readonly requests: T[] = [];
  private readonly waiters = new Set<() => void>();

  record(request: T): void {
    this.requests.push(request);
    for (const wake of [...this.waiters]) wake();
  }

  /** Resolves once `n` requests have arrived; rejects, saying how many did, after `timeoutMs`. */
  waitFor(n: number, timeoutMs = 5000): Promise<void> {
    if (this.requests.length >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.requests.length < n) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`Only ${this.requests.length} of ${n} requests arrived within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }
}

/** Closes `server`, ending keep-alive connections a client still holds. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
