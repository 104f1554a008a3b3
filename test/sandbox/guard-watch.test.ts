// The watch over control paths that do not exist yet: a `remove` path is taken away the moment
// it appears (while a command still runs), a `report` path is only named, a folder on the way
// that appears later is followed, and nothing that existed before the watch is touched.
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GuardWatch } from '../../src/core/sandbox/guard-watch.js';
import { removeDir } from '../tools/context.js';
import { waitFor } from '../support/wait.js';

const dirs: string[] = [];
const releases: Array<() => void> = [];
afterEach(() => {
  for (const release of releases.splice(0)) release();
  for (const dir of dirs.splice(0)) removeDir(dir);
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'oci-guard-'));
  dirs.push(dir);
  mkdirSync(join(dir, '.git'));
  return dir;
}

describe('GuardWatch', () => {
  it('removes a git control name the moment it appears, and names it', async () => {
    const dir = folder();
    const watch = new GuardWatch();
    const commondir = join(dir, '.git', 'commondir');
    releases.push(watch.hold([{ path: commondir, action: 'remove' }]));
    writeFileSync(commondir, 'evil\n');
    await waitFor(() => !existsSync(commondir), 'the planted commondir to be removed while the watch holds');
    expect(watch.takeFindings()).toEqual([{ path: commondir, action: 'remove', removed: true }]);
    expect(watch.takeFindings()).toEqual([]);
  });

  it('follows a folder on the way that appears later, and only names report paths', async () => {
    const dir = folder();
    const watch = new GuardWatch();
    const settings = join(dir, '.claude', 'settings.json');
    const hooks = join(dir, 'sub', '.git', 'hooks');
    releases.push(watch.hold([{ path: settings, action: 'report' }, { path: hooks, action: 'remove' }]));
    mkdirSync(join(dir, 'sub', '.git'), { recursive: true });
    mkdirSync(hooks);
    writeFileSync(join(hooks, 'pre-commit'), '#!/bin/sh\n');
    await waitFor(() => !existsSync(hooks), 'hooks created under a folder that appeared later to be removed');
    mkdirSync(join(dir, '.claude'));
    writeFileSync(settings, '{}');
    const release = releases.pop()!;
    release();
    expect(existsSync(settings)).toBe(true);
    expect(watch.takeFindings()).toEqual(
      expect.arrayContaining([
        { path: hooks, action: 'remove', removed: true },
        { path: settings, action: 'report', removed: false },
      ]),
    );
  });

  it('leaves alone what existed when the watch started, and removes a link standing for a folder on the way', () => {
    const dir = folder();
    const existing = join(dir, '.git', 'config.worktree');
    writeFileSync(existing, '[core]\n');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'config'), 'evil');
    const watch = new GuardWatch();
    const release = watch.hold([
      { path: existing, action: 'remove' },
      { path: join(dir, 'module', 'config'), action: 'remove' },
    ]);
    symlinkSync(elsewhere, join(dir, 'module'));
    release();
    expect(existsSync(existing)).toBe(true);
    expect(existsSync(join(dir, 'module'))).toBe(false);
    expect(existsSync(join(elsewhere, 'config'))).toBe(true);
  });
});
