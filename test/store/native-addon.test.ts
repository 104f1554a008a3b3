// better-sqlite3's addon is found by path (src/core/store/native-addon.ts), so the package's
// JavaScript can be bundled: the file is the package's own build, and a store opens with it.
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqliteAddonFile } from '../../src/core/store/native-addon.js';
import { SessionStore } from '../../src/core/store/index.js';

describe("better-sqlite3's addon", () => {
  it("is the resolved package's build/Release file, and a store opens, writes and reads with it", () => {
    const packageDir = dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));
    // The same file as the resolver's, found without it (the path may go through a linked node_modules).
    expect(realpathSync(sqliteAddonFile()!)).toBe(realpathSync(join(packageDir, 'build', 'Release', 'better_sqlite3.node')));
    expect(existsSync(sqliteAddonFile()!)).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'oci-addon-'));
    try {
      const store = SessionStore.open(dir);
      const session = store.createSession({ agent: 'build', title: 't', status: 'idle', model: 'anthropic/m', cwd: dir, depth: 0 });
      expect(store.getSession(session.id)?.agent).toBe('build');
      store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
