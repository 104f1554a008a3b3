// A one-reply `run` loads no Node built-in module only a tool it did not call needs: webfetch's
// HTTPS and DNS modules are imported at its first fetch (src/core/tools/fetch-checked.ts), not
// with the bundle, and the model request goes over node:http without Node's fetch (undici,
// which the SDKs' `Headers` would load: src/core/provider/node-fetch.ts), nor Node's performance
// timeline (src/cli/startup-mark.ts); nor what the script loads at first use only
// (scripts/cli-script.mjs LAZY_BUILTINS). Read from the built binary's own record of the built-ins it loaded.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { text } from '../support/fake-anthropic.js';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { REPO_ROOT } from '../support/repo-root.js';

let ctx: CliProject;
beforeEach(async () => {
  ctx = await startCliProject();
});
afterEach(() => ctx.close());

/** The built-ins loaded, in order; `--- V8 flags changed` where the run first changed V8's flags. */
async function builtinsOf(args: string[]): Promise<string[]> {
  const file = join(ctx.dir, 'builtins.txt');
  const result = await runCli(args, {
    cwd: ctx.project,
    env: { ...ctx.env, NODE_OPTIONS: `--import=${join(REPO_ROOT, 'test', 'support', 'trace-builtins.mjs')}`, OPENCODE_INK_TRACE_BUILTINS: file },
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('NativeModule ') || line.startsWith('---'))
    .map((line) => line.replace(/^NativeModule /, ''));
}

/** The built-ins of `run "say ok"` answered with one instant reply. */
async function oneReplyRun(): Promise<string[]> {
  ctx.server.enqueue(text('ok'));
  return builtinsOf(['run', 'say ok']);
}

describe('the built-in modules of a one-reply run', () => {
  it("are not webfetch's HTTPS and DNS modules", async () => {
    const run = await oneReplyRun();
    // The control: the trace sees what every request needs.
    expect(run).toContain('http');
    expect(run).not.toContain('https');
    expect(run).not.toContain('dns');
  });

  it("are not Node's fetch (undici): the SDK's requests go over node:http", async () => {
    const run = await oneReplyRun();
    expect(run).toContain('http');
    expect(run).not.toContain('internal/deps/undici/undici');
    expect(run).not.toContain('http2');
    expect(run).not.toContain('tls');
  });

  it("are not Node's performance timeline: start-up marks only when a trace is asked for, and retries time with hrtime", async () => {
    const run = await oneReplyRun();
    expect(run).toContain('http');
    expect(run).not.toContain('perf_hooks');
    expect(run).not.toContain('internal/perf/usertiming');
  });

  it('are not child_process, worker_threads or fs/promises: the script loads each at its first use, and this run uses none', async () => {
    const run = await oneReplyRun();
    expect(run).toContain('http');
    expect(run).not.toContain('child_process');
    expect(run).not.toContain('worker_threads');
    expect(run).not.toContain('fs/promises');
  });

  it('load the web streams every model request reads before the run changes V8 flags, under which they would compile from source', async () => {
    const run = await oneReplyRun();
    const flagsChanged = run.indexOf('--- V8 flags changed');
    expect(flagsChanged).toBeGreaterThan(0);
    const streams = run.indexOf('internal/webstreams/readablestream');
    expect(streams).toBeGreaterThan(0);
    expect(streams).toBeLessThan(flagsChanged);
  });
});
