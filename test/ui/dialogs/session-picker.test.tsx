import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, cleanup } from 'ink-testing-library';
import { SessionPicker, relativeTime, type SessionSummary } from '../../../src/ui/components/session-picker.js';
import { KEY, press, tick, waitFor, waitForFrame } from '../keys/harness.js';

afterEach(() => cleanup());

const NOW = Date.UTC(2025, 0, 10, 12);
const sessions: SessionSummary[] = [
  { id: 's3', title: 'Fix login bug', updated_at: NOW - 5 * 60_000, total_cost: 0.04, agent: 'build' },
  { id: 's2', title: 'Plan the API', updated_at: NOW - 3 * 3_600_000, total_cost: 1.5, agent: 'plan' },
  { id: 's1', title: 'Refactor logging', updated_at: NOW - 2 * 86_400_000, total_cost: 0.2, agent: 'build' },
];

async function setup(list = sessions, maxVisible?: number) {
  const onSelect = vi.fn<(id: string) => void>();
  const onCancel = vi.fn();
  const r = render(<SessionPicker sessions={list} onSelect={onSelect} onCancel={onCancel} now={NOW} {...(maxVisible ? { maxVisible } : {})} />);
  await tick();
  return { ...r, onSelect, onCancel, frame: () => r.lastFrame() ?? '' };
}

describe('SessionPicker', () => {
  it('lists sessions with agent, cost and age', async () => {
    const t = await setup();
    const f = t.frame();
    expect(f).toMatch(/❯ Fix login bug/);
    expect(f).toContain('$1.50');
    expect(f).toContain('5m ago');
    expect(f).toContain('3h ago');
    expect(f).toContain('2d ago');
  });

  it('Down + Enter selects the second session', async () => {
    const t = await setup();
    await press(t.stdin, KEY.down);
    await waitForFrame(t.lastFrame, (f) => /❯ Plan the API/.test(f));
    await press(t.stdin, KEY.enter);
    expect(t.onSelect).toHaveBeenCalledWith('s2');
  });

  it('does not move past either end', async () => {
    const t = await setup();
    await press(t.stdin, KEY.up, KEY.down, KEY.down, KEY.down, KEY.down, KEY.enter);
    expect(t.onSelect).toHaveBeenCalledWith('s1');
  });

  it('filters as you type and resets the selection', async () => {
    const t = await setup();
    await press(t.stdin, KEY.down, 'log');
    const f = await waitForFrame(t.lastFrame, (fr) => !fr.includes('Plan the API'));
    expect(f).toContain('Fix login bug');
    expect(f).toContain('Refactor logging');
    await press(t.stdin, ' ref');
    await waitForFrame(t.lastFrame, (fr) => !fr.includes('Fix login bug'));
    await press(t.stdin, KEY.enter);
    expect(t.onSelect).toHaveBeenCalledWith('s1');
  });

  it('Backspace widens the filter again; no match selects nothing', async () => {
    const t = await setup();
    await press(t.stdin, 'zzz');
    await waitForFrame(t.lastFrame, (f) => f.includes('No session matches'));
    await press(t.stdin, KEY.enter);
    expect(t.onSelect).not.toHaveBeenCalled();
    await press(t.stdin, KEY.backspace, KEY.backspace, KEY.backspace);
    await waitForFrame(t.lastFrame, (f) => f.includes('Plan the API'));
  });

  it('Esc cancels', async () => {
    const t = await setup();
    await press(t.stdin, KEY.escape);
    await waitFor(() => t.onCancel.mock.calls.length === 1);
    expect(t.onSelect).not.toHaveBeenCalled();
  });

  it('windows a long list around the selection', async () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ ...sessions[0]!, id: `id${i}`, title: `Session number ${i}` }));
    const t = await setup(many, 5);
    expect(t.frame()).toContain('↓ 25 more');
    await press(t.stdin, ...Array.from({ length: 12 }, () => KEY.down));
    const f = await waitForFrame(t.lastFrame, (fr) => /❯ Session number 12\b/.test(fr));
    expect(f).not.toContain('Session number 0 ');
    expect(f).toContain('↑');
  });

  it('formats relative times', () => {
    expect(relativeTime(NOW - 10_000, NOW)).toBe('just now');
    expect(relativeTime(NOW - 90 * 86_400_000, NOW)).toBe('2024-10-12');
  });
});
