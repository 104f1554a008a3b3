// The data dir is the user's alone: 0700, and every file the program keeps there 0600, under a
// umask of 022 as much as any other; files an older version left readable are narrowed at
// the next start.
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { saveInputHistory } from '../../src/ui/input-history.js';
import { BIN, runCli, startCli, startCliProject, type CliProject } from '../support/cli.js';
import { text } from '../support/fake-anthropic.js';
import { waitFor } from '../support/wait.js';

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

let ctx: CliProject;
let underUmask022: string;
beforeEach(async () => {
  ctx = await startCliProject();
  // The binary started as a shell with the common umask would start it.
  underUmask022 = join(ctx.dir, 'opencode-ink-umask-022');
  writeFileSync(underUmask022, `#!/bin/sh\numask 022\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
});
afterEach(() => ctx.close());

describe.runIf(process.platform !== 'win32')('data dir permissions', () => {
  it('creates the data dir 0700 and the store, its WAL files and the code cache 0600', async () => {
    // The reply waits until the files have been looked at: the WAL files exist only while the store is open.
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    ctx.server.setHandler(async () => {
      await answered;
      return text('hello');
    });
    const running = startCli(['run', 'hi'], { cwd: ctx.project, env: ctx.env, bin: underUmask022 });
    const data = ctx.env.OPENCODE_INK_DATA_DIR!;
    try {
      await waitFor(() => ctx.server.requests.length === 1, 'the model request');
      expect(modeOf(data)).toBe('700');
      for (const name of ['sessions.db', 'sessions.db-wal', 'sessions.db-shm']) expect([name, modeOf(join(data, name))]).toEqual([name, '600']);
    } finally {
      answer();
    }
    expect((await running.done).code).toBe(0);
    const cache = join(data, 'cache');
    expect(modeOf(cache)).toBe('700');
    const files = readdirSync(cache);
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) expect([name, modeOf(join(cache, name))]).toEqual([name, '600']);
  });

  it('narrows a data dir and files that an older version left readable', async () => {
    const data = ctx.env.OPENCODE_INK_DATA_DIR!;
    mkdirSync(join(data, 'cache'), { recursive: true });
    for (const name of ['prompt-history.json', 'trust.json']) writeFileSync(join(data, name), name === 'trust.json' ? '{"version":1,"projects":{}}' : '[]', { mode: 0o644 });
    chmodSync(data, 0o755);
    chmodSync(join(data, 'cache'), 0o755);
    const first = await runCli(['sessions'], { cwd: ctx.project, env: ctx.env, bin: underUmask022 });
    expect(first.code).toBe(0);
    for (const name of ['sessions.db', 'prompt-history.json', 'trust.json']) expect([name, modeOf(join(data, name))]).toEqual([name, '600']);
    expect(modeOf(data)).toBe('700');
    expect(modeOf(join(data, 'cache'))).toBe('700');
  });

  it('writes the trust list 0600 in a data dir it creates 0700', async () => {
    const result = await runCli(['trust'], { cwd: ctx.project, env: ctx.env, bin: underUmask022 });
    expect(result.code).toBe(0);
    expect(modeOf(ctx.env.OPENCODE_INK_DATA_DIR!)).toBe('700');
    expect(modeOf(join(ctx.env.OPENCODE_INK_DATA_DIR!, 'trust.json'))).toBe('600');
  });
});

describe.runIf(process.platform !== 'win32')('prompt history under umask 022', () => {
  // Vitest runs each test file in a process of its own (pool: forks): the umask is this file's.
  let previous: number;
  beforeAll(() => {
    previous = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(previous);
  });

  it('is written 0600 in a folder created 0700', async () => {
    const file = join(ctx.dir, 'fresh-data', 'prompt-history.json');
    await saveInputHistory(file, ['first prompt']);
    expect(modeOf(file)).toBe('600');
    expect(modeOf(join(ctx.dir, 'fresh-data'))).toBe('700');
  });
});
