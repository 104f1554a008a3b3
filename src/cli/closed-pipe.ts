// Closed pipes: when the reader of our output goes away (`opencode-ink … | head -1`), the
// next write fails with EPIPE, which Node reports as an 'error' event — fatal, with a stack
// trace, when nobody listens. This watcher listens on stdout and stderr: an EPIPE on stdout
// aborts `signal` (a run stops instead of spending tokens nobody reads) and the command then
// exits with CLOSED_PIPE_EXIT, the status a shell reports for a process ended by SIGPIPE.
// Errors on stderr are swallowed: there is nowhere left to report them.

/** 128 + SIGPIPE: what `set -o pipefail` sees from `yes | head -1`'s `yes`. */
export const CLOSED_PIPE_EXIT = 141;

export interface OutputWatch {
  /** Aborted once stdout's reader has gone away. */
  readonly signal: AbortSignal;
}

/** Listens for the rest of the process: a late EPIPE (the last flush) must not crash either. */
export function watchOutput(stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): OutputWatch {
  const controller = new AbortController();
  // EPIPE, or any other failure (a full disk under a redirect): the output is lost either way.
  const onStdoutError = () => controller.abort();
  stdout.on('error', onStdoutError);
  stderr.on('error', () => {});
  return { signal: controller.signal };
}
