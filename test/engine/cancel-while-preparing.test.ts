// A cancel that comes while a prompt is still being prepared (its UserPromptSubmit hook runs,
// its snapshot is taken), before any turn is running, must still cancel it: `run` cancels
// when its reader goes away, and that can happen in exactly this window.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { scriptConversations } from '../support/conversations.js';
import { text } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';
import { waitFor } from '../support/wait.js';
import { HookScripts, hookConfig } from '../hooks/scripts.js';

let h: Harness | undefined;
let dir: string | undefined;
afterEach(async () => {
  h?.engine.cancelAll();
  await h?.engine.close();
  await h?.close();
  h = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

for (const how of ['cancel', 'cancelAll'] as const) {
  it(`${how} during the prompt's preparation cancels its turn before any request`, async () => {
    dir = mkdtempSync(join(tmpdir(), 'oci-cancel-prep-'));
    const scripts = new HookScripts(dir);
    const release = join(dir, 'release');
    // The hook holds the prompt in preparation until the test lets it go.
    const hold = scripts.command('hold', `while (!fs.existsSync(${JSON.stringify(release)})) await new Promise((r) => setTimeout(r, 20));`);
    h = await startHarness({ config: { hooks: hookConfig('UserPromptSubmit', hold) } });
    // The cancelled prompt stays in the history, as a cancelled turn's does: the next request's
    // first user message carries both prompts.
    scriptConversations(h.server, { goagain: [text('fine')] });
    const root = h.engine.createSession();
    const outcome = h.engine.prompt(root.id, 'go');
    await waitFor(() => scripts.calls('hold').length === 1, 'the hook to start', { timeoutMs: 20_000 });

    if (how === 'cancel') expect(h.engine.cancel(root.id)).toBe(true);
    else h.engine.cancelAll();
    writeFileSync(release, '');

    expect((await outcome).status).toBe('cancelled');
    expect(h.server.requests).toHaveLength(0);
    expect(existsSync(release)).toBe(true);
    // Nothing is left behind: the next prompt runs normally.
    const next = await h.engine.prompt(root.id, 'again');
    expect(next, JSON.stringify(next)).toMatchObject({ status: 'completed' });
    expect(h.server.requests).toHaveLength(1);
  });
}
