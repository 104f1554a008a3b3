// Errors that carry their own exit code and a one-sentence message meant for the user.
// Anything else reaching the CLI is a bug and is reported as such.

export class UserFacingError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad configuration or usage: exit 2. */
export class ConfigError extends UserFacingError {
  constructor(message: string) {
    super(message, 2);
  }
}

/** The run could not be carried out (no API key, provider refused, ...): exit 1. */
export class RunError extends UserFacingError {
  constructor(message: string) {
    super(message, 1);
  }
}

export class AbortedError extends Error {
  constructor(message = 'Aborted') {
    super(message);
    this.name = 'AbortedError';
  }
}

export function isAbortError(err: unknown): boolean {
  if (err instanceof AbortedError) return true;
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'APIUserAbortError')) return true;
  return false;
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Ends a message with exactly one full stop (or its own `?`/`!`). */
export function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.?!]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
