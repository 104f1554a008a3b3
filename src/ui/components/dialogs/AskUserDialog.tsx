// A question from an agent (often a sub-agent, named by its path). Options are picked
// with Up/Down + Enter; typing writes a free-text answer instead; Esc declines.

import { Box, Text } from 'ink';
import { roleColor } from '../../theme.js';
import { printableText } from '../../keys/key-event.js';
import { useRefState } from '../../keys/ref-state.js';
import { useKeys } from '../../keys/key-router.js';
import { DialogFrame, OptionList } from './DialogFrame.js';

export interface AskUserDialogProps {
  /** The asking agent's path, e.g. `build › explore (Find API routes)`. */
  asker: string;
  question: string;
  options: readonly string[];
  /** 1-based place of this question in the queue. */
  position: number;
  total: number;
  /** Other agents with questions queued behind this one. */
  waiting?: readonly string[];
  onAnswer: (text: string) => void;
  onDecline: () => void;
  isActive?: boolean;
}

/** Keyed by question so a queued question never inherits the previous one's draft. */
export function AskUserDialog(props: AskUserDialogProps) {
  return <AskUserBody key={`${props.asker}\u0000${props.question}`} {...props} />;
}

interface AskState {
  selected: number;
  text: string;
}

function AskUserBody({ asker, question, options, position, total, waiting = [], onAnswer, onDecline, isActive = true }: AskUserDialogProps) {
  const [get, set] = useRefState<AskState>({ selected: 0, text: '' });
  const { selected, text } = get();
  const hasOptions = options.length > 0;

  useKeys(
    (input, key) => {
      const s = get();
      if (key.escape) return onDecline();
      if (key.return) {
        if (s.text.trim() !== '') return onAnswer(s.text.trim());
        const option = options[s.selected];
        if (option !== undefined) onAnswer(option);
        return;
      }
      if (key.upArrow && hasOptions) return set({ ...s, selected: (s.selected - 1 + options.length) % options.length });
      if (key.downArrow && hasOptions) return set({ ...s, selected: (s.selected + 1) % options.length });
      if (key.backspace || key.delete) return set({ ...s, text: Array.from(s.text).slice(0, -1).join('') });
      if (key.ctrl && input === 'u') return set({ ...s, text: '' });
      // Answers are one line: a pasted newline becomes a space.
      const typed = printableText(input, key).replace(/\n/g, ' ');
      if (typed !== '') set({ ...s, text: s.text + typed });
    },
    { isActive },
  );

  const typing = text !== '';
  const footer = hasOptions
    ? `↑↓ choose · Enter ${typing ? 'send your answer' : 'pick'} · type to answer freely · Esc decline`
    : 'Enter send · Esc decline';

  return (
    <DialogFrame title="Question" asker={asker} position={position} total={total} color={roleColor('warning')} footer={footer}>
      <Box marginY={1}>
        <Text>{question}</Text>
      </Box>
      {hasOptions ? <OptionList options={options} selected={selected} dimmed={typing} /> : null}
      <Box marginTop={hasOptions ? 1 : 0}>
        <Text>
          <Text color={roleColor('muted')}>{hasOptions ? 'Or type: ' : 'Answer: '}</Text>
          {text}
          <Text inverse> </Text>
        </Text>
      </Box>
      {waiting.length > 0 ? (
        <Text color={roleColor('muted')} wrap="truncate-end">
          Also waiting: {waiting.join(', ')}
        </Text>
      ) : null}
    </DialogFrame>
  );
}
