import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addInputHistory, appendInputHistory, loadInputHistory, saveInputHistory } from '../../../src/ui/input-history.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function tempFile(): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'ink-history-'));
  return join(dir, 'nested', 'history.json');
}

describe('input history', () => {
  it('round-trips through a JSON file, creating the directory', async () => {
    const file = await tempFile();
    await saveInputHistory(file, ['a', 'b']);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(['a', 'b']);
    expect(await loadInputHistory(file)).toEqual(['a', 'b']);
  });

  it('treats a missing or corrupt file as empty', async () => {
    const file = await tempFile();
    expect(await loadInputHistory(file)).toEqual([]);
    await saveInputHistory(file, []);
    await writeFile(file, '{not json');
    expect(await loadInputHistory(file)).toEqual([]);
    await writeFile(file, JSON.stringify({ a: 1 }));
    expect(await loadInputHistory(file)).toEqual([]);
  });

  it('dedupes consecutive entries and skips blanks', () => {
    expect(addInputHistory(['a'], 'a')).toEqual(['a']);
    expect(addInputHistory(['a', 'b'], 'a')).toEqual(['a', 'b', 'a']);
    expect(addInputHistory(['a'], '  ')).toEqual(['a']);
  });

  it('caps at 500 entries keeping the newest', async () => {
    const many = Array.from({ length: 500 }, (_, i) => `e${i}`);
    const next = addInputHistory(many, 'new');
    expect(next).toHaveLength(500);
    expect(next[0]).toBe('e1');
    expect(next[499]).toBe('new');
    const file = await tempFile();
    await saveInputHistory(file, [...many, 'x', 'y']);
    expect(await loadInputHistory(file)).toHaveLength(500);
  });

  it('appends to the file on disk', async () => {
    const file = await tempFile();
    await appendInputHistory(file, 'one');
    await appendInputHistory(file, 'one');
    await appendInputHistory(file, 'two');
    expect(await loadInputHistory(file)).toEqual(['one', 'two']);
  });
});
