// What `run` tells the model (and the event stream tells a front end) when nobody can approve
// a file change: the file by name — `write notes.txt` — not the first line of its diff.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { CoreEvent } from '../../src/core/events.js';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { validStreamLines } from '../support/events.js';
import { text, toolResults, toolUse } from '../support/fake-anthropic.js';

let ctx: CliProject;

beforeEach(async () => {
  ctx = await startCliProject();
});

afterEach(async () => {
  await ctx.close();
});

it('names the file in a refused write, in the event and in what the model reads', async () => {
  ctx.server.enqueue(toolUse('write', { file_path: 'notes.txt', content: 'hello\n' }), text('Could not write it.'));
  const result = await runCli(['run', '--format', 'json', 'write the notes'], { cwd: ctx.project, env: ctx.env });
  expect(result.code).toBe(0);
  const events = validStreamLines(result.stdout).filter((e): e is CoreEvent => e.type !== 'protocol');
  const asked = events.find((e) => e.type === 'permission.asked');
  expect(asked).toMatchObject({ tool: 'write', file: 'notes.txt' });
  const refusal = toolResults(ctx.server.requests[1]!)[0]!;
  expect(refusal.content).toContain('write notes.txt needs approval');
  expect(String(refusal.content)).not.toContain('Index:');
});
