// `/init` through the engine and the fake Messages API: the build agent gets the built-in
// prompt, creates AGENTS.md when there is none, and edits (never overwrites) an existing one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { INIT_PROMPT } from '../../src/core/commands/index.js';
import { firstUserText } from '../support/conversations.js';
import { text, toolResults, toolUse } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

// The user approves the file changes, as they would in the dialog.
const ALLOW_EDITS = { permission: { edit: 'allow' } };

const USER_TEXT = '# Notes from the team\n\nNever touch the vendored/ folder.\nRun `make check` before committing.\n';

describe('/init', () => {
  it('sends the built-in prompt to the build agent and lets it create AGENTS.md', async () => {
    h = await startHarness({ config: ALLOW_EDITS, files: { 'package.json': '{"scripts":{"test":"vitest"}}\n' } });
    h.server.enqueue(toolUse('write', { file_path: 'AGENTS.md', content: '# AGENTS.md\n\n## Commands\n- test: `npm test`\n' }), text('Created AGENTS.md.'));
    const root = h.engine.createSession({ agent: 'plan' });
    const outcome = await h.engine.prompt(root.id, '/init');
    expect(outcome).toMatchObject({ status: 'completed', text: 'Created AGENTS.md.' });
    const prompt = firstUserText(h.server.requests[0]!);
    expect(prompt).toContain('Create or update AGENTS.md at the project root');
    expect(prompt).toContain('CLAUDE.md, .cursorrules');
    // A plan session still gets a turn that may write: /init names the build agent.
    expect(h.server.requests[0]!.body.tools?.map((t) => t.name)).toContain('write');
    expect(toolResults(h.server.requests[1]!)[0]!.is_error).toBeFalsy();
    expect(readFileSync(join(h.projectDir, 'AGENTS.md'), 'utf8')).toContain('- test: `npm test`');
  });

  it('tells the agent to keep an existing AGENTS.md and only edit it, and its text survives the edit', async () => {
    h = await startHarness({ config: ALLOW_EDITS, files: { 'AGENTS.md': USER_TEXT } });
    h.server.enqueue(
      toolUse('read', { file_path: 'AGENTS.md' }),
      toolUse('edit', { file_path: 'AGENTS.md', old_string: 'before committing.\n', new_string: 'before committing.\n\n## Commands\n- check: `make check`\n' }),
      text('Added a Commands section.'),
    );
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '/init');
    expect(INIT_PROMPT).toMatch(/keep every line of its existing text/);
    expect(INIT_PROMPT).toMatch(/only with the edit tool/);
    expect(INIT_PROMPT).toMatch(/never replace the file with a new write/);
    expect(firstUserText(h.server.requests[0]!)).toContain('keep every line of its existing text');
    expect(toolResults(h.server.requests[2]!)[0]!.is_error).toBeFalsy();
    const after = readFileSync(join(h.projectDir, 'AGENTS.md'), 'utf8');
    for (const line of USER_TEXT.split('\n').filter(Boolean)) expect(after).toContain(line);
    expect(after).toContain('## Commands');
  });

  it('puts the user\'s text back when the model rewrites AGENTS.md without some of its lines, keeping the new ones after it', async () => {
    h = await startHarness({ config: ALLOW_EDITS, files: { 'AGENTS.md': USER_TEXT } });
    const rewritten = '# AGENTS.md\n\nRun `make check` before committing.\n\n## Commands\n- check: `make check`\n';
    h.server.enqueue(toolUse('read', { file_path: 'AGENTS.md' }), toolUse('write', { file_path: 'AGENTS.md', content: rewritten }), text('Rewrote AGENTS.md.'));
    const root = h.engine.createSession();
    const outcome = await h.engine.prompt(root.id, '/init');
    expect(outcome.status).toBe('completed');
    const after = readFileSync(join(h.projectDir, 'AGENTS.md'), 'utf8');
    expect(after.startsWith(USER_TEXT)).toBe(true);
    expect(after.slice(USER_TEXT.length)).toBe('\n## Added by /init\n\n# AGENTS.md\n\n## Commands\n- check: `make check`\n');
    const kept = h.events.filter((e) => e.type === 'file.kept');
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ file: 'AGENTS.md', action: 'merged', session_id: root.id });
    expect(kept[0]!.type === 'file.kept' && kept[0]!.message).toMatch(/^\/init dropped lines of your AGENTS\.md, so your text was put back intact/);
  });

  it('puts AGENTS.md back as it was when the model deletes all of it and adds nothing', async () => {
    h = await startHarness({ config: ALLOW_EDITS, files: { 'AGENTS.md': USER_TEXT } });
    h.server.enqueue(toolUse('read', { file_path: 'AGENTS.md' }), toolUse('write', { file_path: 'AGENTS.md', content: '\n' }), text('Emptied it.'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '/init');
    expect(readFileSync(join(h.projectDir, 'AGENTS.md'), 'utf8')).toBe(USER_TEXT);
    expect(h.events.find((e) => e.type === 'file.kept')).toMatchObject({ action: 'restored' });
  });

  it('leaves AGENTS.md byte for byte as it was when the turn fails after changing it', async () => {
    // No trailing newline and CRLF: a restore that re-wrote lines would show here.
    const original = '# Ours\r\nKeep the\ttabs.  \r\nLast line';
    h = await startHarness({ config: ALLOW_EDITS, files: { 'AGENTS.md': original } });
    h.server.enqueue(
      toolUse('read', { file_path: 'AGENTS.md' }),
      toolUse('edit', { file_path: 'AGENTS.md', old_string: 'Last line', new_string: 'Last line\r\n## Commands' }),
      { type: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'bad request' },
    );
    const root = h.engine.createSession();
    const outcome = await h.engine.prompt(root.id, '/init');
    expect(outcome.status).toBe('failed');
    expect(toolResults(h.server.requests[2]!)[0]!.is_error).toBeFalsy();
    expect(readFileSync(join(h.projectDir, 'AGENTS.md'))).toEqual(Buffer.from(original));
    expect(h.events.find((e) => e.type === 'file.kept')).toMatchObject({ action: 'restored', message: '/init did not finish, so AGENTS.md was put back as it was.' });
  });

  it('keeps a proper edit and says nothing about it', async () => {
    h = await startHarness({ config: ALLOW_EDITS, files: { 'AGENTS.md': USER_TEXT } });
    h.server.enqueue(
      toolUse('read', { file_path: 'AGENTS.md' }),
      toolUse('edit', { file_path: 'AGENTS.md', old_string: '# Notes from the team\n', new_string: '# Notes from the team\n\n## Commands\n- build: `make`\n' }),
      text('Added commands.'),
    );
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '/init');
    expect(readFileSync(join(h.projectDir, 'AGENTS.md'), 'utf8')).toBe(USER_TEXT.replace('# Notes from the team\n', '# Notes from the team\n\n## Commands\n- build: `make`\n'));
    expect(h.events.some((e) => e.type === 'file.kept')).toBe(false);
  });

  it('does not guard AGENTS.md for a prompt that is not /init', async () => {
    h = await startHarness({ config: ALLOW_EDITS, files: { 'AGENTS.md': USER_TEXT } });
    h.server.enqueue(toolUse('read', { file_path: 'AGENTS.md' }), toolUse('write', { file_path: 'AGENTS.md', content: 'Replaced on request.\n' }), text('Done.'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'replace AGENTS.md with one line');
    expect(readFileSync(join(h.projectDir, 'AGENTS.md'), 'utf8')).toBe('Replaced on request.\n');
  });

  it('appends the words after /init as the focus', async () => {
    h = await startHarness();
    h.server.enqueue(text('ok'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '/init focus on the test commands');
    expect(firstUserText(h.server.requests[0]!).trimEnd()).toMatch(/\n\nfocus on the test commands$/);
  });

  it('gives way to a project command of the same name', async () => {
    h = await startHarness({ files: { '.opencode/commands/init.md': 'Our own init: $ARGUMENTS\n' } });
    h.server.enqueue(text('ok'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, '/init now');
    expect(firstUserText(h.server.requests[0]!)).toBe('Our own init: now');
  });
});
