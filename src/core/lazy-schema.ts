// `lazySchema(build)`: a zod schema that is built the first time anything reads it. Tools'
// parameters and the schemas of files most starts never parse are module constants; building
// them at import cost every `run` ~8 ms (nearly 400 zod constructions, and the garbage
// collections they bring on) before its first model request, which needs none of them: the
// built-in tools' JSON Schemas are made by the build (tools/input-schemas.ts).
//
// Contract:
// - The value stands for the schema everywhere: parse, safeParse, `.optional()`, `.shape`,
//   `instanceof`, z.toJSONSchema… each read goes to the schema, built once, on first read.
// - Its identity is stable and holding or comparing it builds nothing: a WeakMap keyed by it,
//   or `a === b`, stays free (tools/input-schemas.ts and agent/loop.ts rely on that).
// - `builtSchema(s)` gives the schema itself (building it if needed); code that hands a schema
//   to zod's own functions unwraps it first, so zod's registries (`.describe()`, `.meta()`)
//   see the very object they were filled with. `schemaIsBuilt(s)` says whether it was built.
import type * as z from 'zod';

const builders = new WeakMap<object, { build: () => z.ZodType; built?: z.ZodType }>();

function resolve(entry: { build: () => z.ZodType; built?: z.ZodType }): z.ZodType {
  return (entry.built ??= entry.build());
}

export function lazySchema<T extends z.ZodType>(build: () => T): T {
  const entry: { build: () => z.ZodType; built?: z.ZodType } = { build };
  const schema = () => resolve(entry);
  // Every trap goes to the built schema, with the schema as the receiver: zod's instances
  // bind their methods to themselves, so `lazy.parse` is the schema's own `parse`.
  const handler: ProxyHandler<object> = {
    get: (_target, key) => Reflect.get(schema(), key),
    set: (_target, key, value) => Reflect.set(schema(), key, value),
    has: (_target, key) => Reflect.has(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    // Reported configurable: the stand-in (the proxy's target) has none of these properties,
    // and a proxy may not report a non-configurable one its target lacks.
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      return descriptor ? { ...descriptor, configurable: true } : undefined;
    },
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(schema(), key, descriptor),
    deleteProperty: (_target, key) => Reflect.deleteProperty(schema(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  };
  const proxy = new Proxy({}, handler);
  builders.set(proxy, entry);
  return proxy as T;
}

/** The schema `lazy` stands for, built now if it was not yet; any other schema as it is. */
export function builtSchema<T extends z.ZodType>(lazy: T): T {
  const entry = builders.get(lazy);
  // The entry's schema is what `build` returned for this very T (lazySchema's signature).
  return entry ? (resolve(entry) as T) : lazy;
}

/** Whether the schema behind `lazy` exists yet (true for any schema not made by lazySchema). */
export function schemaIsBuilt(lazy: z.ZodType): boolean {
  const entry = builders.get(lazy);
  return !entry || entry.built !== undefined;
}
