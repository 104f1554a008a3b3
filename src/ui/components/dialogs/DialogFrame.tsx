// The shared chrome of modal dialogs: a bordered box whose header names who is asking
// and where this dialog sits in the queue ("1 of 3").

import type { ReactNode } from 'react';
import { Box, Text } from 'ink';
import { roleColor } from '../../theme.js';

export interface DialogFrameProps {
  title: string;
  asker: string;
  position: number;
  total: number;
  color?: string;
  footer?: string;
  children: ReactNode;
}

export function DialogFrame({ title, asker, position, total, color, footer, children }: DialogFrameProps) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={color} paddingX={1}>
      <Box justifyContent="space-between">
        {/* On a narrow screen the asker is cut (with an ellipsis), never the counter. */}
        <Box flexShrink={1} flexGrow={1} overflow="hidden">
          <Text wrap="truncate-end">
            <Text bold color={color}>
              {title}
            </Text>
            <Text color={roleColor('muted')}> from </Text>
            <Text bold>{asker}</Text>
          </Text>
        </Box>
        {total > 1 ? (
          <Box flexShrink={0}>
            <Text color={roleColor('muted')}>
              {' · '}
              {position} of {total}
            </Text>
          </Box>
        ) : null}
      </Box>
      {children}
      {footer ? <Text color={roleColor('muted')}>{footer}</Text> : null}
    </Box>
  );
}

export interface OptionListProps {
  options: readonly string[];
  selected: number;
  /** Dim the highlight while typed text would be sent instead. */
  dimmed?: boolean;
  numbered?: boolean;
}

export function OptionList({ options, selected, dimmed = false, numbered = true }: OptionListProps) {
  return (
    <Box flexDirection="column">
      {options.map((option, i) => {
        const active = i === selected && !dimmed;
        return (
          <Text key={i} color={active ? roleColor('accent') : dimmed ? roleColor('muted') : undefined} bold={active}>
            {i === selected ? (dimmed ? '› ' : '❯ ') : '  '}
            {numbered ? `${i + 1}. ` : ''}
            {option}
          </Text>
        );
      })}
    </Box>
  );
}
