// Waiting is never silent: a model request that fails and is tried again (overloaded, rate
// limited, a refused connection) is a typed `request.retrying` event in `run --format json`,
// one stderr line per retry in `run` text mode, and a status-line note in the TUI.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CoreEvent } from '../../src/core/events.js';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { validStreamLines } from '../support/events.js';
import { text } from '../support/fake-anthropic.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';
import { startTerm } from '../support/tmux-cli.js';

let ctx: CliProject;

beforeEach(async () => {
  ctx = await startCliProject();
});

afterEach(async () => {
  await ctx.close();
});

/** A port that was just free: nothing listens there, so connecting is refused. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

const overloaded = { type: 'http_error', status: 529, errorType: 'overloaded_error', message: 'Overloaded', retryAfter: 0.01 } as const;

describe('run and request retries', () => {
  it('prints one stderr line per retry in text mode', async () => {
    ctx.server.enqueue(overloaded, { type: 'http_error', status: 429, errorType: 'rate_limit_error', message: 'Slow down', retryAfter: 0.01 }, text('Answer after waiting.'));
    const result = await runCli(['run', 'hello'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Answer after waiting.\n');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^retrying \(attempt 2 of 5\): overloaded, next in 1 s — Anthropic API error 529/);
    expect(lines[1]).toMatch(/^retrying \(attempt 3 of 5\): rate limited, next in 1 s — Anthropic API error 429/);
  });

  it('says a refused connection is retried', async () => {
    mkdirSync(ctx.env.OPENCODE_INK_CONFIG_DIR!, { recursive: true });
    writeFileSync(join(ctx.env.OPENCODE_INK_CONFIG_DIR!, 'config.json'), JSON.stringify({ provider: { anthropic: { maxRetries: 1 } } }));
    const env = { ...ctx.env, ANTHROPIC_BASE_URL: `http://127.0.0.1:${await closedPort()}` };
    const result = await runCli(['run', 'hello'], { cwd: ctx.project, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^retrying \(attempt 2 of 2\): connection refused, next in \d+ s — Cannot reach the Anthropic API/m);
  });

  it('carries a typed event in --format json and prints no retry line', async () => {
    ctx.server.enqueue(overloaded, text('Answer after waiting.'));
    const result = await runCli(['run', '--format', 'json', 'hello'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const events = validStreamLines(result.stdout).filter((e): e is CoreEvent => e.type !== 'protocol');
    const retries = events.filter((e) => e.type === 'request.retrying');
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 2, max_attempts: 5, delay_ms: 10, reason: 'overloaded' });
    expect(retries[0]!.type === 'request.retrying' && retries[0]!.message).toContain('529');
    // Each reply says what it cost, so totals move while a turn runs.
    const completed = events.find((e) => e.type === 'message.completed');
    expect(completed?.type === 'message.completed' && typeof completed.cost).toBe('number');
  });
});

describe.runIf(hasTmux || process.env.CI)('the TUI while a request is retried', () => {
  const server = tmuxServer(`oci-retry-${process.pid}`);
  afterEach(() => server.kill());

  it('shows which attempt it waits for, why, and when, in the status line', async () => {
    // The server asks for a 3 s wait: long enough to read on screen.
    ctx.server.enqueue({ ...overloaded, retryAfter: 3 }, text('Answer after waiting.'));
    const term = startTerm(server, ctx, 'retry', ['hello there'], { cols: 120 });
    const waiting = await term.waitFor((s) => s.includes('retrying (attempt 2 of 5): overloaded, next in'), 'the retry note');
    expect(waiting).toMatch(/retrying \(attempt 2 of 5\): overloaded, next in [1-3] s/);
    const done = await term.waitFor((s) => s.includes('Answer after waiting.'), 'the answer');
    expect(done).not.toContain('retrying (attempt');
  });
});
