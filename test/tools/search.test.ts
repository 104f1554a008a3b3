import { mkdirSync, symlinkSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { globTool } from '../../src/core/tools/glob.js';
import { expandBraces, findRipgrep, grep, grepTool, type GrepQuery } from '../../src/core/tools/grep.js';
import { listTool } from '../../src/core/tools/list.js';
import { PermissionDeniedError, ToolError } from '../../src/core/tools/types.js';
import { makeContext, makeTempDir, removeDir, run, writeTree, type FakeContext } from './context.js';

let ctx: FakeContext;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

/** A small repository: .git marks its root so no .gitignore above the temp dir applies. */
function project(): FakeContext {
  ctx = makeContext();
  dirs.push(ctx.cwd);
  mkdirSync(path.join(ctx.cwd, '.git'));
  writeTree(ctx.cwd, {
    '.git/config': 'needle in git',
    '.gitignore': 'dist/\n*.log\n',
    'src/app.ts': 'export const needle = 1;\nconst other = 2;\nNEEDLE again\n',
    'src/util.js': 'function needle() {}\n',
    'src/nested/.gitignore': 'generated.ts\n!keep.log\n',
    'src/nested/generated.ts': 'needle generated\n',
    'src/nested/keep.log': 'needle kept log\n',
    'src/nested/real.ts': 'no match here\n',
    'dist/bundle.js': 'needle bundled\n',
    'debug.log': 'needle log\n',
    'node_modules/pkg/index.js': 'needle module\n',
    'image.bin': Buffer.from([110, 101, 101, 100, 108, 101, 0, 1, 2]),
    'README.md': 'Needle docs\n',
  });
  // Distinct modification times, newest first: app.ts, README.md, util.js, keep.log, then the rest.
  for (const rel of ['.gitignore', 'src/nested/.gitignore', 'src/nested/generated.ts', 'src/nested/real.ts', 'image.bin']) {
    utimesSync(path.join(ctx.cwd, rel), 100, 100);
  }
  const times: Record<string, number> = { 'src/app.ts': 4000, 'README.md': 3000, 'src/util.js': 2000, 'src/nested/keep.log': 1000 };
  for (const [rel, t] of Object.entries(times)) utimesSync(path.join(ctx.cwd, rel), t, t);
  return ctx;
}

describe('list', () => {
  it('prints a tree that respects every .gitignore and skips .git and node_modules', async () => {
    project();
    const { output } = await run(listTool, {}, ctx);
    expect(output).toBe(
      [
        `${ctx.cwd}/`,
        '  src/',
        '    nested/',
        '      .gitignore',
        '      keep.log',
        '      real.ts',
        '    app.ts',
        '    util.js',
        '  .gitignore',
        '  image.bin',
        '  README.md',
      ].join('\n'),
    );
  });

  it('applies extra ignore patterns and lists subdirectories', async () => {
    project();
    const { output } = await run(listTool, { path: 'src', ignore: ['*.js', 'nested/'] }, ctx);
    expect(output).toBe([`${path.join(ctx.cwd, 'src')}/`, '  app.ts'].join('\n'));
    await expect(run(listTool, { path: 'missing' }, ctx)).rejects.toThrow(/not found/);
    await expect(run(listTool, { path: 'README.md' }, ctx)).rejects.toThrow(/is a file/);
  });

  it('caps large listings with a note', async () => {
    ctx = makeContext();
    dirs.push(ctx.cwd);
    const files: Record<string, string> = {};
    for (let i = 0; i < 1005; i++) files[`f${String(i).padStart(4, '0')}.txt`] = '';
    writeTree(ctx.cwd, files);
    const { output, metadata } = await run(listTool, {}, ctx);
    expect(metadata).toMatchObject({ count: 1000, truncated: true });
    expect(output).toContain('Listing stopped at 1000 entries');
  });
});

describe('glob', () => {
  it('finds files newest first, relative to the working directory, without ignored ones', async () => {
    project();
    const all = await run(globTool, { pattern: '**/*' }, ctx);
    const lines = all.output.split('\n');
    expect(lines.slice(0, 4)).toEqual(['src/app.ts', 'README.md', 'src/util.js', 'src/nested/keep.log']);
    expect(lines).not.toContain('dist/bundle.js');
    expect(lines).not.toContain('debug.log');
    expect(lines).not.toContain('src/nested/generated.ts');
    expect(lines.some((l) => l.includes('node_modules') || l.startsWith('.git/'))).toBe(false);

    const ts = await run(globTool, { pattern: '**/*.ts', path: 'src' }, ctx);
    expect(ts.output.split('\n')).toEqual(['src/app.ts', 'src/nested/real.ts']);
    const none = await run(globTool, { pattern: '*.xyz' }, ctx);
    expect(none.output).toBe('No files found.');
  });

  it('caps results at 100 with a note', async () => {
    ctx = makeContext();
    dirs.push(ctx.cwd);
    const files: Record<string, string> = {};
    for (let i = 0; i < 120; i++) files[`d/f${i}.txt`] = '';
    writeTree(ctx.cwd, files);
    const { output } = await run(globTool, { pattern: 'd/*.txt' }, ctx);
    expect(output.split('\n').filter((l) => l.startsWith('d/'))).toHaveLength(100);
    expect(output).toContain('100 most recently modified of 120');
  });

  it('asks before searching outside the working directory', async () => {
    project();
    const outside = makeTempDir();
    dirs.push(outside);
    writeTree(outside, { 'x.md': '' });
    const result = await run(globTool, { pattern: '*.md', path: outside }, ctx);
    expect(result.output).toBe(path.join(outside, 'x.md'));
    expect(ctx.asks).toMatchObject([{ permission: 'external_directory', patterns: [outside] }]);
  });

  it('asks before a pattern climbs out of the working directory with ..', async () => {
    project();
    const outside = makeTempDir();
    dirs.push(outside);
    writeTree(outside, { 'hosts.md': '' });
    const climb = `../${path.basename(outside)}/*.md`;
    ctx.deny = (r) => r.permission === 'external_directory';
    await expect(run(globTool, { pattern: climb }, ctx)).rejects.toBeInstanceOf(PermissionDeniedError);
    expect(ctx.asks).toMatchObject([{ permission: 'external_directory', patterns: [outside] }]);

    ctx.deny = () => false;
    expect((await run(globTool, { pattern: climb }, ctx)).output).toBe(path.join(outside, 'hosts.md'));
    // Climbing after a wildcard cannot be checked up front, so it is refused.
    await expect(run(globTool, { pattern: `*/../../${path.basename(outside)}/*.md` }, ctx)).rejects.toBeInstanceOf(ToolError);
    await expect(run(globTool, { pattern: '{..,src}/*' }, ctx)).rejects.toBeInstanceOf(ToolError);
  });

  it('asks before following a symlinked folder named in the pattern out of the project', async () => {
    project();
    const outside = makeTempDir();
    dirs.push(outside);
    writeTree(outside, { 'hostname': 'secret-host' });
    symlinkSync(outside, path.join(ctx.cwd, 'etclink'));
    ctx.deny = (r) => r.permission === 'external_directory';
    await expect(run(globTool, { pattern: 'etclink/host*' }, ctx)).rejects.toBeInstanceOf(PermissionDeniedError);
    // Braces name several fixed folders; fast-glob opens each one directly.
    await expect(run(globTool, { pattern: '{src,etclink}/host*' }, ctx)).rejects.toBeInstanceOf(PermissionDeniedError);
    expect(ctx.asks).toMatchObject([
      { permission: 'external_directory', patterns: [outside] },
      { permission: 'external_directory', patterns: [outside] },
    ]);
  });
});

describe('symlinks out of the project', () => {
  /** The project plus `etclink` -> a folder outside it and `alias` -> its own src folder. */
  function linkedProject(): string {
    project();
    const outside = makeTempDir();
    dirs.push(outside);
    writeTree(outside, { passwd: 'root:x:0:0 needle\n' });
    symlinkSync(outside, path.join(ctx.cwd, 'etclink'));
    symlinkSync(path.join(ctx.cwd, 'src'), path.join(ctx.cwd, 'alias'));
    ctx.deny = (r) => r.permission === 'external_directory';
    return outside;
  }

  it('grep and list through a link to the outside ask first', async () => {
    const outside = linkedProject();
    await expect(run(grepTool, { pattern: 'needle', path: 'etclink/passwd' }, ctx)).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(run(listTool, { path: 'etclink' }, ctx)).rejects.toBeInstanceOf(PermissionDeniedError);
    expect(ctx.asks.map((a) => a.patterns)).toEqual([[path.join(outside, 'passwd')], [outside]]);
  });

  it('grep, list and glob through a link to a folder inside the project do not ask', async () => {
    linkedProject();
    expect((await run(grepTool, { pattern: 'needle', path: 'alias' }, ctx)).output).toContain('alias/app.ts');
    expect((await run(listTool, { path: 'alias' }, ctx)).output).toContain('app.ts');
    expect((await run(globTool, { pattern: 'alias/*.ts' }, ctx)).output).toBe('alias/app.ts');
    expect(ctx.asks).toEqual([]);
  });
});

describe('grep (JS backend)', () => {
  const query = (over: Partial<GrepQuery>): GrepQuery => ({
    pattern: 'needle',
    root: ctx.cwd,
    cwd: ctx.cwd,
    mode: 'files_with_matches',
    ignoreCase: false,
    ...over,
  });

  it('lists matching files newest first, skipping ignored and binary files', async () => {
    project();
    const { output } = await grep(query({}), 'js');
    expect(output).toBe(['src/app.ts', 'src/util.js', 'src/nested/keep.log'].join('\n'));
  });

  it('shows matching lines in content mode and counts in count mode', async () => {
    project();
    const content = await grep(query({ mode: 'content', ignoreCase: true }), 'js');
    expect(content.output).toBe(
      [
        'src/app.ts:1:export const needle = 1;',
        'src/app.ts:3:NEEDLE again',
        'README.md:1:Needle docs',
        'src/util.js:1:function needle() {}',
        'src/nested/keep.log:1:needle kept log',
      ].join('\n'),
    );
    const count = await grep(query({ mode: 'count', ignoreCase: true }), 'js');
    expect(count.output).toBe(['src/app.ts:2', 'README.md:1', 'src/util.js:1', 'src/nested/keep.log:1'].join('\n'));
  });

  it('filters by glob (with braces) and by path', async () => {
    project();
    expect((await grep(query({ glob: '*.{ts,md}', ignoreCase: true }), 'js')).output).toBe('src/app.ts\nREADME.md');
    expect((await grep(query({ root: path.join(ctx.cwd, 'src', 'util.js') }), 'js')).output).toBe('src/util.js');
    expect((await grep(query({ pattern: 'zzz' }), 'js')).output).toBe('No matches found.');
    expect(expandBraces('a.{x,y}.{1,2}')).toEqual(['a.x.1', 'a.x.2', 'a.y.1', 'a.y.2']);
  });

  it('rejects an invalid regular expression', async () => {
    project();
    await expect(grep(query({ pattern: '(unclosed' }), 'js')).rejects.toBeInstanceOf(ToolError);
  });

  it('runs through the tool with the literal "-i" parameter', async () => {
    project();
    const result = await run(grepTool, { pattern: 'NEEDLE', '-i': true, output_mode: 'count', path: 'src' }, ctx);
    expect(result.output).toBe(['src/app.ts:2', 'src/util.js:1', 'src/nested/keep.log:1'].join('\n'));
    const sensitive = await run(grepTool, { pattern: 'NEEDLE', path: 'src' }, ctx);
    expect(sensitive.output).toBe('src/app.ts');
  });
});

describe('grep backends agree', async () => {
  // OCI_TEST_RG points at an rg binary when none is on PATH.
  const rg = process.env.OCI_TEST_RG ?? (await findRipgrep());
  it.skipIf(!rg)('gives identical output from rg and the JS fallback', async () => {
    project();
    const cases: Partial<GrepQuery>[] = [
      {},
      { mode: 'content', ignoreCase: true },
      { mode: 'count' },
      { glob: '*.{ts,md}', ignoreCase: true, mode: 'content' },
      { root: path.join(ctx.cwd, 'src') },
      { pattern: 'need(?=le)' },
      { root: path.join(ctx.cwd, 'dist') },
      { root: path.join(ctx.cwd, 'src', 'nested'), mode: 'count' },
    ];
    for (const over of cases) {
      const q: GrepQuery = { pattern: 'needle', root: ctx.cwd, cwd: ctx.cwd, mode: 'files_with_matches', ignoreCase: false, ...over };
      const viaRg = await grep(q, 'rg', rg);
      expect(viaRg.backend).toBe(over.pattern?.includes('(?=') ? 'js' : 'rg');
      const viaJs = await grep(q, 'js');
      expect(viaRg.output, JSON.stringify(over)).toBe(viaJs.output);
    }
  });
});
