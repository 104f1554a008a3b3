// A one-line yes/no question (e.g. "Revert explore's changes to 3 files? y/n"). Contract: `y`
// calls `onYes`; `n` or Esc calls `onNo`; every other key is ignored, so a stray keystroke
// neither confirms nor dismisses it. On a narrow screen the question is cut, never the `y/n`
// that says which keys answer it.
import { Box, Text } from 'ink';
import { useKeys } from '../../keys/key-router.js';
import { roleColor } from '../../theme.js';

export interface ConfirmLineProps {
  question: string;
  onYes: () => void;
  onNo: () => void;
}

export function ConfirmLine({ question, onYes, onNo }: ConfirmLineProps) {
  useKeys((input, key) => {
    if (key.escape || input === 'n' || input === 'N') onNo();
    else if (input === 'y' || input === 'Y') onYes();
  });
  return (
    <Box>
      <Box flexShrink={1}>
        <Text color={roleColor('warning')} wrap="truncate-end">
          {question}
        </Text>
      </Box>
      <Box flexShrink={0}>
        <Text color={roleColor('muted')}> y/n</Text>
      </Box>
    </Box>
  );
}
