// The tests' tmux helper: a session started just as the server goes away (its last session
// ended, or kill-server) starts all the same, although the old server may still be on its way out.
import { afterAll, describe, expect, it } from 'vitest';
import { hasTmux, tmuxServer } from '../support/tmux.js';

const server = tmuxServer(`oci-restart-${process.pid}`);

describe.runIf(hasTmux || process.env.CI)('the tests’ tmux server', () => {
  afterAll(() => server.kill());

  it('starts a new session right after the last one ended or the server was stopped, every time', () => {
    for (let round = 0; round < 40; round++) {
      // `true` ends at once, so the server starts to exit while the next session is asked for.
      server.run('new-session', '-d', '-s', 'a', 'true');
      server.run('new-session', '-d', '-s', 'b', 'sleep 30');
      server.kill();
    }
    server.run('new-session', '-d', '-s', 'last', 'sleep 30');
    expect(server.run('list-sessions', '-F', '#{session_name}').trim()).toBe('last');
  });
});
