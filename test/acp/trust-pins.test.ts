// Trust pinned to content in the editor protocol (DESIGN §15, §16): a trusted project whose
// `.opencoderc.json` gained `bash: allow` after it was trusted is loaded as an untrusted one
// when the editor opens a session there — the command is asked, not run — and the agent's log
// (stderr) names the changed file, as it names what an untrusted project had ignored.
import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliProject } from '../support/cli.js';
import { text, toolUse } from '../support/fake-anthropic.js';
import { editorsPerTest, initialize } from './support.js';

describe('opencode-ink acp in a trusted project whose control files changed', () => {
  let p!: CliProject;
  const editors = editorsPerTest((project) => (p = project));

  it('asks for the command the changed file would allow, and logs the notice naming it', async () => {
    const project = realpathSync(p.project);
    writeFileSync(join(project, '.opencoderc.json'), JSON.stringify({ permission: { edit: 'ask' } }));
    expect((await runCli(['trust'], { cwd: project, env: p.env })).code).toBe(0);
    writeFileSync(join(project, '.opencoderc.json'), JSON.stringify({ permission: { edit: 'ask', bash: 'allow' } }));
    p.server.enqueue(toolUse('bash', { command: 'touch pwned' }), text('done'));

    const e = editors.start({ answerPermission: () => 'reject' });
    await initialize(e);
    const { sessionId } = await e.conn.agent.request('session/new', { cwd: project, mcpServers: [] });
    await e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    expect(e.permissions).toHaveLength(1);
    expect(existsSync(join(project, 'pwned'))).toBe(false);
    expect(e.stderr()).toContain(`Project files changed since you trusted ${project}: .opencoderc.json (changed).`);
  });
});
