// A one-line yes/no question (e.g. "Revert explore's changes to 3 files? y/n"). Contract: `y`
// calls `onYes`; `n` or Esc calls `onNo`; every other key is ignored, so a stray keystroke
// neither confirms nor dismisses it.
import { Text } from 'ink';
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
    <Text wrap="truncate-end">
      <Text color={roleColor('warning')}>{question}</Text>
      <Text color={roleColor('muted')}> y/n</Text>
    </Text>
  );
}
