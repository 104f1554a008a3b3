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
