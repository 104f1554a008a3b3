// Ids (src/core/ids.ts): ULIDs whose lexical order is their creation order, with a random
// part from the pooled CSPRNG — the store's listings and the message order rely on both.
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

describe('newId', () => {
  it('is the prefix and a ULID, strictly increasing and unique across many ids made at once', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('msg'));
    for (const id of ids) {
      expect(id.startsWith('msg_')).toBe(true);
      expect(id.slice(4)).toMatch(ULID);
    }
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
  });

  it('draws a fresh random part in each millisecond, across refills of the pool', async () => {
    const randomParts = new Set<string>();
    // 300 milliseconds × 16 random characters: more bytes than the 4 KB pool holds.
    for (let i = 0; i < 300; i++) {
      const before = Date.now();
      // A new millisecond starts a new random part (within one, the previous one is incremented).
      while (Date.now() === before) await new Promise<void>((resolve) => setImmediate(resolve));
      randomParts.add(newId('ses').slice(4 + 10));
    }
    expect(randomParts.size).toBe(300);
    // Every character of the alphabet's 32 shows up: the bytes are not stuck or biased to a few.
    expect(new Set([...randomParts].join('')).size).toBe(32);
  });
});
