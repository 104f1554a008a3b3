// Reading a failed HTTP exchange the same way for every provider: the server's retry-after
// wish and the innermost cause of a network error (the SDKs wrap fetch's error, which wraps
// the socket's; only the innermost says what happened).
import { errorMessage } from '../errors.js';

/** `retry-after-ms`, else `retry-after` (seconds or an HTTP date); undefined when absent or absurd. */
export function retryAfter(headers: Headers | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  let wait = Number.isNaN(ms) ? undefined : ms;
  const raw = headers.get('retry-after');
  if (wait === undefined && raw) {
    const seconds = Number.parseFloat(raw);
    wait = Number.isNaN(seconds) ? Date.parse(raw) - Date.now() : seconds * 1000;
  }
  return wait !== undefined && wait >= 0 && wait <= 2 ** 31 - 1 ? wait : undefined;
}

export function rootCause(err: Error): { message: string; code: string | undefined } {
  let current: Error = err;
  let code: string | undefined;
  for (;;) {
    const c = (current as { code?: unknown }).code;
    if (typeof c === 'string') code = c;
    if (!(current.cause instanceof Error)) break;
    current = current.cause;
  }
  return { message: current.message || errorMessage(err), code };
}

/**
 * A failed attempt in a few words for a status line (`overloaded`, `rate limited`): the long
 * message names the service and the server's own text; this says only what kind of failure
 * the user is waiting out.
 */
export function statusSummary(status: number, errorType?: string | null | undefined): string {
  if (status === 529 || errorType === 'overloaded_error') return 'overloaded';
  if (status === 429) return 'rate limited';
  if (status === 503) return 'service unavailable';
  if (status === 408) return 'request timed out';
  if (status >= 500) return `server error ${status}`;
  return `error ${status}`;
}

/** A network failure in a few words: refused, reset, broke mid-response, or unreachable. */
export function connectionSummary(code: string | undefined, reset: boolean, started: boolean): string {
  if (started) return reset ? 'connection reset mid-response' : 'connection broke mid-response';
  if (reset) return 'connection reset';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return 'connection timed out';
  return 'cannot reach the server';
}
