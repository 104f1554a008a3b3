// A model that keeps starting background commands (a loop, a prompt injection) cannot fill
// the machine with processes: one session runs at most MAX_RUNNING_SHELLS at once; the next
// start is an error result naming the running ones and starts nothing, and stopping one with
// kill_shell makes room again.
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_RUNNING_SHELLS } from '../../src/core/shells/background-shells.js';
import { reply, text, toolResults } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { liveProcesses, liveProcessesWhere } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

let h: Harness | undefined;
const duration = `${600000 + Math.floor(Math.random() * 99999)}.${process.pid}7`;

afterEach(async () => {
  await h?.engine.close();
  await h?.close();
  h = undefined;
  for (const pid of liveProcesses(duration)) process.kill(pid, 'SIGKILL');
});

const sleeps = () => liveProcessesWhere((cmdline) => cmdline === `sleep ${duration} `);
const resultText = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));

describe('how many background commands a session may run', { timeout: 120_000 }, () => {
  it(`refuses the ${MAX_RUNNING_SHELLS + 1}th running one, and makes room after kill_shell`, async () => {
    h = await startHarness({ config: { permission: { bash: 'allow' } } });
    const starts = Array.from({ length: MAX_RUNNING_SHELLS + 1 }, (_, i) => ({
      type: 'tool_use' as const,
      name: 'bash',
      input: { command: `sleep ${duration}`, run_in_background: true },
      id: `toolu_bg${i}`,
    }));
    h.server.enqueue(reply(...starts), text('Started many.'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'start them all');
    const results = toolResults(h.server.requests[1]!);
    expect(results).toHaveLength(MAX_RUNNING_SHELLS + 1);
    expect(results.slice(0, MAX_RUNNING_SHELLS).every((r) => !r.is_error)).toBe(true);
    const refused = results.at(-1)!;
    expect(refused.is_error).toBe(true);
    expect(resultText(refused.content)).toContain(`${MAX_RUNNING_SHELLS} background commands of this session are already running (shell_1, shell_2,`);
    await waitFor(() => sleeps().length === MAX_RUNNING_SHELLS, `${MAX_RUNNING_SHELLS} background sleeps`, { timeoutMs: 30_000 });
    expect(h.engine.runningShells()).toHaveLength(MAX_RUNNING_SHELLS);

    h.server.enqueue(
      reply({ type: 'tool_use', name: 'kill_shell', input: { shell_id: 'shell_3' }, id: 'toolu_kill' }),
      reply({ type: 'tool_use', name: 'bash', input: { command: `sleep ${duration}`, run_in_background: true }, id: 'toolu_again' }),
      text('Swapped one.'),
    );
    await h.engine.prompt(root.id, 'swap one');
    const [again] = toolResults(h.server.requests.at(-1)!);
    expect(again!.is_error).toBeFalsy();
    expect(resultText(again!.content)).toMatch(/^Started in the background as shell_\d+/);
    expect(h.engine.runningShells()).toHaveLength(MAX_RUNNING_SHELLS);
  });
});
