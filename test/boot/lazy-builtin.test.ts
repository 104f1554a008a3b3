// The stand-in the code-cached scripts take for a built-in a start may never use: the module
// is loaded at the first use of a member, once, and the stand-in answers as the module (and as
// the namespace object of an ES module import of it) for every kind of use.
import { describe, expect, it } from 'vitest';
import { lazyBuiltin } from '../../src/boot/lazy-builtin.js';

/** A module whose loads are counted. */
function counted() {
  const state = { loads: 0 };
  const real = { version: 3, greet: (name: string) => `hello ${name}`, Thing: class Thing {} };
  const standIn = lazyBuiltin(() => {
    state.loads++;
    return real;
  });
  return { state, real, standIn };
}

describe('a lazily loaded built-in', () => {
  it('is not loaded until a member is used, then once', () => {
    const { state, standIn } = counted();
    expect(state.loads).toBe(0);
    expect(standIn.greet('you')).toBe('hello you');
    expect(standIn.version).toBe(3);
    expect(new standIn.Thing()).toBeInstanceOf(standIn.Thing);
    expect(state.loads).toBe(1);
  });

  it('answers `in`, listing, describing and setting as the module', () => {
    const { real, standIn } = counted();
    expect('greet' in standIn).toBe(true);
    expect('missing' in standIn).toBe(false);
    expect(Object.keys(standIn)).toEqual(['version', 'greet', 'Thing']);
    expect(Object.getOwnPropertyDescriptor(standIn, 'version')).toMatchObject({ value: 3, enumerable: true });
    expect({ ...standIn }).toEqual(real);
    standIn.version = 4;
    expect(real.version).toBe(4);
  });

  it('reads as an ES module namespace: `default` is the module, and `__esModule` loads nothing', () => {
    const { state, real, standIn } = counted();
    expect((standIn as Record<string, unknown>).__esModule).toBeUndefined();
    expect(state.loads).toBe(0);
    expect((standIn as Record<string, unknown>).default).toBe(real);
  });

  it('stands for a real built-in', async () => {
    const { createRequire } = await import('node:module');
    const require = createRequire(import.meta.url);
    const childProcess = lazyBuiltin(() => require('node:child_process') as typeof import('node:child_process'));
    expect(childProcess.execFileSync(process.execPath, ['-e', 'process.stdout.write("ran")'], { encoding: 'utf8' })).toBe('ran');
  });
});
