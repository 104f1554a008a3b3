// Widths come from string-width, as Ink's own: emoji and CJK take two cells, a family
// emoji (one ZWJ grapheme) two, so tables line up and the cursor steps over whole emoji.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { render, cleanup } from 'ink-testing-library';
import stringWidth from 'string-width';
import { Markdown, loadMarkdown } from '../../../src/ui/render/markdown.js';
import { layoutTable } from '../../../src/ui/render/table-layout.js';
import { displayWidth, truncate } from '../../../src/ui/render/text.js';
import { wrappedRows } from '../../../src/ui/screens/live-layout.js';
import * as ed from '../../../src/ui/components/input/editor.js';
import { PromptInput } from '../../../src/ui/components/input/index.js';
import { KEY, press, tick, waitFor } from '../keys/harness.js';

// The app loads marked once its first frame is drawn (or before it, for a transcript).
beforeAll(() => loadMarkdown());

afterEach(() => cleanup());

const FAMILY = '👨‍👩‍👧';

describe('display width', () => {
  it('measures emoji, a ZWJ family and CJK as the terminal draws them', () => {
    expect(displayWidth('✅')).toBe(2);
    expect(displayWidth(FAMILY)).toBe(2);
    expect(displayWidth('漢字')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('ok')).toBe(2);
  });

  it('truncates by whole graphemes, never half an emoji', () => {
    expect(truncate(`${FAMILY}${FAMILY}${FAMILY}`, 4)).toBe(`${FAMILY}…`);
    expect(truncate('漢字漢字', 5)).toBe('漢字…');
  });

  it('counts wrapped rows of wide text', () => {
    expect(wrappedRows('漢字'.repeat(10), 10)).toBe(4);
    expect(wrappedRows('✅ done ✅ done', 8)).toBe(2);
  });
});

/** Display column of each `│` in a line, counting whole graphemes as the terminal does. */
function columnsOf(line: string): number[] {
  const cols: number[] = [];
  let col = 0;
  for (const g of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(line)) {
    if (g.segment === '│') cols.push(col);
    col += stringWidth(g.segment);
  }
  return cols;
}

describe('tables with wide characters', () => {
  const header = ['Status', 'Who', 'Name'];
  const rows = [
    ['✅', FAMILY, '漢字'],
    ['no', 'x', 'abc'],
  ];

  it('pads every cell to the same display width, so the separators line up', () => {
    const t = layoutTable(header, rows, [null, null, null], 60);
    const want = columnsOf(t.header);
    expect(want).toHaveLength(2);
    for (const line of t.rows) expect(columnsOf(line)).toEqual(want);
  });

  it('draws the table aligned on screen', async () => {
    const md = ['| Status | Who | Name |', '|---|---|---|', `| ✅ | ${FAMILY} | 漢字 |`, '| no | x | abc |'].join('\n');
    const r = render(<Markdown text={md} width={60} />);
    await tick();
    const lines = (r.lastFrame() ?? '').split('\n').filter((l) => l.includes('│'));
    expect(lines).toHaveLength(3);
    const first = columnsOf(lines[0]!);
    expect(first).toHaveLength(2);
    for (const line of lines) expect(columnsOf(line)).toEqual(first);
  });
});

describe('the prompt cursor over wide characters', () => {
  it('moves and deletes a family emoji as one character', () => {
    const b = ed.fromText(`a${FAMILY}b`);
    const leftOfB = ed.left(b);
    expect(leftOfB.cursor).toBe(1 + FAMILY.length);
    expect(ed.left(leftOfB).cursor).toBe(1);
    expect(ed.backspace(leftOfB)).toEqual({ text: 'ab', cursor: 1 });
    expect(ed.graphemeAt(b.text, 1)).toBe(FAMILY);
  });

  it('edits after wide characters at the right place', async () => {
    const onSubmit = vi.fn<(text: string) => void>();
    const r = render(<PromptInput onSubmit={onSubmit} />);
    await tick();
    await press(r.stdin, `漢字${FAMILY}✅`, KEY.left, KEY.left, KEY.backspace, '!', KEY.enter);
    await waitFor(() => onSubmit.mock.calls.length > 0);
    expect(onSubmit).toHaveBeenCalledWith(`漢!${FAMILY}✅`);
  });
});
