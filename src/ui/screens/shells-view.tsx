// `/shells`: the background commands running now (`bash` with `run_in_background`, DESIGN §23),
// oldest first — id, age, the session that started each (as `sessionLabel` names it) and its
// command. Contract: ↑/↓ select a shell, Enter asks `onOpen` to show its output live, and `k`
// asks `onStop` to stop it (the core's `stopShell`, the same path as `kill_shell`); the list is
// the caller's live one, so a stopped shell leaves it once its `shell.exited` arrives. Esc or
// `q` closes (Enter too, with no shell). Taller than its rows, it scrolls to keep the selected
// shell in view.
import { Box, Text } from 'ink';
import { useRefState } from '../keys/ref-state.js';
import type { ShellSummary } from '../../core/shells/background-shells.js';
import { terminalSafe } from '../../core/text/terminal-safe.js';
import { useKeys } from '../keys/key-router.js';
import { roleColor } from '../theme.js';

/** Border (2), title and footer rows around the list. */
const CHROME_ROWS = 4;

/** How long ago, shortly: `12 s`, `4 min`, `2 h`. */
export function shortAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 120 * 60) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h`;
}

export interface ShellsViewProps {
  shells: readonly ShellSummary[];
  sessionLabel: (sessionId: string) => string;
  now: number;
  onStop: (shell: ShellSummary) => void;
  onOpen: (shell: ShellSummary) => void;
  onClose: () => void;
  /** The shell selected when the list opens (coming back from one's output). */
  initial?: { sessionId: string; shellId: string } | undefined;
  /** Rows the panel may take, border included. */
  maxRows?: number | undefined;
}

export function ShellsView({ shells, sessionLabel, now, onStop, onOpen, onClose, maxRows, initial }: ShellsViewProps) {
  const muted = roleColor('muted');
  // Read by the key handler synchronously: `↓ Enter` in one write opens the second shell.
  const [getSelected, setSelected] = useRefState(() => Math.max(0, shells.findIndex((s) => s.sessionId === initial?.sessionId && s.shellId === initial?.shellId)));
  // The list shrinks as shells end: the selection stays on the last row rather than past it.
  const clamp = (i: number) => Math.min(i, Math.max(0, shells.length - 1));
  const current = clamp(getSelected());
  const room = Math.max(1, (maxRows ?? Number.POSITIVE_INFINITY) - CHROME_ROWS);
  const top = Math.max(0, Math.min(current - room + 1, shells.length - room));
  useKeys((input, key) => {
    const at = clamp(getSelected());
    if (key.escape || input === 'q' || (key.return && !shells[at])) onClose();
    else if (key.return && shells[at]) onOpen(shells[at]);
    else if (key.upArrow) setSelected(Math.max(0, at - 1));
    else if (key.downArrow) setSelected(clamp(at + 1));
    else if (input === 'k' && shells[at]) onStop(shells[at]);
  });
  const shown = shells.slice(top, top + room);
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1} flexShrink={0}>
      <Text bold>Background commands</Text>
      {shells.length === 0 ? (
        <Text wrap="truncate-end">No background commands are running (the model starts them with bash and run_in_background).</Text>
      ) : (
        shown.map((shell, i) => {
          const isSelected = top + i === current;
          return (
            <Text key={`${shell.sessionId}:${shell.shellId}`} wrap="truncate-end" inverse={isSelected}>
              {isSelected ? '› ' : '  '}
              {shell.shellId.padEnd(9)} <Text color={muted}>{shortAge(now - shell.startedAt).padStart(6)}</Text> {terminalSafe(sessionLabel(shell.sessionId))}
              <Text color={muted}>{' · '}</Text>
              {terminalSafe(shell.command.replace(/\s+/g, ' '))}
            </Text>
          );
        })
      )}
      <Text color={muted}>{shells.length === 0 ? 'Esc closes' : `↑↓ select · Enter shows its output · k stops it and everything it started · Esc closes${shells.length > room ? ` (${top + 1}–${top + shown.length} of ${shells.length})` : ''}`}</Text>
    </Box>
  );
}
