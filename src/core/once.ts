// `once(build)`: a function that calls `build` the first time it is called and returns the
// same value every time after. For values only some starts need, zod schemas above all:
// building a schema at import costs every start, whether or not anything is parsed with it.
export function once<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}
