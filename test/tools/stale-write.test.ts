// The stale-write guard at the level of the tools, with real files and real processes:
// `write` and `edit` refuse an existing file the session has not read or written, and one that
// changed since it last did (in another session, another process, while the approval was
// pending); a file is replaced atomically, keeping its mode and its symlinks, so a reader in
// another process never sees half of it.
import type { PermissionRequest } from '../../src/core/tools/types.js';
import { execFile, spawn } from 'node:child_process';
import { chmodSync, chownSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { editTool } from '../../src/core/tools/edit.js';
import { readTool } from '../../src/core/tools/read.js';
import { ToolError, type ToolResult } from '../../src/core/tools/types.js';
import { writeTool } from '../../src/core/tools/write.js';
import { ChangedOnDiskError, replaceFile } from '../../src/core/workspace/atomic-write.js';
import { sha256 } from '../../src/core/workspace/file-views.js';
import { withPathLock } from '../../src/core/workspace/path-lock.js';
import { makeContext, makeTempDir, removeDir, run, type FakeContext } from './context.js';

/** The asks a change makes: every read also checks the `read` rule (allowed unless a rule denies the path), which is not what these tests are about. */
function asks(context: { asks: readonly PermissionRequest[] }): PermissionRequest[] {
  return context.asks.filter((ask) => ask.permission !== 'read');
}

const execFileAsync = promisify(execFile);
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

function project(): string {
  const dir = makeTempDir('oci-stale-');
  dirs.push(dir);
  return dir;
}

/** Another session in the same project: its own context, its own file views. */
function session(dir: string): FakeContext {
  return makeContext(dir);
}

/** Changes a file from a separate node process, as another program on the machine would. */
async function changeElsewhere(file: string, content: string): Promise<void> {
  await execFileAsync(process.execPath, ['-e', 'require("node:fs").writeFileSync(process.argv[1], process.argv[2])', file, content]);
}

/** The error a tool call fails with (the tool runner turns it into an error result). */
async function refusal(result: Promise<ToolResult>): Promise<string> {
  const err = await result.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolError);
  return (err as Error).message;
}

/** The temporary files of an atomic replace that were left behind. */
function leftovers(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.tmp'));
}

describe('read before write', () => {
  it('refuses to overwrite or edit an existing file the session has not read', async () => {
    const dir = project();
    const ctx = session(dir);
    writeFileSync(path.join(dir, 'notes.txt'), 'keep me\n');
    const blind = await refusal(run(writeTool, { file_path: 'notes.txt', content: 'replaced\n' }, ctx));
    expect(blind).toBe('notes.txt has not been read in this session yet: read it first with the read tool, then make the change.');
    await refusal(run(editTool, { file_path: 'notes.txt', old_string: 'keep', new_string: 'lose' }, ctx));
    expect(asks(ctx)).toEqual([]);
    expect(readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('keep me\n');

    await run(readTool, { file_path: 'notes.txt' }, ctx);
    await run(editTool, { file_path: 'notes.txt', old_string: 'keep', new_string: 'kept' }, ctx);
    expect(readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('kept me\n');
  });

  it('counts a file the session created or wrote as read, and a partial read as a read', async () => {
    const dir = project();
    const ctx = session(dir);
    await run(writeTool, { file_path: 'new.txt', content: 'one\ntwo\n' }, ctx);
    await run(editTool, { file_path: 'new.txt', old_string: 'two', new_string: 'TWO' }, ctx);
    await run(writeTool, { file_path: 'new.txt', content: 'three\n' }, ctx);
    expect(readFileSync(path.join(dir, 'new.txt'), 'utf8')).toBe('three\n');

    writeFileSync(path.join(dir, 'long.txt'), Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n'));
    await run(readTool, { file_path: 'long.txt', offset: 40, limit: 2 }, ctx);
    await run(editTool, { file_path: 'long.txt', old_string: 'line 7\n', new_string: 'line seven\n' }, ctx);
    expect(readFileSync(path.join(dir, 'long.txt'), 'utf8')).toContain('line 6\nline seven\nline 8');
  });

  it('keeps reads per session: another session must read the file itself', async () => {
    const dir = project();
    const reader = session(dir);
    const other = session(dir);
    writeFileSync(path.join(dir, 'a.txt'), 'alpha\n');
    await run(readTool, { file_path: 'a.txt' }, reader);
    await refusal(run(editTool, { file_path: 'a.txt', old_string: 'alpha', new_string: 'beta' }, other));
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('alpha\n');
  });

  it('counts a read through a symlink for its target, and writes through the link without replacing it', async () => {
    const dir = project();
    const ctx = session(dir);
    writeFileSync(path.join(dir, 'real.txt'), 'target text\n');
    symlinkSync('real.txt', path.join(dir, 'link.txt'));
    await run(readTool, { file_path: 'link.txt' }, ctx);
    await run(editTool, { file_path: 'real.txt', old_string: 'target', new_string: 'changed' }, ctx);
    await run(editTool, { file_path: 'link.txt', old_string: 'changed', new_string: 'linked' }, ctx);
    expect(lstatSync(path.join(dir, 'link.txt')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(path.join(dir, 'link.txt'))).toBe('real.txt');
    expect(readFileSync(path.join(dir, 'real.txt'), 'utf8')).toBe('linked text\n');
    expect(leftovers(dir)).toEqual([]);
  });
});

describe('stale views', () => {
  it('refuses a write from an old view after another session changed the file', async () => {
    const dir = project();
    const first = session(dir);
    const second = session(dir);
    writeFileSync(path.join(dir, 'shared.txt'), 'alpha|beta|gamma\n');
    await run(readTool, { file_path: 'shared.txt' }, first);
    await run(readTool, { file_path: 'shared.txt' }, second);
    await run(editTool, { file_path: 'shared.txt', old_string: 'alpha', new_string: 'ALPHA' }, first);
    const stale = await refusal(run(writeTool, { file_path: 'shared.txt', content: 'alpha|beta|gamma|B-LINE\n' }, second));
    expect(stale).toBe(
      'shared.txt has changed since you last read it (another agent, the user or a command modified it): read it again, then redo the change against its current content.',
    );
    expect(readFileSync(path.join(dir, 'shared.txt'), 'utf8')).toBe('ALPHA|beta|gamma\n');
    // Read again, the same session may change it.
    await run(readTool, { file_path: 'shared.txt' }, second);
    await run(editTool, { file_path: 'shared.txt', old_string: 'gamma', new_string: 'GAMMA' }, second);
    expect(readFileSync(path.join(dir, 'shared.txt'), 'utf8')).toBe('ALPHA|beta|GAMMA\n');
  });

  it('catches a change made by another process between the read and the write', async () => {
    const dir = project();
    const ctx = session(dir);
    const file = path.join(dir, 'config.ini');
    writeFileSync(file, 'port=3000\n');
    await run(readTool, { file_path: 'config.ini' }, ctx);
    await changeElsewhere(file, 'port=3000\nhost=example\n');
    await refusal(run(editTool, { file_path: 'config.ini', old_string: 'port=3000', new_string: 'port=8080' }, ctx));
    await refusal(run(writeTool, { file_path: 'config.ini', content: 'port=8080\n' }, ctx));
    expect(readFileSync(file, 'utf8')).toBe('port=3000\nhost=example\n');
  });

  it('checks again once the approval is answered: a change made while the user was asked is not overwritten', async () => {
    const dir = project();
    const ctx = session(dir);
    const file = path.join(dir, 'app.ts');
    writeFileSync(file, 'const port = 3000;\n');
    await run(readTool, { file_path: 'app.ts' }, ctx);
    const ask = ctx.ask.bind(ctx);
    ctx.ask = async (request) => {
      await ask(request);
      if (request.permission === 'edit') await changeElsewhere(file, 'const port = 4000;\n');
    };
    const message = await refusal(run(editTool, { file_path: 'app.ts', old_string: '3000', new_string: '8080' }, ctx));
    expect(message).toMatch(/^app\.ts has changed since you last read it/);
    expect(asks(ctx).map((a) => a.permission)).toEqual(['edit']);
    expect(readFileSync(file, 'utf8')).toBe('const port = 4000;\n');

    // A file created elsewhere while a creation waited for approval is not clobbered either.
    const created = path.join(dir, 'fresh.txt');
    ctx.ask = async (request) => {
      await ask(request);
      if (request.permission === 'edit') await changeElsewhere(created, 'theirs\n');
    };
    expect(await refusal(run(writeTool, { file_path: 'fresh.txt', content: 'mine\n' }, ctx))).toMatch(/^fresh\.txt was created by someone else/);
    expect(readFileSync(created, 'utf8')).toBe('theirs\n');
    expect(leftovers(dir)).toEqual([]);
  });

  it('lets a change through when only the timestamp moved (content decides)', async () => {
    const dir = project();
    const ctx = session(dir);
    const file = path.join(dir, 'same.txt');
    writeFileSync(file, 'unchanged\n');
    await run(readTool, { file_path: 'same.txt' }, ctx);
    utimesSync(file, new Date(2001, 1, 1), new Date(2001, 1, 1));
    await run(editTool, { file_path: 'same.txt', old_string: 'unchanged', new_string: 'changed' }, ctx);
    expect(readFileSync(file, 'utf8')).toBe('changed\n');
  });

  it('replaces only the content the caller expects, even when another process changed it after the caller looked', async () => {
    const dir = project();
    const file = path.join(dir, 'race.txt');
    writeFileSync(file, 'seen\n');
    const expected = { kind: 'content' as const, sha256: sha256('seen\n') };
    await changeElsewhere(file, 'changed elsewhere\n');
    const err = await replaceFile(file, Buffer.from('mine\n'), expected).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChangedOnDiskError);
    expect(readFileSync(file, 'utf8')).toBe('changed elsewhere\n');
    expect(leftovers(dir)).toEqual([]);
  });
});

describe('atomic replace', () => {
  it('keeps the mode of the file it replaces (an executable script stays executable)', async () => {
    const dir = project();
    const ctx = session(dir);
    const script = path.join(dir, 'run.sh');
    writeFileSync(script, '#!/bin/sh\necho one\n');
    chmodSync(script, 0o755);
    const secret = path.join(dir, 'secret.env');
    writeFileSync(secret, 'TOKEN=a\n');
    chmodSync(secret, 0o600);
    await run(readTool, { file_path: 'run.sh' }, ctx);
    await run(readTool, { file_path: 'secret.env' }, ctx);
    await run(editTool, { file_path: 'run.sh', old_string: 'echo one', new_string: 'echo two' }, ctx);
    await run(writeTool, { file_path: 'secret.env', content: 'TOKEN=b\n' }, ctx);
    expect(statSync(script).mode & 0o777).toBe(0o755);
    expect(statSync(secret).mode & 0o777).toBe(0o600);
    const { stdout } = await execFileAsync(script);
    expect(stdout).toBe('two\n');
  });

  it.runIf(process.getuid?.() === 0)('keeps the owner of a file it replaces when allowed to (running as root)', async () => {
    const dir = project();
    const ctx = session(dir);
    const file = path.join(dir, 'theirs.txt');
    writeFileSync(file, 'owned by someone else\n');
    chownSync(file, 12345, 12345);
    chmodSync(file, 0o640);
    await run(readTool, { file_path: 'theirs.txt' }, ctx);
    await run(editTool, { file_path: 'theirs.txt', old_string: 'someone', new_string: 'somebody' }, ctx);
    expect(statSync(file)).toMatchObject({ uid: 12345, gid: 12345 });
    expect(statSync(file).mode & 0o777).toBe(0o640);
  });

  it('never shows a reader in another process half a file', async () => {
    const dir = project();
    const ctx = session(dir);
    const file = path.join(dir, 'big.txt');
    const size = 256 * 1024;
    const versions = ['a', 'b'].map((c) => c.repeat(size));
    writeFileSync(file, versions[0]!);
    await run(readTool, { file_path: 'big.txt' }, ctx);
    // The reader reads the whole file in a loop until stdin closes, then prints how many
    // reads it made and how many were neither complete version.
    const reader = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs');
         const [file, size] = [process.argv[1], Number(process.argv[2])];
         let reads = 0, torn = 0, stop = false;
         process.stdin.on('end', () => { stop = true; }).resume();
         const versions = ['a', 'b'].map((c) => Buffer.alloc(size, c));
         const whole = (b) => versions.some((v) => v.equals(b));
         (function loop() {
           for (let i = 0; i < 20; i++) { reads++; if (!whole(fs.readFileSync(file))) torn++; }
           if (reads === 20) process.stderr.write('ready\\n');
           if (stop) process.stdout.write(JSON.stringify({ reads, torn })); else setImmediate(loop);
         })();`,
        file,
        String(size),
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let out = '';
    reader.stdout.on('data', (c: Buffer) => (out += c.toString()));
    await new Promise<void>((resolve, reject) => {
      reader.stderr.once('data', () => resolve());
      reader.once('exit', (code) => reject(new Error(`reader exited early (${code})`)));
    });
    for (let i = 1; i <= 10; i++) await run(writeTool, { file_path: 'big.txt', content: versions[i % 2]! }, ctx);
    reader.stdin.end();
    await new Promise<void>((resolve) => reader.once('exit', () => resolve()));
    const { reads, torn } = JSON.parse(out) as { reads: number; torn: number };
    expect(reads).toBeGreaterThan(20);
    expect(torn).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(versions[0]);
    expect(leftovers(dir)).toEqual([]);
  });
});

describe('the per-path lock', () => {
  it('runs holders of one path one at a time, in arrival order, and frees the path when a holder fails', async () => {
    const steps: string[] = [];
    const hold = (name: string, fail = false) =>
      withPathLock('/some/file', async () => {
        steps.push(`start ${name}`);
        await new Promise<void>((resolve) => setImmediate(resolve));
        steps.push(`end ${name}`);
        if (fail) throw new Error(`${name} failed`);
        return name;
      });
    const other = withPathLock('/other/file', async () => {
      steps.push('other');
      return 'other';
    });
    const results = await Promise.allSettled([hold('a'), hold('b', true), hold('c'), other]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(steps.filter((s) => s !== 'other')).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    // Another path does not wait for this one.
    expect(steps.indexOf('other')).toBeLessThan(steps.indexOf('end a'));
  });
});
