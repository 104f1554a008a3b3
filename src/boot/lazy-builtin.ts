// A stand-in for a Node built-in module that a start may never use (child_process,
// worker_threads, fs/promises…): the code-cached scripts (scripts/cli-script.mjs) take one
// wherever their bundled code requires such a module, so that the module is loaded at the
// first use of one of its members rather than when the script starts. A bundle hoists every
// module's imports of built-ins to its top, so without this a `run` that starts no process
// would still load child_process, and a start that never reads a file asynchronously
// fs/promises and readline.
//
// Contract: reading, testing (`in`), listing, describing or setting a member loads the module
// (once) and does the same on it. `default` reads as the module itself and `__esModule` as
// undefined, as in the namespace object of an ES module import of a built-in; the stand-in
// stands for that namespace too, so no namespace object is built from it at start-up.
export function lazyBuiltin<T extends object>(load: () => T): T {
  let loaded: T | undefined;
  const module = (): T => (loaded ??= load());
  const handler: ProxyHandler<T> = {
    get: (_, key) => {
      if (key === '__esModule') return undefined;
      const real = module();
      return key === 'default' && !('default' in real) ? real : Reflect.get(real, key);
    },
    has: (_, key) => Reflect.has(module(), key),
    ownKeys: () => Reflect.ownKeys(module()),
    // A proxy may describe a member its (empty) target lacks only as configurable.
    getOwnPropertyDescriptor: (_, key) => {
      const found = Reflect.getOwnPropertyDescriptor(module(), key);
      return found && { ...found, configurable: true };
    },
    set: (_, key, value) => Reflect.set(module(), key, value),
  };
  // The target only has to be an object: every trap answers from the module.
  return new Proxy({} as T, handler);
}
