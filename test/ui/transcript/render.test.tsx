import { beforeAll, describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import { Markdown, loadMarkdown } from '../../../src/ui/render/markdown.js';
import { DiffView } from '../../../src/ui/render/diff-view.js';
import { diffStats, diffStrings, parseUnifiedDiff } from '../../../src/ui/render/diff-lines.js';
import { highlightLines, loadHighlighter } from '../../../src/ui/render/highlight.js';
import { trimLines, truncate, displayWidth } from '../../../src/ui/render/text.js';
import { createTwoFilesPatch } from 'diff';

const frame = (el: React.ReactElement) => render(el).lastFrame() ?? '';

describe('Markdown', () => {
  // The app loads marked once its first frame is drawn (or before it, for a transcript).
  beforeAll(() => loadMarkdown());

  it('renders headings, emphasis, inline code and links as text + url', () => {
    const out = frame(<Markdown text={'# Title\n\nSome **bold**, *it* and `code` — see [docs](https://x.dev/d).'} />);
    expect(out).toContain('Title');
    expect(out).not.toContain('#');
    expect(out).toContain('Some bold, it and code — see docs (https://x.dev/d).');
    expect(out).not.toContain('**');
  });

  it('renders nested and ordered lists with markers and indentation', () => {
    const out = frame(<Markdown text={'3. three\n4. four\n   - nested a\n   - nested b\n\n- [x] done'} />);
    const lines = out.split('\n');
    expect(lines).toContain('3. three');
    expect(lines).toContain('4. four');
    const nested = lines.find((l) => l.includes('nested a')) ?? '';
    expect(nested).toMatch(/^\s{3,}• nested a$/);
    expect(out).toContain('• [x] done');
  });

  it('renders fenced code with its content and language label, and block quotes', () => {
    const out = frame(<Markdown text={'```ts\nconst answer: number = 42;\n```\n\n> quoted words'} />);
    expect(out).toContain('const answer: number = 42;');
    expect(out).toContain('ts');
    expect(out).not.toContain('```');
    expect(out).toMatch(/│ quoted words/);
  });

  it('lays tables out within the width', () => {
    const out = frame(<Markdown width={40} text={'| name | note |\n|---|---|\n| a | ' + 'long '.repeat(20) + '|'} />);
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^name\s+│ note/);
    expect(lines[1]).toContain('┼');
    expect(lines[2]).toContain('…');
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(40);
  });
});

describe('highlightLines', () => {
  beforeAll(() => loadHighlighter());
  it('splits code into coloured segments per line for a known language', () => {
    const lines = highlightLines('const a = "s";\nreturn a;', 'ts');
    expect(lines).toHaveLength(2);
    expect(lines[0]?.map((s) => s.text).join('')).toBe('const a = "s";');
    expect(lines[0]?.find((s) => s.text === 'const')?.color).toBeDefined();
    expect(highlightLines('plain', 'no-such-lang')).toEqual([[{ text: 'plain' }]]);
  });
});

describe('diff', () => {
  const before = 'a\nb\nc\nd\n';
  const after = 'a\nB\nc\nd\ne\n';

  it('parses a unified diff with line numbers', () => {
    const lines = parseUnifiedDiff(createTwoFilesPatch('f', 'f', before, after));
    expect(diffStats(lines)).toEqual({ added: 2, removed: 1 });
    expect(lines.find((l) => l.kind === 'remove')).toMatchObject({ text: 'b', oldNo: 2 });
    expect(lines.find((l) => l.kind === 'add')).toMatchObject({ text: 'B', newNo: 2 });
    expect(diffStrings(before, after)).toEqual(lines);
  });

  it('draws +/- lines with numbers and caps the rest', () => {
    const out = frame(<DiffView oldText={before} newText={after} />);
    expect(out).toMatch(/2 - b/);
    expect(out).toMatch(/2 \+ B/);
    expect(out).toMatch(/5 \+ e/);
    const many = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n');
    const capped = frame(<DiffView oldText="" newText={many} maxLines={5} />);
    expect(capped).toContain('+ line 4');
    expect(capped).not.toContain('line 5\n');
    expect(capped).toContain('… 45 more lines');
  });
});

describe('text helpers', () => {
  it('trims output from the head or the tail', () => {
    const text = Array.from({ length: 10 }, (_, i) => `l${i}`).join('\n');
    expect(trimLines(text, 3, 'tail')).toEqual({ lines: ['l7', 'l8', 'l9'], hidden: 7 });
    expect(trimLines(text, 3, 'head')).toEqual({ lines: ['l0', 'l1', 'l2'], hidden: 7 });
    expect(trimLines('a\nb\n', 3)).toEqual({ lines: ['a', 'b'], hidden: 0 });
  });

  it('truncates to a display width with an ellipsis', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abc', 4)).toBe('abc');
    expect(displayWidth(truncate('日本語のテキスト', 7))).toBeLessThanOrEqual(7);
  });
});
