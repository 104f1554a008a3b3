// A hook that leaves a daemon behind — `setsid` out of its process group, still holding the
// hook's stdout — must neither stall the tool call until the hook's timeout nor outlive it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { text, toolUse } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { liveProcesses, liveProcessesWhere } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

let h: Harness | undefined;
const duration = `${700000 + Math.floor(Math.random() * 99999)}.${process.pid}3`;
afterEach(async () => {
  await h?.engine.close();
  await h?.close();
  h = undefined;
  for (const pid of liveProcesses(duration)) process.kill(pid, 'SIGKILL');
});

describe('a hook that forks a daemon holding its output pipe', { timeout: 60_000 }, () => {
  it('returns long before the hook timeout, and the daemon is stopped', async () => {
    // The daemon says it started by leaving a file, so the test cannot pass without one.
    const hook = `(setsid sh -c 'touch daemon-started; exec sleep ${duration}' &); echo started`;
    h = await startHarness({
      config: { permission: { bash: 'allow' }, hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hook, timeout: 40 }] }] } },
    });
    h.server.enqueue(toolUse('bash', { command: 'echo ran' }), text('done'));
    const started = Date.now();
    const outcome = await h.engine.prompt(h.engine.createSession().id, 'go');
    expect(outcome.status).toBe('completed');
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(existsSync(join(h.projectDir, 'daemon-started'))).toBe(true);
    await waitFor(() => liveProcessesWhere((cmdline) => cmdline === `sleep ${duration} `).length === 0, 'the daemon to be stopped', { timeoutMs: 10_000 });
  });
});
