// `run --format text` writes the model's text to a terminal: no escape sequence survives.
// `--format json` keeps the text as it came, escaped by JSON itself.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';

let ctx: CliProject;
beforeEach(async () => {
  ctx = await startCliProject();
});
afterEach(() => ctx.close());

const HOSTILE = 'Done.\u001b]52;c;Y3VybCBldmlsLnNofHNo\u0007 \u001b]0;owned\u001b\\\u001b[2J\u001b[HAll \u009b31mgood\u0007.';

describe('run stdout', () => {
  it('prints the final text without OSC, CSI, C1 or BEL', async () => {
    ctx.server.enqueue({ type: 'message', content: [{ type: 'text', text: HOSTILE }], usage: { input_tokens: 1, output_tokens: 1 } });
    const result = await runCli(['run', 'hello'], { cwd: ctx.project, env: ctx.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Done. All good.\n');
    // eslint-disable-next-line no-control-regex
    expect(result.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('leaves JSON output raw: the sequences are escaped inside JSON strings', async () => {
    ctx.server.enqueue({ type: 'message', content: [{ type: 'text', text: HOSTILE }], usage: { input_tokens: 1, output_tokens: 1 } });
    const result = await runCli(['run', '--format', 'json', 'hello'], { cwd: ctx.project, env: ctx.env });
    expect(result.stdout).not.toContain('\u001b');
    const deltas = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; text?: string })
      .filter((e) => e.type === 'text.delta')
      .map((e) => e.text)
      .join('');
    expect(deltas).toBe(HOSTILE);
  });
});
