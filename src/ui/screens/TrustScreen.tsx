// Shown once at start-up when an untrusted project's files asked for more than they may
// have (DESIGN §15): names what was ignored and lets the user trust the project or go on
// without it. "Not now" is the default (Enter, Esc) so a stray key never grants power.
import { useEffect, useState } from 'react';
import { Box, Text, useApp, useInput } from 'ink';
import { roleColor } from '../theme.js';

export type TrustChoice = 'trust' | 'not-now' | 'quit';

/** More than this many ignored items are summed up in one line. */
const MAX_ITEMS = 8;

export interface TrustScreenProps {
  root: string;
  ignored: readonly string[];
  onChoice: (choice: TrustChoice) => void;
}

export function TrustScreen({ root, ignored, onChoice }: TrustScreenProps) {
  const { exit } = useApp();
  const [chosen, setChosen] = useState(false);
  const choose = (choice: TrustChoice) => {
    if (chosen) return;
    onChoice(choice);
    setChosen(true);
  };
  // Exit after an empty frame, so the dialog does not stay above the app in the scrollback.
  useEffect(() => {
    if (chosen) exit();
  }, [chosen, exit]);
  useInput((input, key) => {
    if (input === 't' || input === 'T') choose('trust');
    else if (input === 'n' || input === 'N' || key.return || key.escape) choose('not-now');
    else if (key.ctrl && input === 'c') choose('quit');
  });
  if (chosen) return null;
  const shown = ignored.slice(0, MAX_ITEMS);
  const more = ignored.length - shown.length;
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1} width={78}>
      <Text bold>Trust this project?</Text>
      <Text color={roleColor('accent')}>{root}</Text>
      <Text> </Text>
      <Text>Its own files ask for more than an untrusted project may have. Until you trust it, these are ignored (its files can only narrow what is allowed):</Text>
      {shown.map((item) => (
        <Text key={item} color={roleColor('warning')}>
          {'  • '}
          {item}
        </Text>
      ))}
      {more > 0 ? <Text color={roleColor('muted')}>{`  … and ${more} more`}</Text> : null}
      <Text> </Text>
      <Text>Trust it only if you trust whoever wrote the repository.</Text>
      <Text>
        <Text bold>t</Text> trust (remembered; undo with opencode-ink trust --revoke)
      </Text>
      <Text>
        <Text bold>n</Text> / Enter: not now (start without them)
      </Text>
    </Box>
  );
}
