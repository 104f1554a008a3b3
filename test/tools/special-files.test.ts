// FIFOs, sockets and devices are never opened: read, write and edit refuse them naming the
// path and what it is; grep (both backends), glob, list and the @ completion index skip
// them; a mention of one is refused by read. Every test here would hang (a pool thread
// blocked in open() on the FIFO) or run forever (/dev/zero) if a special file were opened,
// so each call also races a deadline that turns a hang into a failure.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { attachFiles, fileReferences } from '../../src/core/commands/index.js';
import { FileIndex } from '../../src/core/file-index.js';
import { sniffBinary } from '../../src/core/tools/binary.js';
import { editTool } from '../../src/core/tools/edit.js';
import { findRipgrep, grep, grepTool, type GrepBackend } from '../../src/core/tools/grep.js';
import { globTool } from '../../src/core/tools/glob.js';
import { listTool } from '../../src/core/tools/list.js';
import { readTool } from '../../src/core/tools/read.js';
import { NotRegularFileError } from '../../src/core/tools/regular-file.js';
import { writeTool } from '../../src/core/tools/write.js';
import { makeContext, makeTempDir, removeDir, run, waitFor, type FakeContext } from './context.js';

const hasMkfifo = (() => {
  try {
    execFileSync('mkfifo', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Fails instead of hanging when the promise never settles. */
function within<T>(promise: Promise<T>, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not finish within ${ms} ms (blocked on a special file?)`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

let dir: string;
let server: net.Server;
let ctx: FakeContext;

beforeAll(async () => {
  dir = makeTempDir('oci-special-');
  writeFileSync(path.join(dir, 'a.txt'), 'needle here\n');
  writeFileSync(path.join(dir, '.gitignore'), 'ignored.txt\n');
  if (hasMkfifo) execFileSync('mkfifo', [path.join(dir, 'pipe.log')]);
  server = net.createServer();
  await new Promise<void>((resolve) => server.listen(path.join(dir, 'sock'), resolve));
  symlinkSync('/dev/zero', path.join(dir, 'zero'));
  symlinkSync('/dev/null', path.join(dir, 'null'));
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  removeDir(dir);
});
afterEach(() => {
  // A write through a special file would have replaced it; the FIFO must still be one.
  if (hasMkfifo) expect(execFileSync('stat', ['-c', '%F', path.join(dir, 'pipe.log')], { encoding: 'utf8' }).trim()).toBe('fifo');
});

function context(): FakeContext {
  ctx = makeContext(dir);
  return ctx;
}

const specials = (): [string, RegExp][] => [
  ...(hasMkfifo ? ([['pipe.log', /pipe\.log is a FIFO, not a regular file/]] as [string, RegExp][]) : []),
  ['sock', /sock is a socket, not a regular file/],
  ['zero', /zero is a character device, not a regular file/],
  ['null', /null is a character device, not a regular file/],
  ['/dev/zero', /\/dev\/zero is a character device, not a regular file/],
  ['/dev/null', /\/dev\/null is a character device, not a regular file/],
];

describe('read', () => {
  it('refuses FIFOs, sockets and devices, naming the path and its type', async () => {
    for (const [name, message] of specials()) {
      await expect(within(run(readTool, { file_path: name }, context())), name).rejects.toThrow(message);
    }
  });

  it('reads /proc files, which report size 0, and never waits on one that streams like a pipe', async () => {
    const status = await within(run(readTool, { file_path: '/proc/self/status' }, context()));
    expect(status.output).toMatch(/^ {5}1\tName:\t/);
    let kmsg = false;
    try {
      closeSync(openSync('/proc/kmsg', constants.O_RDONLY | constants.O_NONBLOCK));
      kmsg = true;
    } catch {
      // not readable here (not root, or a container without it)
    }
    if (kmsg) {
      // Either the kernel had messages queued (they are returned) or a clear refusal: never a hang.
      const outcome = await within(run(readTool, { file_path: '/proc/kmsg' }, context())).then(
        (r) => r.output,
        (e: unknown) => (e as Error).message,
      );
      expect(outcome).toMatch(/^ {5}1\t|no data to read without waiting/);
    }
  });

  it('still reads the regular file beside them', async () => {
    const result = await within(run(readTool, { file_path: 'a.txt' }, context()));
    expect(result.output).toBe('     1\tneedle here');
  });
});

describe('write and edit', () => {
  it('refuse to write through a FIFO, socket or device', async () => {
    for (const [name, message] of specials()) {
      await expect(within(run(writeTool, { file_path: name, content: 'x' }, context())), name).rejects.toThrow(message);
      await expect(
        within(run(editTool, { file_path: name, old_string: '', new_string: 'x' }, context())),
        name,
      ).rejects.toThrow(message);
    }
  });
});

describe('grep', () => {
  const backends: [GrepBackend, string | undefined][] = [['js', undefined]];
  beforeAll(async () => {
    // OCI_TEST_RG points at an rg binary when none is on PATH.
    const rg = process.env.OCI_TEST_RG ?? (await findRipgrep());
    if (rg) backends.push(['rg', rg]);
  });

  it('skips special files in a directory walk with either backend', async () => {
    for (const [backend, rg] of backends) {
      const query = { pattern: '.', root: dir, cwd: dir, mode: 'files_with_matches' as const, ignoreCase: false };
      const result = await within(grep(query, backend, rg));
      expect(result.backend, backend).toBe(backend);
      expect(result.output, backend).toBe('.gitignore\na.txt');
    }
  });

  it('refuses a special file named as the path', async () => {
    for (const [name, message] of specials()) {
      await expect(within(run(grepTool, { pattern: 'x', path: name }, context())), name).rejects.toThrow(message);
    }
  });

  it('skips a glob that names only special files', async () => {
    const result = await within(run(grepTool, { pattern: '.', glob: '{pipe.log,sock,zero,null}' }, context()));
    expect(result.output).toBe('No matches found.');
  });
});

describe('glob and list', () => {
  it('glob lists only regular files', async () => {
    const all = await within(run(globTool, { pattern: '*' }, context()));
    expect(all.output.split('\n').sort()).toEqual(['.gitignore', 'a.txt']);
    for (const name of ['pipe.log', 'sock', 'zero', 'null']) {
      expect((await within(run(globTool, { pattern: name }, context()))).output, name).toBe('No files found.');
    }
    expect((await within(run(globTool, { pattern: 'zero', path: '/dev' }, context()))).output).toBe('No files found.');
  });

  it('glob and list refuse a special file given as the folder, naming what it is', async () => {
    for (const [name, message] of specials()) {
      const asFolder = new RegExp(message.source.replace('not a regular file', 'not a directory'));
      await expect(within(run(globTool, { pattern: '*', path: name }, context())), name).rejects.toThrow(asFolder);
      await expect(within(run(listTool, { path: name }, context())), name).rejects.toThrow(asFolder);
    }
  });

  it('list leaves FIFOs and sockets out and shows the rest', async () => {
    const result = await within(run(listTool, {}, context()));
    expect(result.output).toContain('a.txt');
    expect(result.output).not.toMatch(/pipe\.log|sock/);
  });

  it('the @ completion index leaves special files out', async () => {
    const index = FileIndex.start(dir);
    await waitFor(() => index.complete('a').includes('a.txt'), 5000, 'the index to fill');
    expect(index.complete('pipe')).toEqual([]);
    expect(index.complete('sock')).toEqual([]);
  });

  it('type sniffing refuses rather than opening', async () => {
    for (const [name, message] of specials()) {
      const file = path.resolve(dir, name);
      const err = await within(sniffBinary(file)).catch((e: unknown) => e);
      expect(err, name).toBeInstanceOf(NotRegularFileError);
      expect((err as Error).message).toMatch(message);
    }
  });
});

describe('@file mentions', () => {
  it('refuse a mentioned FIFO, socket or device with read\'s message', async () => {
    const io = {
      cwd: dir,
      readFile: async (file: string) => (await run(readTool, { file_path: file }, context())).output,
      runShell: () => Promise.reject(new Error('no shell here')),
    };
    for (const [name, message] of specials().filter(([n]) => !n.startsWith('/'))) {
      expect(fileReferences(`look at @${name} please`, dir)).toEqual([name]);
      await expect(within(attachFiles(`look at @${name} please`, io, dir)), name).rejects.toThrow(message);
    }
    expect(await within(attachFiles('see @a.txt', io, dir))).toContain('needle here');
  });
});

describe('.gitignore that is not a regular file', () => {
  it.skipIf(!hasMkfifo)('is ignored instead of blocking the walk, with either grep backend, list and the index', async () => {
    const nested = makeTempDir('oci-special-gi-');
    try {
      execFileSync('mkfifo', [path.join(nested, '.gitignore')]);
      writeFileSync(path.join(nested, 'b.txt'), 'needle\n');
      const backends: [GrepBackend, string | undefined][] = [['js', undefined]];
      const rg = process.env.OCI_TEST_RG ?? (await findRipgrep());
      if (rg) backends.push(['rg', rg]);
      for (const [backend, rgPath] of backends) {
        const query = { pattern: 'needle', root: nested, cwd: nested, mode: 'files_with_matches' as const, ignoreCase: false };
        // rg blocks opening the FIFO: it is stopped and the search redone without it.
        expect((await within(grep(query, backend, rgPath))).output, backend).toBe('b.txt');
      }
      const ctx2 = makeContext(nested);
      expect((await within(run(grepTool, { pattern: 'needle' }, ctx2))).output).toBe('b.txt');
      expect((await within(run(listTool, {}, ctx2))).output).toContain('b.txt');
    } finally {
      removeDir(nested);
    }
  });
});

// The FIFO is still there and untouched: nothing wrote into it or replaced it.
it.skipIf(!hasMkfifo)('leaves the FIFO in place', () => {
  expect(existsSync(path.join(dir, 'pipe.log'))).toBe(true);
  expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('needle here\n');
});
