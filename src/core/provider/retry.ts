/*
 * The stall and retry policy every provider runs its requests under (DESIGN §13: errors,
 * retries, idle watchdogs and cancellation behave the same for every provider).
 *
 * Contract
 * - A request is tried up to `maxRetries + 1` times. Only failures the provider marks
 *   retryable are retried (rate limits, overload, 5xx, dropped connections, stalls); the
 *   wait between attempts doubles from `baseDelayMs` with jitter, or is what the server
 *   asked for (retry-after).
 * - Idle watchdog: an attempt that receives nothing for `idleTimeoutMs` — waiting for the
 *   response to start or between two pieces of a stream — is abandoned ("no data for N s")
 *   and retried.
 * - Overall deadline: `requestTimeoutMs` bounds the time a request spends without data —
 *   waiting for responses that never start, silences that end in a stall, failed attempts
 *   and the waits between them — summed over all attempts. A healthy stream, however long,
 *   never counts against it, so a long answer is never cut off; a request that keeps failing
 *   or stalling ends with a clear error once the budget is spent, or earlier when the next
 *   wait could not fit in it.
 * - Every failure names itself: the provider's message for HTTP errors and broken
 *   connections, "stopped responding: no data for N s" only for a real silence, "timed out"
 *   only for the deadline. A final error says how many attempts were made.
 * - The caller's signal wins everywhere: during an attempt, a stall and a backoff wait the
 *   request rejects with AbortedError at once and nothing is retried.
 * - `onRetry` fires before each wait, so a consumer can discard what the failed attempt
 *   streamed and tell the user what it waits out (which attempt of how many, why, how long).
 */
import { AbortedError, RunError } from '../errors.js';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff wait; doubles per retry (with jitter), capped at MAX_RETRY_DELAY_MS. */
  baseDelayMs: number;
  /** An attempt silent for this long is abandoned and retried. */
  idleTimeoutMs: number;
  /** Time without data a request may spend across all its attempts before it fails. */
  requestTimeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 1_000,
  idleTimeoutMs: 60_000,
  requestTimeoutMs: 120_000,
};

/** A provider's retry settings, each falling back to the default when not configured. */
export interface RetrySettings {
  maxRetries?: number | undefined;
  retryBaseDelayMs?: number | undefined;
  idleTimeoutMs?: number | undefined;
  requestTimeoutMs?: number | undefined;
}

/** The policy a provider's settings give (the same for every provider type). */
export function retryPolicyOf(settings: RetrySettings): RetryPolicy {
  return {
    maxRetries: settings.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
    baseDelayMs: settings.retryBaseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs,
    idleTimeoutMs: settings.idleTimeoutMs ?? DEFAULT_RETRY_POLICY.idleTimeoutMs,
    requestTimeoutMs: settings.requestTimeoutMs ?? DEFAULT_RETRY_POLICY.requestTimeoutMs,
  };
}

const MAX_RETRY_DELAY_MS = 30_000;

/** How a provider describes one failed attempt. */
export interface Failure {
  /** One sentence for the user, e.g. `Anthropic API error 500 (api_error): Internal error`. */
  message: string;
  retryable: boolean;
  /** The server's own retry-after, in ms. */
  retryAfterMs?: number | undefined;
  /** The failure in a few words for a status line, e.g. `overloaded`; `message` when absent. */
  summary?: string | undefined;
}

/** What `onRetry` learns before each wait. */
export interface RetryInfo {
  /** The attempt that failed (1 for the first). */
  attempt: number;
  /** Attempts the policy allows in all. */
  maxAttempts: number;
  delayMs: number;
  /** The failure's full sentence. */
  reason: string;
  /** The failure in a few words (`overloaded`, `connection refused`). */
  summary: string;
  /** The failed attempt had streamed part of a reply, which the retry replaces. */
  midStream: boolean;
}

/** Thrown by an attempt to report a classified network or API failure. */
export class AttemptFailed extends Error {
  constructor(readonly failure: Failure) {
    super(failure.message);
    this.name = 'AttemptFailed';
  }
}

export interface AttemptControls {
  /** Aborted when the caller cancels or the watchdog gives up on this attempt. */
  signal: AbortSignal;
  /** Report that data arrived: resets the idle watchdog. */
  data(): void;
}

export interface RetryRun<T> {
  policy: RetryPolicy;
  /** The caller's signal. */
  signal: AbortSignal;
  /** Names the service in messages, e.g. `Anthropic API`. */
  service: string;
  /** The config key of the deadline, named in its message. */
  deadlineKey: string;
  /**
   * One attempt. Throw AttemptFailed for failures the policy should judge; anything else
   * (a consumer's bug, a programming error) is rethrown unchanged and never retried.
   */
  attempt(controls: AttemptControls): Promise<T>;
  onRetry?(info: RetryInfo): void;
}

export async function withRetries<T>(run: RetryRun<T>): Promise<T> {
  const { policy, signal } = run;
  const attempts = Math.max(1, policy.maxRetries + 1);
  const budget = policy.requestTimeoutMs;
  // Time without data spent so far by failed attempts and waits (see the contract).
  let spent = 0;
  let last: Failure | undefined;
  const deadlineError = (made: number) => {
    const base = `${run.service} request timed out: no usable response within ${formatDuration(budget)} (${run.deadlineKey})`;
    return new RunError(last ? `${base}; last error after ${made} attempt${made === 1 ? '' : 's'}: ${last.message}` : `${base}.`);
  };

  for (let attempt = 1; ; attempt++) {
    if (signal.aborted) throw new AbortedError();
    const controller = new AbortController();
    const forwardAbort = () => controller.abort();
    signal.addEventListener('abort', forwardAbort, { once: true });
    const startedAt = now();
    let firstDataAt: number | undefined;
    let lastDataAt = startedAt;
    let gaveUp: 'stall' | 'deadline' | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(timer);
      // The wait before this attempt's first data counts against the budget only if the
      // attempt fails; while it runs, the budget left bounds how long it may stay silent.
      const head = (firstDataAt ?? lastDataAt) - startedAt;
      const left = budget - spent - head;
      const deadlineFirst = left <= policy.idleTimeoutMs;
      timer = setTimeout(
        () => {
          gaveUp = deadlineFirst ? 'deadline' : 'stall';
          controller.abort();
        },
        Math.max(0, deadlineFirst ? left : policy.idleTimeoutMs),
      );
    };
    try {
      arm();
      return await run.attempt({
        signal: controller.signal,
        data: () => {
          const t = now();
          firstDataAt ??= t;
          lastDataAt = t;
          arm();
        },
      });
    } catch (err) {
      if (signal.aborted) throw new AbortedError();
      const failedAt = now();
      spent += (firstDataAt ?? failedAt) - startedAt + (firstDataAt === undefined ? 0 : failedAt - lastDataAt);
      if (gaveUp === 'deadline') throw deadlineError(attempt);
      let failure: Failure;
      if (gaveUp === 'stall') {
        failure = {
          message: `${run.service} stopped responding: no data for ${formatDuration(policy.idleTimeoutMs)}`,
          retryable: true,
          summary: `no data for ${formatDuration(policy.idleTimeoutMs)}`,
        };
      } else if (err instanceof AttemptFailed) {
        failure = err.failure;
      } else {
        throw err;
      }
      last = failure;
      if (!failure.retryable || attempt >= attempts) {
        throw new RunError(attempt > 1 ? `${failure.message} (gave up after ${attempt} attempts)` : failure.message);
      }
      const delayMs = failure.retryAfterMs ?? backoff(attempt, policy.baseDelayMs);
      if (spent + delayMs >= budget) throw deadlineError(attempt);
      run.onRetry?.({
        attempt,
        maxAttempts: attempts,
        delayMs,
        reason: failure.message,
        summary: failure.summary ?? failure.message,
        midStream: firstDataAt !== undefined,
      });
      await sleep(delayMs, signal);
      spent += delayMs;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', forwardAbort);
    }
  }
}

/** Milliseconds on a monotonic clock (`performance.now()` would load perf_hooks, ~1 ms, on the first request). */
function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60 || s % 60 !== 0) return `${s} s`;
  return `${s / 60} min`;
}

/** Exponential with jitter in the upper half, capped. */
function backoff(attempt: number, baseMs: number): number {
  const ceiling = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new AbortedError());
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
