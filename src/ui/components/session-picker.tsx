// Picks a root session to resume: Up/Down/Enter/Esc, and typing filters by title, agent
// or id (every word must match somewhere).

import { Box, Text } from 'ink';
import { agentColor, roleColor } from '../theme.js';
import { printableText } from '../keys/key-event.js';
import { useRefState } from '../keys/ref-state.js';
import { useKeys } from '../keys/key-router.js';
import { formatCost, truncate } from './status-line.js';
import { terminalSafe } from '../../core/text/terminal-safe.js';

export interface SessionSummary {
  id: string;
  title: string;
  /** Milliseconds since the epoch. */
  updated_at: number;
  /** USD, descendants included. */
  total_cost: number;
  agent: string;
}

/** Border, title, filter, footer and the two "N more" lines around the listed sessions. */
export const PICKER_CHROME_ROWS = 7;

export interface SessionPickerProps {
  /** Newest first, as they should be listed. */
  sessions: readonly SessionSummary[];
  onSelect: (id: string) => void;
  onCancel: () => void;
  maxVisible?: number;
  /** Reference time for "5m ago"; injectable for tests. */
  now?: number;
  isActive?: boolean;
}

export function filterSessions(sessions: readonly SessionSummary[], filter: string): SessionSummary[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...sessions];
  return sessions.filter((s) => {
    const hay = `${s.title} ${s.agent} ${s.id}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

export function relativeTime(then: number, now: number): string {
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 60) return 'just now';
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ago`;
  const d = Math.floor(h / 24);
  if (d < 30) return `${d}d ago`;
  return new Date(then).toISOString().slice(0, 10);
}

interface PickerState {
  filter: string;
  selected: number;
}

export function SessionPicker({ sessions, onSelect, onCancel, maxVisible = 10, now = Date.now(), isActive = true }: SessionPickerProps) {
  const [get, set] = useRefState<PickerState>({ filter: '', selected: 0 });
  const { filter, selected: rawSelected } = get();
  const matches = filterSessions(sessions, filter);
  const selected = Math.min(rawSelected, Math.max(0, matches.length - 1));

  useKeys(
    (input, key) => {
      const s = get();
      const list = filterSessions(sessions, s.filter);
      const at = Math.min(s.selected, Math.max(0, list.length - 1));
      if (key.escape) return onCancel();
      if (key.return) {
        const hit = list[at];
        if (hit) onSelect(hit.id);
        return;
      }
      if (key.upArrow) return set({ ...s, selected: Math.max(0, at - 1) });
      if (key.downArrow) return set({ ...s, selected: Math.min(Math.max(0, list.length - 1), at + 1) });
      if (key.pageUp) return set({ ...s, selected: Math.max(0, at - maxVisible) });
      if (key.pageDown) return set({ ...s, selected: Math.min(Math.max(0, list.length - 1), at + maxVisible) });
      if (key.backspace || key.delete) return set({ filter: Array.from(s.filter).slice(0, -1).join(''), selected: 0 });
      if (key.ctrl && input === 'u') return set({ filter: '', selected: 0 });
      const typed = printableText(input, key).replace(/\n/g, ' ');
      if (typed !== '') set({ filter: s.filter + typed, selected: 0 });
    },
    { isActive },
  );

  const start = Math.max(0, Math.min(selected - Math.floor(maxVisible / 2), matches.length - maxVisible));
  const visible = matches.slice(start, start + maxVisible);
  const muted = roleColor('muted');

  return (
    <Box flexDirection="column" borderStyle="round" borderColor={roleColor('accent')} paddingX={1}>
      <Text bold>Sessions</Text>
      <Text>
        <Text color={muted}>Filter: </Text>
        {filter}
        <Text inverse> </Text>
      </Text>
      {sessions.length === 0 ? <Text color={muted}>No sessions yet.</Text> : null}
      {sessions.length > 0 && matches.length === 0 ? <Text color={muted}>No session matches “{filter}”.</Text> : null}
      {start > 0 ? <Text color={muted}>  ↑ {start} more</Text> : null}
      {visible.map((s, i) => {
        const active = start + i === selected;
        const meta = ` ${s.agent}  ${formatCost(s.total_cost)}  ${relativeTime(s.updated_at, now)}`;
        return (
          <Box key={s.id}>
            <Text color={active ? roleColor('accent') : undefined} bold={active}>
              {active ? '❯ ' : '  '}
              {truncate(s.title.trim() === '' ? '(untitled)' : terminalSafe(s.title), Math.max(10, 70 - meta.length)).padEnd(Math.max(10, 70 - meta.length))}
            </Text>
            <Text color={agentColor(s.agent)}> {s.agent}</Text>
            <Text color={muted}>
              {'  '}
              {formatCost(s.total_cost)}
              {'  '}
              {relativeTime(s.updated_at, now)}
            </Text>
          </Box>
        );
      })}
      {start + visible.length < matches.length ? <Text color={muted}>  ↓ {matches.length - start - visible.length} more</Text> : null}
      <Text color={muted}>↑↓ choose · Enter open · type to filter · Esc close</Text>
    </Box>
  );
}
