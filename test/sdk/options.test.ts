// Bad options to query() and tool() throw at once, one sentence naming what is wrong; problems
// found when the query runs (configuration, credentials) reject result() instead.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { query, tool, type QueryOptions } from '../../src/sdk/index.js';

const lookup = tool({ name: 'lookup', description: 'Looks a word up.', input: z.object({ word: z.string() }), run: ({ word }) => word });

describe('query() options', () => {
  it.each<[string, unknown, RegExp]>([
    ['no prompt', { prompt: '  ' }, /^query\(\): prompt must be a non-empty string\.$/],
    ['a misspelt option', { prompt: 'x', canUseTools: () => 'once' }, /^query\(\): unknown option "canUseTools"; the options are prompt, cwd, /],
    ['a missing folder', { prompt: 'x', cwd: '/no/such/folder' }, /^query\(\): cwd "\/no\/such\/folder" is not a folder\.$/],
    ['a callback that is not a function', { prompt: 'x', canUseTool: 'once' }, /^query\(\): canUseTool must be a function when given\.$/],
    ['a signal that is not one', { prompt: 'x', signal: { aborted: false } }, /^query\(\): signal must be an AbortSignal/],
    ['a tool not made by tool()', { prompt: 'x', tools: [{ name: 'lookup', description: 'd' }] }, /^query\(\): tools\[0\] was not made with tool\(\) from opencode-ink\/sdk\.$/],
    ['a tool named like a built-in', { prompt: 'x', tools: [tool({ name: 'read', description: 'd', input: z.object({}), run: () => '' })] }, /^query\(\): tool "read" has the name of a built-in tool; choose another\.$/],
    ['two tools of one name', { prompt: 'x', tools: [lookup, lookup] }, /^query\(\): two tools are named "lookup"\.$/],
    ['a permission mode that is not one', { prompt: 'x', permissionMode: 'yolo' }, /^query\(\): permissionMode must be one of default, acceptEdits, plan, dontAsk, bypassPermissions; got "yolo"\.$/],
    ['an agent with a bad field', { prompt: 'x', agents: { reviewer: { mode: 'boss' } } }, /^query\(\): agents\.reviewer\.mode: /],
  ])('refuses %s', (_what, options, message) => {
    expect(() => query(options as QueryOptions)).toThrow(message);
  });
});

describe('tool() definitions', () => {
  it.each<[string, unknown, RegExp]>([
    ['a name with spaces', { name: 'look up', description: 'd', input: z.object({}), run: () => '' }, /^tool\(\): name must be 1 to 64 letters, digits, "_" or "-" \(got "look up"\)\.$/],
    ['no description', { name: 'lookup', description: '', input: z.object({}), run: () => '' }, /^tool "lookup": description must be a non-empty string\.$/],
    ['an input that is not a zod object', { name: 'lookup', description: 'd', input: { word: 'string' }, run: () => '' }, /^tool "lookup": input must be a zod object schema/],
    ['a zod string as input', { name: 'lookup', description: 'd', input: z.string(), run: () => '' }, /^tool "lookup": input must be a zod object schema/],
    ['no run', { name: 'lookup', description: 'd', input: z.object({}) }, /^tool "lookup": run must be a function\.$/],
  ])('refuses %s', (_what, definition, message) => {
    expect(() => tool(definition as Parameters<typeof tool>[0])).toThrow(message);
  });
});

describe('problems found when the query runs', () => {
  const dirs: string[] = [];
  beforeEach(() => {
    // The library reads the process's environment: this file's own config and data dirs.
    const home = mkdtempSync(join(tmpdir(), 'oci-sdk-home-'));
    dirs.push(home);
    process.env.OPENCODE_INK_CONFIG_DIR = join(home, 'config');
    process.env.OPENCODE_INK_DATA_DIR = join(home, 'data');
  });
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('rejects result() and ends the iteration with a broken project config, naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oci-sdk-config-'));
    dirs.push(dir);
    writeFileSync(join(dir, '.opencoderc.json'), '{ "model": 42 }');
    const q = query({ prompt: 'hello', cwd: dir, onWarning: () => {} });
    await expect(q.result()).rejects.toThrow(/\.opencoderc\.json/);
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for await (const event of q) seen.push(event);
      })(),
    ).rejects.toThrow(/\.opencoderc\.json/);
    expect(seen).toEqual([]);
  });
});
