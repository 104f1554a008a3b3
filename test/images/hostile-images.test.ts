// Images a hostile repository can hold: a few bytes whose header declares a picture far too
// large to decode (a decompression bomb) are refused from the header, in one sentence naming
// the file and its size, through `read` as the model uses it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { text, toolResults, toolUse } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A PNG of `width`×`height` by its header: signature, IHDR, an empty IDAT and IEND (no pixels at all). */
function pngDeclaring(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    return Buffer.concat([length, Buffer.from(type, 'ascii'), data, Buffer.alloc(4)]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.writeUInt8(8, 8); // bit depth
  ihdr.writeUInt8(2, 9); // truecolour
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', Buffer.alloc(0)), chunk('IEND', Buffer.alloc(0))]);
}

describe('a decompression bomb', { timeout: 60_000 }, () => {
  it('is refused from its header by read, naming its size, not called damaged', async () => {
    h = await startHarness({ config: { permission: { read: 'allow' } } });
    writeFileSync(join(h.projectDir, 'bomb.png'), pngDeclaring(50_000, 50_000));
    h.server.enqueue(toolUse('read', { file_path: 'bomb.png' }), text('Seen.'));
    const session = h.engine.createSession();
    await h.engine.prompt(session.id, 'look at it');
    const [result] = toolResults(h.server.requests[1]!);
    expect(result!.is_error).toBe(true);
    const message = typeof result!.content === 'string' ? result!.content : JSON.stringify(result!.content);
    expect(message).toContain('bomb.png is 50000×50000 pixels (2,500 megapixels), too large to scale down');
    expect(message).not.toMatch(/damaged/);
  });
});
