// What a command loads is what it uses (issue 36): `--help` and `trust` never load the
// engine, the session store, SQLite or the UI, which `sessions` (the control) does load in
// part. Read from the built binary's own module loads (test/support/trace-loads.mjs) and
// each loaded chunk's source map; no timing. And `run`, which changes V8 flags while it
// works, leaves them as it found them: the next start compiles from the code cache the first
// one wrote instead of rejecting and rewriting it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { text } from '../support/fake-anthropic.js';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { REPO_ROOT } from '../support/repo-root.js';
import { sourcesAmong } from '../support/ui-chunks.js';

let ctx: CliProject;
beforeEach(async () => {
  ctx = await startCliProject();
});
afterEach(() => ctx.close());

/** Runs the binary with the load tracer; the module URLs it resolved, and the sources of our chunks among them. */
async function loadsOf(args: string[]): Promise<{ urls: string[]; sources: string[] }> {
  const file = join(ctx.dir, `loads-${args.join('-')}.txt`);
  const result = await runCli(args, {
    cwd: ctx.project,
    env: { ...ctx.env, NODE_OPTIONS: `--import=${join(REPO_ROOT, 'test', 'support', 'trace-loads.mjs')}`, OPENCODE_INK_TRACE_LOADS: file },
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const urls = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return { urls, sources: sourcesAmong(urls, join(REPO_ROOT, 'dist')) };
}

/** The engine and what only a session needs, the session store, the UI, the model and MCP SDKs. */
const HEAVY = /src\/core\/(engine|store|agent|checkpoints)\/|src\/core\/engine\.ts|src\/ui\/|node_modules\/(ink|react|@anthropic-ai|openai|@modelcontextprotocol)\//;
const heavyAmong = (sources: string[]) => sources.filter((s) => HEAVY.test(s));
const sqliteAmong = (urls: string[]) => urls.filter((u) => u.includes('better-sqlite3'));

describe('what each command loads', () => {
  it('--help loads neither the engine, the store, SQLite, the UI nor zod', async () => {
    const help = await loadsOf(['--help']);
    expect(help.sources.some((s) => s.endsWith('src/cli/main.ts'))).toBe(true);
    expect(heavyAmong(help.sources)).toEqual([]);
    expect(sqliteAmong(help.urls)).toEqual([]);
    // Nor the schemas' library: the help text needs none of them.
    expect(help.sources.filter((s) => s.includes('node_modules/zod/'))).toEqual([]);
  });

  it('trust loads neither the engine, the store, SQLite nor the UI', async () => {
    const trust = await loadsOf(['trust']);
    expect(trust.sources.some((s) => s.includes('src/core/trust/'))).toBe(true);
    expect(heavyAmong(trust.sources)).toEqual([]);
    expect(sqliteAmong(trust.urls)).toEqual([]);
  });

  it('sessions, which reads the store, does load it and SQLite (the trace sees them)', async () => {
    const sessions = await loadsOf(['sessions']);
    expect(sessions.sources.some((s) => s.includes('src/core/store/'))).toBe(true);
    expect(sqliteAmong(sessions.urls)).not.toEqual([]);
  });
});

describe("run's code cache", () => {
  it('is written by the first run and compiled from, not rewritten, by the next ones', async () => {
    const cacheDir = join(ctx.env.OPENCODE_INK_DATA_DIR!, 'cache');
    const cacheFile = () => {
      const files = readdirSync(cacheDir).filter((f) => f.startsWith('run-') && f.endsWith('.v8'));
      expect(files).toHaveLength(1);
      const path = join(cacheDir, files[0]!);
      return { path, mtimeMs: statSync(path).mtimeMs, bytes: readFileSync(path) };
    };
    ctx.server.setHandler(() => text('ok'));
    const first = await runCli(['run', 'say ok'], { cwd: ctx.project, env: ctx.env });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const written = cacheFile();
    for (let i = 0; i < 2; i++) {
      const again = await runCli(['run', 'say ok'], { cwd: ctx.project, env: ctx.env });
      expect(again.code).toBe(0);
      const now = cacheFile();
      expect(now.path).toBe(written.path);
      expect(now.mtimeMs).toBe(written.mtimeMs);
      expect(now.bytes.equals(written.bytes)).toBe(true);
    }
  });
});
