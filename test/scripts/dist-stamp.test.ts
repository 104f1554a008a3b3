// dist/ is reused by the test run only while its stamp matches the build's inputs: any change
// to a source, the build scripts or the package files, and any missing output, must call for
// a new build (a stale dist would test old code).
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildInputsHash, isDistCurrent, writeDistStamp } from '../../scripts/dist-stamp.mjs';

let root: string;
let dist: string;

function write(file: string, text: string): void {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
}

/** What a build does: outputs written, then the stamp with the hash taken before. */
function build(): void {
  const hash = buildInputsHash(root);
  write('dist/cli.js', 'built');
  write('dist/cache/tui.v8', 'cache');
  writeDistStamp(dist, hash);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'oci-stamp-'));
  dist = join(root, 'dist');
  write('src/cli/index.ts', 'export {};');
  write('src/core/engine.ts', 'export const a = 1;');
  write('scripts/build.mjs', '// build');
  write('package.json', '{}');
  write('tsconfig.json', '{}');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the dist stamp', () => {
  it('says a dist built from the current inputs is current', () => {
    build();
    expect(isDistCurrent(root, dist)).toBe(true);
  });

  it('says a dist without a stamp (never built, or a build that failed) is not current', () => {
    write('dist/cli.js', 'half built');
    expect(isDistCurrent(root, dist)).toBe(false);
    expect(isDistCurrent(root, join(root, 'nowhere'))).toBe(false);
  });

  it('says an unreadable stamp is not current', () => {
    build();
    write('dist/.stamp.json', '{"inputsHash": 3');
    expect(isDistCurrent(root, dist)).toBe(false);
    write('dist/.stamp.json', 'null');
    expect(isDistCurrent(root, dist)).toBe(false);
  });

  it.each([
    ['a changed source file', () => write('src/core/engine.ts', 'export const a = 2;')],
    ['a new source file', () => write('src/core/new.ts', 'export {};')],
    ['a removed source file', () => unlinkSync(join(root, 'src/core/engine.ts'))],
    ['a renamed source file', () => {
      unlinkSync(join(root, 'src/core/engine.ts'));
      write('src/core/engine2.ts', 'export const a = 1;');
    }],
    ['a changed build script', () => write('scripts/build.mjs', '// build, changed')],
    ['a changed package.json', () => write('package.json', '{"version": "2"}')],
    ['a new lock file', () => write('package-lock.json', '{}')],
    ['a changed tsconfig', () => write('tsconfig.json', '{"strict": true}')],
    ['newly installed dependencies', () => write('node_modules/.package-lock.json', '{}')],
  ])('says the dist is stale after %s', (_what, change) => {
    build();
    change();
    expect(isDistCurrent(root, dist)).toBe(false);
  });

  it('says a dist missing one of the files the build made is not current', () => {
    build();
    unlinkSync(join(dist, 'cache', 'tui.v8'));
    expect(isDistCurrent(root, dist)).toBe(false);
  });

  it('ignores what is outside the inputs (tests, docs)', () => {
    build();
    write('test/some.test.ts', 'changed');
    write('README.md', 'changed');
    expect(isDistCurrent(root, dist)).toBe(true);
  });
});
