// Shown once at start-up when an untrusted project's files asked for more than they may
// have (DESIGN §15), or when a trusted project's control files changed since it was trusted:
// names the changed files and what was ignored, and lets the user trust the project (again,
// pinning the files as they are now) or go on without it. "Not now" is the default (Enter,
// Esc) so a stray key never grants power.
import { useEffect, useState } from 'react';
import { Box, Text, useApp, useInput } from 'ink';
import { roleColor } from '../theme.js';

export type TrustChoice = 'trust' | 'not-now' | 'quit';

/** More than this many ignored items are summed up in one line. */
const MAX_ITEMS = 8;

export interface TrustScreenProps {
  root: string;
  ignored: readonly string[];
  /** Control files changed since the project was trusted (`.opencoderc.json (changed)`); empty for a project never trusted. */
  changed?: readonly string[];
  onChoice: (choice: TrustChoice) => void;
}

function Items({ items }: { items: readonly string[] }) {
  const shown = items.slice(0, MAX_ITEMS);
  const more = items.length - shown.length;
  return (
    <>
      {shown.map((item) => (
        <Text key={item} color={roleColor('warning')}>
          {'  • '}
          {item}
        </Text>
      ))}
      {more > 0 ? <Text color={roleColor('muted')}>{`  … and ${more} more`}</Text> : null}
    </>
  );
}

export function TrustScreen({ root, ignored, changed = [], onChoice }: TrustScreenProps) {
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
  const again = changed.length > 0;
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1} width={78}>
      <Text bold>{again ? 'Trust this project again?' : 'Trust this project?'}</Text>
      <Text color={roleColor('accent')}>{root}</Text>
      <Text> </Text>
      {again ? (
        <>
          <Text>You trusted it, but these files changed since (by you, a pull, or a command it ran). Until you trust it again, its files can only narrow what is allowed:</Text>
          <Items items={changed} />
          <Text> </Text>
        </>
      ) : null}
      {ignored.length > 0 ? (
        <>
          <Text>
            {again
              ? 'Meanwhile these are ignored:'
              : 'Its own files ask for more than an untrusted project may have. Until you trust it, these are ignored (its files can only narrow what is allowed):'}
          </Text>
          <Items items={ignored} />
          <Text> </Text>
        </>
      ) : null}
      <Text>{again ? 'Look at the changes first; trust it only if you would have written them.' : 'Trust it only if you trust whoever wrote the repository.'}</Text>
      <Text>
        <Text bold>t</Text> {again ? 'trust again (pins the files as they are now)' : 'trust (remembered; undo with opencode-ink trust --revoke)'}
      </Text>
      <Text>
        <Text bold>n</Text> / Enter: not now (start without them)
      </Text>
    </Box>
  );
}
