import { afterEach, describe, expect, it } from 'vitest';
import { render, cleanup } from 'ink-testing-library';
import { StatusLine, displayWidth, formatTokens, statusSegments, type StatusLineProps } from '../../../src/ui/components/status-line.js';

afterEach(() => cleanup());

const base: StatusLineProps = {
  agent: 'build',
  model: 'anthropic/claude-sonnet-4-5',
  tokens: 12_345,
  cost: 0.0412,
  running: 2,
  queued: 1,
  title: 'Fix login bug',
};

const lineOf = (props: StatusLineProps): string => {
  const { lastFrame } = render(<StatusLine {...props} />);
  return lastFrame() ?? '';
};

describe('StatusLine', () => {
  it('builds the documented example when there is room', () => {
    expect(statusSegments(base, 120).join(' · ')).toBe(
      'build · claude-sonnet-4-5 · 12.3k tok · $0.04 · 2 sub-agents running, 1 queued · Fix login bug',
    );
  });

  it('renders within 80 columns by shortening the activity, then the title', () => {
    const frame = lineOf(base);
    expect(frame.split('\n')).toHaveLength(1);
    expect(frame.trimEnd()).toBe('build · claude-sonnet-4-5 · 12.3k tok · $0.04 · 2 running, 1 queued · Fix login…');
    expect(lineOf({ ...base, running: 0, queued: 0 }).trimEnd()).toBe('build · claude-sonnet-4-5 · 12.3k tok · $0.04 · Fix login bug');
  });

  it('uses the width it is given, wider than 80 columns, and never more', () => {
    const frame = lineOf({ ...base, width: 96, title: 'x'.repeat(150) });
    expect(frame.split('\n')).toHaveLength(1);
    expect(displayWidth(frame.trimEnd())).toBeLessThanOrEqual(96);
    expect(displayWidth(frame.trimEnd())).toBeGreaterThan(80);
  });

  it('counts background shells after the sub-agents, shortening them before the title', () => {
    expect(statusSegments({ ...base, shells: 2 }, 120).join(' · ')).toBe(
      'build · claude-sonnet-4-5 · 12.3k tok · $0.04 · 2 sub-agents running, 1 queued · 2 background shells · Fix login bug',
    );
    expect(lineOf({ ...base, running: 0, queued: 0, shells: 1, title: 'T' }).trimEnd()).toBe('build · claude-sonnet-4-5 · 12.3k tok · $0.04 · 1 background shell · T');
    expect(lineOf({ ...base, shells: 3 }).trimEnd()).toBe('build · claude-sonnet-4-5 · 12.3k tok · $0.04 · 2 running, 1 queued · 3 shells');
    expect(lineOf({ ...base, shells: 0 })).not.toContain('shell');
  });

  it('omits the sub-agent part when nothing runs and uses the singular', () => {
    expect(lineOf({ ...base, running: 0, queued: 0 })).not.toContain('sub-agent');
    expect(lineOf({ ...base, running: 1, queued: 0, title: 'T' })).toContain('1 sub-agent running · T');
  });

  it('truncates a long title to fit 80 columns', () => {
    const frame = lineOf({ ...base, running: 0, queued: 0, title: 'Refactor the authentication middleware so that sessions expire correctly across restarts' });
    expect(frame.split('\n')).toHaveLength(1);
    expect(displayWidth(frame.trimEnd())).toBeLessThanOrEqual(80);
    expect(frame).toContain('· Refactor the authentication');
    expect(frame.trimEnd().endsWith('…')).toBe(true);
  });

  it('fits even with wide characters in the title', () => {
    const segs = statusSegments({ ...base, title: '修复登录错误并添加测试用例以及文档说明更多更多更多更多更多' }, 80);
    expect(displayWidth(segs.join(' · '))).toBeLessThanOrEqual(80);
  });

  it('fits narrow widths by cutting the whole line', () => {
    const segs = statusSegments(base, 40);
    expect(displayWidth(segs.join(' · '))).toBeLessThanOrEqual(40);
    expect(segs.join(' · ').startsWith('build · claude')).toBe(true);
  });

  it('shows the child footer in a child view', () => {
    const frame = lineOf({ ...base, running: 0, queued: 0, view: { label: 'explore', index: 2, total: 3 }, tokens: 800, cost: 0.01 });
    expect(frame.trimEnd()).toBe('explore (2 of 3) · 800 tok · $0.01');
  });

  it('formats token counts compactly', () => {
    expect(formatTokens(999)).toBe('999 tok');
    expect(formatTokens(12_000)).toBe('12k tok');
    expect(formatTokens(123_456)).toBe('123k tok');
    expect(formatTokens(2_500_000)).toBe('2.5M tok');
  });
});
