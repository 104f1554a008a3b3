// openRegular checks the opened descriptor, not only the path it stat'ed first: a path
// swapped for a FIFO between the stat and the open is still refused. A helper process flips a
// symlink between a regular file and a FIFO as fast as it can while the test opens it over
// and over; every handle that comes back must be a regular file.
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NotRegularFileError, openRegular } from '../../src/core/tools/regular-file.js';
import { makeTempDir, removeDir } from './context.js';

const FLIPPER = `
import os, sys
d = sys.argv[1]
link, tmp = os.path.join(d, 'link'), os.path.join(d, 'link.tmp')
targets = [os.path.join(d, 'file'), os.path.join(d, 'fifo')]
sys.stdout.write('ready\\n'); sys.stdout.flush()
i = 0
while True:
    os.symlink(targets[i % 2], tmp)
    os.replace(tmp, link)
    i += 1
`;

describe.runIf(process.platform !== 'win32')('openRegular against a path swapped after its stat', () => {
  it('never returns a handle on a FIFO', async () => {
    const dir = makeTempDir('oci-swap-');
    writeFileSync(join(dir, 'file'), 'regular');
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    const flipper = spawn('python3', ['-c', FLIPPER, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        flipper.stdout.once('data', () => resolve());
        flipper.once('error', reject);
      });
      let regular = 0;
      let refused = 0;
      // Enough rounds that the swap lands between stat and open many times over.
      for (let round = 0; round < 3000; round++) {
        try {
          const handle = await openRegular(join(dir, 'link'));
          const isFile = (await handle.stat()).isFile();
          await handle.close();
          expect(isFile, `round ${round}: a handle on a FIFO was returned`).toBe(true);
          regular++;
        } catch (err) {
          if (!(err instanceof NotRegularFileError)) {
            if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
            throw err;
          }
          refused++;
        }
      }
      expect(regular).toBeGreaterThan(0);
      expect(refused).toBeGreaterThan(0);
    } finally {
      flipper.kill();
      removeDir(dir);
    }
  }, 60_000);
});
