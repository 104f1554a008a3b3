// Images end to end through the real engine (DESIGN §22): `read` of a PNG, JPEG, GIF or WebP
// reaches the Anthropic fake as an image block inside the tool_result and the OpenAI fake as
// an image part in the user message after the tool results; `@shot.png` and a pasted path
// attach the picture to the prompt; oversized pictures arrive scaled within the limits; a
// text file named .png is refused; a resumed session still sends the picture, and a missing
// blob becomes a placeholder. Fixtures are made in the test with sharp.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { imageSize } from 'image-size';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { createProvider, type Provider } from '../../src/core/provider/index.js';
import { lastUserText, text, toolResults, toolUse, type RecordedRequest } from '../support/fake-anthropic.js';
import { call, say, startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
let local: FakeOpenAIServer | undefined;
afterEach(async () => {
  await h?.close();
  await local?.close();
  h = undefined;
  local = undefined;
});

type Format = 'png' | 'jpeg' | 'gif' | 'webp';

async function picture(format: Format, width = 64, height = 64): Promise<Buffer> {
  const base = sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } });
  return base.toFormat(format).toBuffer();
}

interface WireImage {
  type: 'image';
  source: { type: string; media_type: string; data: string };
}

/** Image blocks anywhere in a content array (a tool_result's content included). */
function imagesIn(content: unknown): WireImage[] {
  if (!Array.isArray(content)) return [];
  return (content as Array<{ type: string; content?: unknown }>).flatMap((block) =>
    block.type === 'image' ? [block as unknown as WireImage] : block.type === 'tool_result' ? imagesIn(block.content) : [],
  );
}

function allImages(req: RecordedRequest): WireImage[] {
  return req.body.messages.flatMap((m) => imagesIn(m.content));
}

describe('read returns images to Anthropic models', () => {
  it.each([
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
    ['gif', 'image/gif'],
    ['webp', 'image/webp'],
  ] as const)('sends a %s as an image block inside the tool_result', async (format, mediaType) => {
    h = await startHarness();
    const bytes = await picture(format);
    // Named without its extension: the bytes decide, not the name.
    writeFileSync(join(h.projectDir, 'shot'), bytes);
    h.server.enqueue(toolUse('read', { file_path: 'shot' }), text('A red square.'));
    const root = h.engine.createSession();
    const outcome = await h.engine.prompt(root.id, 'what is in shot?');
    expect(outcome.status).toBe('completed');
    const [result] = toolResults(h.server.requests[1]!);
    expect(result!.is_error).toBeUndefined();
    const content = result!.content as Array<{ type: string; text?: string }>;
    expect(content[0]).toMatchObject({ type: 'text' });
    const [image] = imagesIn(content);
    expect(image!.source).toMatchObject({ type: 'base64', media_type: mediaType });
    expect(Buffer.from(image!.source.data, 'base64').equals(bytes)).toBe(true);
    // The TUI and `run --format json` learn what was attached, typed.
    const completed = h.events.find((e) => e.type === 'tool.completed');
    expect(completed).toMatchObject({ images: [{ name: 'shot', width: 64, height: 64, media_type: mediaType }] });
  });

  it('scales a 9000×100 PNG down within the limits, keeping its aspect ratio', async () => {
    h = await startHarness();
    writeFileSync(join(h.projectDir, 'wide.png'), await picture('png', 9000, 100));
    h.server.enqueue(toolUse('read', { file_path: 'wide.png' }), text('Wide.'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'look');
    const [image] = allImages(h.server.requests[1]!);
    const sent = imageSize(Buffer.from(image!.source.data, 'base64'));
    expect(sent.width).toBe(2000);
    expect(sent.height).toBe(22);
    expect(JSON.stringify(toolResults(h.server.requests[1]!)[0]!.content)).toContain('scaled down from 9000×100');
  });

  it('scales an image heavier than 5 MB base64 until it fits', async () => {
    h = await startHarness();
    // Noise does not compress: 1500×1500 RGB PNG of random bytes is ~6.7 MB.
    const noise = Buffer.alloc(1500 * 1500 * 3);
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
    const heavy = await sharp(noise, { raw: { width: 1500, height: 1500, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
    expect(heavy.length).toBeGreaterThan(5 * 1024 * 1024);
    writeFileSync(join(h.projectDir, 'noise.png'), heavy);
    h.server.enqueue(toolUse('read', { file_path: 'noise.png' }), text('Noise.'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'look');
    const [image] = allImages(h.server.requests[1]!);
    expect(image!.source.data.length).toBeLessThanOrEqual(5 * 1024 * 1024);
  });

  it('refuses a text file named .png and a damaged PNG in one sentence', async () => {
    h = await startHarness({ files: { 'notes.png': 'just some notes\n' } });
    const whole = await picture('png');
    writeFileSync(join(h.projectDir, 'cut.png'), whole.subarray(0, whole.length - 20));
    h.server.enqueue(
      { type: 'message', content: [{ type: 'tool_use', name: 'read', input: { file_path: 'notes.png' } }, { type: 'tool_use', name: 'read', input: { file_path: 'cut.png' } }] },
      text('Neither is a picture.'),
    );
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'look');
    const [notes, cut] = toolResults(h.server.requests[1]!);
    expect(notes).toMatchObject({ is_error: true, content: 'notes.png is not an image: it holds text.' });
    expect(cut).toMatchObject({ is_error: true });
    expect(String(cut!.content)).toMatch(/^cut\.png is a damaged PNG image \(.+\); it cannot be sent\.$/);
    expect(allImages(h.server.requests[1]!)).toHaveLength(0);
  });
});

describe('images attached to the prompt', () => {
  it('attaches @shot.png to the user message', async () => {
    h = await startHarness();
    writeFileSync(join(h.projectDir, 'shot.png'), await picture('png'));
    h.server.enqueue(text('I see it.'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'what is in @shot.png?');
    const user = h.server.requests[0]!.body.messages.at(-1)!;
    expect(lastUserText(h.server.requests[0]!)).toBe('what is in @shot.png?');
    expect(imagesIn(user.content)).toHaveLength(1);
    expect(h.events.find((e) => e.type === 'prompt.images')).toMatchObject({ images: [{ name: 'shot.png', width: 64, height: 64 }] });
  });

  it('attaches a pasted image path, quoted or with escaped spaces, even outside the project', async () => {
    h = await startHarness();
    const outside = join(h.dir, 'my shot.png');
    writeFileSync(outside, await picture('jpeg'));
    h.server.enqueue(text('One.'), text('Two.'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, outside.replace(/ /g, '\\ '));
    await h.engine.prompt(root.id, `'${outside}'`);
    for (const req of h.server.requests) {
      const [image] = imagesIn(req.body.messages.at(-1)!.content);
      expect(image!.source.media_type).toBe('image/jpeg');
    }
  });

  it('still sends the picture after a resume, and a placeholder once its blob is gone', async () => {
    h = await startHarness();
    writeFileSync(join(h.projectDir, 'shot.png'), await picture('png'));
    h.server.enqueue(text('Seen.'), text('Still seen.'), text('Gone.'));
    const root = h.engine.createSession();
    await h.engine.prompt(root.id, 'look at @shot.png');
    // Only the reference is stored in the message JSON.
    const stored = JSON.stringify(h.store.messageRows(root.id));
    expect(stored).toContain('"sha256"');
    expect(stored.length).toBeLessThan(2000);

    // A new engine on the same store, as a restarted process builds.
    await h.engine.close();
    h.engine = h.newEngine();
    await h.engine.prompt(root.id, 'and now?');
    expect(allImages(h.server.requests[1]!)).toHaveLength(1);

    rmSync(join(h.dir, 'data', 'blobs'), { recursive: true, force: true });
    await h.engine.close();
    h.engine = h.newEngine();
    const outcome = await h.engine.prompt(root.id, 'and now?');
    expect(outcome.status).toBe('completed');
    expect(allImages(h.server.requests[2]!)).toHaveLength(0);
    expect(JSON.stringify(h.server.requests[2]!.body.messages)).toContain('[image shot.png 64×64 is no longer available');
  });
});

describe('images on OpenAI-compatible servers', () => {
  async function start(images: boolean): Promise<{ h: Harness; local: FakeOpenAIServer }> {
    local = await startFakeOpenAI();
    const config = { provider: { local: { type: 'openai-compatible' as const, baseURL: local.url, models: { vision: { images } } } } };
    h = await startHarness({ config });
    const providerFor = (name: string): Provider => createProvider(name, { config, env: {}, maxRetries: 0 });
    h.engine = h.newEngine({ providerFor });
    return { h, local };
  }

  it('names the image in the tool message and sends it as an image part in a user message after it', async () => {
    const { h, local } = await start(true);
    writeFileSync(join(h.projectDir, 'shot.png'), await picture('png'));
    local.enqueue(call({ name: 'read', arguments: { file_path: 'shot.png' }, id: 'call_1' }), say('A red square.'));
    const root = h.engine.createSession({ model: 'local/vision' });
    expect((await h.engine.prompt(root.id, 'look')).status).toBe('completed');
    const messages = local.requests[1]!.body.messages;
    const toolIndex = messages.findIndex((m) => m.role === 'tool');
    expect(String(messages[toolIndex]!.content)).toContain('[image shot.png 64×64 attached below]');
    const after = messages[toolIndex + 1]!;
    expect(after.role).toBe('user');
    const parts = after.content as Array<{ type: string; image_url?: { url: string } }>;
    expect(parts.find((p) => p.type === 'image_url')!.image_url!.url).toMatch(/^data:image\/png;base64,/);
  });

  it('tells the model in one sentence when its model does not take images', async () => {
    const { h, local } = await start(false);
    writeFileSync(join(h.projectDir, 'shot.png'), await picture('png'));
    local.enqueue(call({ name: 'read', arguments: { file_path: 'shot.png' }, id: 'call_1' }), say('I cannot see it.'));
    const root = h.engine.createSession({ model: 'local/vision' });
    await h.engine.prompt(root.id, 'look');
    const messages = local.requests[1]!.body.messages;
    expect(String(messages.find((m) => m.role === 'tool')!.content)).toContain('[image shot.png 64×64 not sent: the model local/vision does not take images]');
    expect(JSON.stringify(messages)).not.toContain('image_url');
  });
});
