// Prose wraps without a space at the start of the continuation row (Ink keeps it: its
// wrap-ansi runs with `trim: false`), and the row count stays what the layout expects.
import { afterEach, describe, expect, it } from 'vitest';
import { render, cleanup } from 'ink-testing-library';
import { Box } from 'ink';
import { Markdown } from '../../../src/ui/render/markdown.js';
import { dropWrapIndent } from '../../../src/ui/render/wrapped-text.js';
import { markdownRows } from '../../../src/ui/screens/live-layout.js';
import { tick } from '../keys/harness.js';

afterEach(() => cleanup());

describe('wrapped prose', () => {
  // The first row is exactly 20 columns: wrap-ansi puts the following space on row two.
  const text = 'aaaaaaaaaa bbbbbbbbb ccc ddd **bold** eee';

  it('starts no continuation row with a space, bold or not', async () => {
    const r = render(
      <Box width={20}>
        <Markdown text={text} width={20} />
      </Box>,
    );
    await tick();
    const rows = (r.lastFrame() ?? '').split('\n');
    expect(rows[0]).toBe('aaaaaaaaaa bbbbbbbbb');
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) expect(row).not.toMatch(/^ /);
    expect(rows.length).toBe(markdownRows(text, 20));
  });

  it('keeps the first row and colour codes as they are', () => {
    expect(dropWrapIndent('  first', 0)).toBe('  first');
    expect(dropWrapIndent('\u001B[1m next', 1)).toBe('\u001B[1mnext');
    expect(dropWrapIndent(' next', 2)).toBe('next');
  });
});
