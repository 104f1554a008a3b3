// src/core/lazy-schema.ts: a schema built on first read stands for it everywhere (parse,
// methods, shape, instanceof, JSON Schema), is built once, and costs nothing while it is only
// held, compared or used as a key.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { builtSchema, lazySchema, schemaIsBuilt } from '../../src/core/lazy-schema.js';

function counted<T extends z.ZodType>(make: () => T) {
  const calls = { n: 0 };
  const schema = lazySchema(() => {
    calls.n++;
    return make();
  });
  return { schema, calls };
}

const person = () => z.object({ name: z.string().min(1), age: z.number().int().optional() }).describe('a person');

describe('lazySchema', () => {
  it('builds nothing while the schema is held, compared or used as a key', () => {
    const { schema, calls } = counted(person);
    const byParameters = new WeakMap([[schema, 'spec']]);
    expect(byParameters.get(schema)).toBe('spec');
    expect(schema === schema).toBe(true);
    expect(new Set([schema, schema]).size).toBe(1);
    expect(calls.n).toBe(0);
    expect(schemaIsBuilt(schema)).toBe(false);
  });

  it('parses, validates and reports errors as the schema does, built once', () => {
    const { schema, calls } = counted(person);
    expect(schema.parse({ name: 'Ada', age: 36 })).toEqual({ name: 'Ada', age: 36 });
    const failed = schema.safeParse({ name: '', age: 1.5 });
    expect(failed.success).toBe(false);
    expect(failed.error && z.prettifyError(failed.error)).toBe(z.prettifyError(person().safeParse({ name: '', age: 1.5 }).error!));
    expect(schema.safeParse({ name: 'x' }).success).toBe(true);
    expect(calls.n).toBe(1);
    expect(schemaIsBuilt(schema)).toBe(true);
  });

  it('answers methods, shape, instanceof and nesting like the schema', () => {
    const { schema } = counted(person);
    expect(schema instanceof z.ZodObject).toBe(true);
    expect(Object.keys(schema.shape)).toEqual(['name', 'age']);
    expect(schema.description).toBe('a person');
    expect(schema.optional().parse(undefined)).toBeUndefined();
    expect(schema.extend({ email: z.email() }).safeParse({ name: 'a', email: 'nope' }).success).toBe(false);
    expect(z.array(schema).parse([{ name: 'b' }])).toEqual([{ name: 'b' }]);
    expect('shape' in schema).toBe(true);
    expect(Object.getPrototypeOf(schema)).toBe(Object.getPrototypeOf(builtSchema(schema)));
  });

  it('gives the schema itself to zod: its JSON Schema keeps what the registries hold', () => {
    const { schema } = counted(person);
    const built = builtSchema(schema);
    expect(builtSchema(schema)).toBe(built);
    expect(z.toJSONSchema(built)).toStrictEqual(z.toJSONSchema(person()));
    expect(z.toJSONSchema(built).description).toBe('a person');
    const plain = person();
    expect(builtSchema(plain)).toBe(plain);
    expect(schemaIsBuilt(plain)).toBe(true);
  });

  it('tells the property descriptors of the schema, as configurable ones', () => {
    const { schema } = counted(person);
    const own = Object.getOwnPropertyDescriptor(schema, '_zod');
    expect(own?.value).toBe(builtSchema(schema)._zod);
    expect(own?.configurable).toBe(true);
    expect(Reflect.ownKeys(schema)).toEqual(Reflect.ownKeys(builtSchema(schema)));
  });
});
