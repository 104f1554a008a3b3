// Images through the built binary: sharp stays outside the bundle and still loads when a
// pasted 9000×100 screenshot must be scaled, and `sessions show` names the picture where it
// is: `[image wide.png 2000×22]`. Needs `npm run build` first, like the other CLI tests.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { imageSize } from 'image-size';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { text } from '../support/fake-anthropic.js';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';

let ctx: CliProject | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

describe('images in the built binary', () => {
  it('scales a pasted image with sharp and shows it in sessions show', async () => {
    ctx = await startCliProject();
    const file = join(ctx.project, 'wide.png');
    writeFileSync(file, await sharp({ create: { width: 9000, height: 100, channels: 3, background: '#224488' } }).png().toBuffer());
    ctx.server.enqueue(text('A blue bar.'));
    const run = await runCli(['run', '--format', 'json', file], { cwd: ctx.project, env: ctx.env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const events = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; session_id?: string; images?: unknown });
    expect(events.find((e) => e.type === 'prompt.images')?.images).toEqual([{ name: 'wide.png', width: 2000, height: 22, media_type: 'image/png' }]);
    const content = ctx.server.requests[0]!.body.messages[0]!.content as Array<{ type: string; source?: { data: string } }>;
    const image = content.find((b) => b.type === 'image')!;
    expect(imageSize(Buffer.from(image.source!.data, 'base64'))).toMatchObject({ width: 2000, height: 22 });

    const sessionId = events.find((e) => e.session_id)!.session_id!;
    const shown = await runCli(['sessions', 'show', sessionId], { cwd: ctx.project, env: ctx.env });
    expect(shown.stdout).toContain(`> ${file}`);
    expect(shown.stdout).toContain('> [image wide.png 2000×22]');
  });
});
