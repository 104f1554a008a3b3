// What the model SDKs print on their own stays out of the user's terminal unless they ran
// with `--debug`. The Anthropic SDK calls console.warn each time a request names a model it
// knows is deprecated ("… will reach end-of-life …": every request, for a whole session),
// and both SDKs have a logger (ClientOptions.logLevel) that warns about their settings.
//
// Contract
// - `--debug` sets OPENCODE_INK_DEBUG=1 in the environment; createProvider reads it from the
//   env it resolves keys from and passes `debug` to the provider.
// - Without debug: the SDK logger is off, and console.warn calls made while a request is
//   built (synchronously, inside the SDK's create/stream call) are dropped. With debug the
//   SDKs behave as shipped.
// - The swap of console.warn lasts only for that synchronous call: nothing else can run
//   in between, and it is restored even when the call throws.

/** The environment variable `--debug` sets for the providers. */
export const DEBUG_ENV = 'OPENCODE_INK_DEBUG';

export function debugFromEnv(env: NodeJS.ProcessEnv): boolean {
  return env[DEBUG_ENV] === '1';
}

/** The SDK client's `logLevel` option. */
export function sdkLogLevel(debug: boolean | undefined): 'warn' | 'off' {
  return debug ? 'warn' : 'off';
}

/** Runs `build` (an SDK call that starts a request) with console.warn silenced unless debugging. */
export function quietSdkCall<T>(debug: boolean | undefined, build: () => T): T {
  if (debug) return build();
  const warn = console.warn;
  console.warn = () => {};
  try {
    return build();
  } finally {
    console.warn = warn;
  }
}
