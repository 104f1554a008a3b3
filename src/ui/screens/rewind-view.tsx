// The `/rewind` panel (also Esc Esc on an empty prompt, DESIGN §18). Contract: shows the
// session's prompts still in the conversation, newest last, picked with Up/Down + Enter;
// then asks what to restore (code and conversation / conversation only / code only) and
// calls `onPick` with the prompt's message id and the mode. Esc closes it at any step; it
// changes nothing itself.
import { Box, Text } from 'ink';
import type { PromptEntry, RewindMode } from '../../core/engine.js';
import { terminalSafe } from '../../core/text/terminal-safe.js';
import { useKeys } from '../keys/key-router.js';
import { useRefState } from '../keys/ref-state.js';
import { roleColor } from '../theme.js';

/** Border (2), title and footer rows around the list. */
export const REWIND_CHROME_ROWS = 4;

export const REWIND_CHOICES: ReadonlyArray<{ mode: RewindMode; label: string }> = [
  { mode: 'both', label: 'Restore code and conversation' },
  { mode: 'conversation', label: 'Conversation only' },
  { mode: 'code', label: 'Code only' },
];

export interface RewindViewProps {
  /** The session's prompts, oldest first (Engine.prompts); undone ones are left out. */
  prompts: readonly PromptEntry[];
  /** Rows the panel may take, border included; the list scrolls beyond. */
  maxRows?: number | undefined;
  onPick: (messageId: string, mode: RewindMode) => void;
  onClose: () => void;
}

interface Cursor {
  /** The highlighted prompt. */
  index: number;
  /** The prompt picked; the panel then asks what to restore. */
  chosen: PromptEntry | undefined;
  /** The highlighted entry of REWIND_CHOICES. */
  choice: number;
}

export function RewindView({ prompts, maxRows, onPick, onClose }: RewindViewProps) {
  const active = prompts.filter((p) => !p.undone);
  // The newest prompt is where the user most likely wants to step back to: start there.
  // Read through refs: several keys can arrive before React renders again.
  const [getCursor, setCursor] = useRefState<Cursor>({ index: Math.max(0, active.length - 1), chosen: undefined, choice: 0 });
  const { index, chosen, choice } = getCursor();

  useKeys((_input, key) => {
    if (key.escape) return onClose();
    const at = getCursor();
    if (at.chosen) {
      const n = REWIND_CHOICES.length;
      if (key.upArrow) setCursor({ ...at, choice: (at.choice - 1 + n) % n });
      else if (key.downArrow) setCursor({ ...at, choice: (at.choice + 1) % n });
      else if (key.return) onPick(at.chosen.message_id, REWIND_CHOICES[at.choice]!.mode);
      return;
    }
    if (active.length === 0) {
      if (key.return) onClose();
      return;
    }
    if (key.upArrow) setCursor({ ...at, index: Math.max(0, at.index - 1) });
    else if (key.downArrow) setCursor({ ...at, index: Math.min(active.length - 1, at.index + 1) });
    else if (key.return) setCursor({ ...at, chosen: active[at.index] });
  });

  if (chosen) {
    return (
      <Box flexDirection="column" borderStyle="round" paddingX={1} flexShrink={0}>
        <Text bold wrap="truncate-end">
          Rewind to “{firstLine(chosen.text)}”
        </Text>
        {REWIND_CHOICES.map((c, i) => (
          <Text key={c.mode} color={i === choice ? roleColor('accent') : undefined} wrap="truncate-end">
            {i === choice ? '❯ ' : '  '}
            {c.label}
            {c.mode !== 'conversation' && !chosen.has_snapshot ? ' (no snapshot of the files)' : ''}
          </Text>
        ))}
        <Text color={roleColor('muted')}>↑↓ choose · Enter restores · Esc closes</Text>
      </Box>
    );
  }

  const room = Math.max(1, (maxRows ?? Number.POSITIVE_INFINITY) - REWIND_CHROME_ROWS);
  const top = Math.min(Math.max(0, index - room + 1), Math.max(0, active.length - room));
  const shown = active.slice(top, top + room);
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1} flexShrink={0}>
      <Text bold>Rewind: pick a prompt to go back to</Text>
      {active.length === 0 ? <Text color={roleColor('muted')}>No prompts to rewind to yet.</Text> : null}
      {shown.map((p, i) => (
        <Text key={p.message_id} color={top + i === index ? roleColor('accent') : undefined} wrap="truncate-end">
          {top + i === index ? '❯ ' : '  '}
          {firstLine(p.text)}
        </Text>
      ))}
      <Text color={roleColor('muted')}>↑↓ choose · Enter picks · Esc closes</Text>
    </Box>
  );
}

function firstLine(text: string): string {
  return terminalSafe(text.trim().split('\n')[0] ?? '');
}
