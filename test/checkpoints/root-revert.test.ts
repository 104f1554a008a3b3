// `sessions diff <root>` and `sessions revert <root>` (DESIGN §18): a root session's whole
// change, its sub-agents' included, over all its prompts — never a file the user changed
// between prompts, and never over a later overlapping edit. Real engine, real git snapshots,
// real tools, the built binary for the CLI, the fake Messages API.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { scriptConversations, taskUse, toolUse } from '../support/conversations.js';
import { reply, text } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const read = (h: Harness, name: string) => (existsSync(join(h.projectDir, name)) ? readFileSync(join(h.projectDir, name), 'utf8') : undefined);
const write = (file_path: string, content: string) => toolUse('write', { file_path, content });

it("diffs and reverts a root session's prompts and its sub-agent's changes, leaving the user's edits between prompts alone", async () => {
  h = await startHarness({ files: { 'notes.txt': 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n', 'shared.txt': 'base\n' }, engine: { autoApprove: true } });
  scriptConversations(h.server, {
    // Keyed by a conversation's first prompt: the root's second turn goes on in the first's queue.
    'first prompt': [
      reply(write('root.txt', 'root\n'), taskUse('child writes')),
      text('first done'),
      reply(toolUse('bash', { command: "sed -i 's/^one$/ONE/' notes.txt", description: 'edit notes' })),
      text('second done'),
    ],
    'child writes': [reply(write('child.txt', 'child\n'), toolUse('bash', { command: "printf 'agent\\n' > shared.txt", description: 'change shared' })), text('child done')],
  });
  const root = h.engine.createSession();
  await h.engine.prompt(root.id, 'first prompt');
  // The user, between the prompts: an unrelated file, and one the agent changed too.
  writeFileSync(join(h.projectDir, 'mine.txt'), 'mine\n');
  writeFileSync(join(h.projectDir, 'shared.txt'), 'user\n');
  await h.engine.prompt(root.id, 'second prompt');
  await h.engine.close();

  const diff = await runCli(['sessions', 'diff', root.id], { cwd: h.projectDir, env: h.env });
  expect(diff.code).toBe(0);
  expect(diff.stdout).toContain('+++ b/root.txt');
  expect(diff.stdout).toContain('+++ b/child.txt');
  expect(diff.stdout).toContain('+ONE');
  expect(diff.stdout).not.toContain('mine.txt');
  expect(diff.stdout).not.toContain('shared.txt');
  expect(diff.stderr).toBe("shared.txt is left out: something else changed it too between this session's prompts.\n");

  // A later edit that overlaps the agent's: nothing changes, the file is named.
  writeFileSync(join(h.projectDir, 'notes.txt'), 'One!\ntwo\nthree\nfour\nfive\nsix\nseven\n');
  const refused = await runCli(['sessions', 'revert', root.id], { cwd: h.projectDir, env: h.env });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('notes.txt');
  expect(read(h, 'root.txt')).toBe('root\n');
  expect(read(h, 'child.txt')).toBe('child\n');

  // One that does not overlap is kept.
  writeFileSync(join(h.projectDir, 'notes.txt'), 'ONE\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n');
  const cli = await runCli(['sessions', 'revert', root.id], { cwd: h.projectDir, env: h.env });
  expect(cli.stderr).toBe('');
  expect(cli.code).toBe(0);
  expect(cli.stdout).toContain(`Reverted session ${root.id}: 3 files restored`);
  expect(cli.stdout).toContain('Left as it is (changed by something else too): shared.txt, also changed between its prompts.');
  expect(read(h, 'root.txt')).toBeUndefined();
  expect(read(h, 'child.txt')).toBeUndefined();
  expect(read(h, 'notes.txt')).toBe('one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n');
  expect(read(h, 'mine.txt')).toBe('mine\n');
  expect(read(h, 'shared.txt')).toBe('user\n');
});
