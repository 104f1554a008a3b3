// Images over ACP (DESIGN §16, §22), through the built binary driven by the SDK's client side
// over stdio, against the fake Messages server: `initialize` advertises image prompts; image
// blocks, image blobs and links to an image file in the project reach the model request like
// `@shot.png` does (checked, scaled, stored by content hash); a non-image is refused in one
// sentence; `session/load` replays the user's pictures as image blocks.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { imageSize } from 'image-size';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { sha256Of } from '../../src/core/images/prepare.js';
import { type CliProject } from '../support/cli.js';
import { lastUserText, text, type RecordedRequest } from '../support/fake-anthropic.js';
import { editorsPerTest, initialize } from './support.js';

async function picture(format: 'png' | 'jpeg', width = 64, height = 64): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 20, g: 120, b: 200 } } })
    .toFormat(format)
    .toBuffer();
}

interface WireImage {
  type: 'image';
  source: { type: string; media_type: string; data: string };
}

function userImages(req: RecordedRequest): WireImage[] {
  const content = req.body.messages.at(-1)!.content;
  return Array.isArray(content) ? (content as Array<{ type: string }>).filter((b): b is WireImage => b.type === 'image') : [];
}

describe('opencode-ink acp: images', () => {
  let p!: CliProject;
  const editors = editorsPerTest((project) => (p = project));
  const open = async () => {
    const e = editors.start();
    const init = await initialize(e, false);
    return { e, init };
  };

  it('advertises image prompts, sends pasted, embedded and linked pictures to the model, and replays them on load', async () => {
    p.server.setHandler(() => text('A blue square.'));
    const pasted = await picture('png', 9000, 100);
    const embedded = await picture('jpeg');
    writeFileSync(join(p.project, 'shot.png'), await picture('png', 32, 16));
    const { e, init } = await open();
    expect(init.agentCapabilities?.promptCapabilities).toMatchObject({ image: true, embeddedContext: true });

    const { sessionId } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    const res = await e.conn.agent.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: 'What are these?' },
        { type: 'image', data: pasted.toString('base64'), mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///tmp/photo.jpg', mimeType: 'image/jpeg', blob: embedded.toString('base64') } },
        { type: 'resource_link', uri: pathToFileURL(join(p.project, 'shot.png')).href, name: 'shot.png' },
      ],
    });
    expect(res.stopReason).toBe('end_turn');

    const request = p.server.requests[0]!;
    expect(lastUserText(request)).toBe('What are these?');
    const images = userImages(request);
    expect(images.map((i) => i.source.media_type)).toEqual(['image/png', 'image/jpeg', 'image/png']);
    // The wide picture was scaled down within the limits, as `@wide.png` would be.
    const scaled = Buffer.from(images[0]!.source.data, 'base64');
    expect(imageSize(scaled)).toMatchObject({ width: 2000, height: 22 });
    expect(Buffer.from(images[1]!.source.data, 'base64')).toEqual(embedded);
    expect(imageSize(Buffer.from(images[2]!.source.data, 'base64'))).toMatchObject({ width: 32, height: 16 });
    // Stored once by content hash in the data dir.
    expect(existsSync(join(p.dir, 'data', 'blobs', sha256Of(scaled)))).toBe(true);
    expect(existsSync(join(p.dir, 'data', 'blobs', sha256Of(embedded)))).toBe(true);
    e.child.stdin!.end();
    await e.exited;

    const { e: second } = await open();
    await second.conn.agent.request('session/load', { sessionId, cwd: p.project, mcpServers: [] });
    const replayed = second.updates
      .filter((n) => n.sessionId === sessionId)
      .map((n) => n.update)
      .filter((u) => u.sessionUpdate === 'user_message_chunk');
    expect(replayed[0]).toMatchObject({ content: { type: 'text', text: 'What are these?' } });
    expect(replayed.slice(1).map((u) => u.sessionUpdate === 'user_message_chunk' && u.content)).toEqual([
      { type: 'image', mimeType: 'image/png', data: scaled.toString('base64') },
      { type: 'image', mimeType: 'image/jpeg', data: embedded.toString('base64') },
      { type: 'image', mimeType: 'image/png', data: images[2]!.source.data },
    ]);

    // The resumed session still sends the pictures with its history.
    await second.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'And now?' }] });
    const history = p.server.requests.at(-1)!.body.messages;
    expect(JSON.stringify(history[0])).toContain(embedded.toString('base64'));
  });

  it('takes a prompt of a picture alone, and refuses a text sent as an image in one sentence without calling the model', async () => {
    p.server.setHandler(() => text('Seen.'));
    const { e } = await open();
    const { sessionId } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });

    await expect(
      e.conn.agent.request('session/prompt', {
        sessionId,
        prompt: [
          { type: 'text', text: 'Look' },
          { type: 'image', data: Buffer.from('just some notes\n').toString('base64'), mimeType: 'image/png' },
        ],
      }),
    ).rejects.toThrow('image-2.png is not an image: it holds text.');
    expect(p.server.requests).toHaveLength(0);

    const res = await e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'image', data: (await picture('png')).toString('base64'), mimeType: 'image/png' }] });
    expect(res.stopReason).toBe('end_turn');
    const content = p.server.requests[0]!.body.messages.at(-1)!.content;
    expect(Array.isArray(content) && content.map((b: { type: string }) => b.type)).toEqual(['image']);
  });
});
