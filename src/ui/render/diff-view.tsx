// A coloured diff with line numbers, capped at `maxLines` with "… N more lines" so one
// big edit cannot push the rest of the transcript off screen.

import { Box, Text } from 'ink';
import { memo, useMemo } from 'react';
import { MAX_WIDTH, roleColor } from '../theme.js';
import { diffStrings, parseUnifiedDiff, type DiffLine } from './diff-lines.js';
import { moreLines, truncate } from './text.js';

export type DiffViewProps = { maxLines?: number; width?: number } & (
  | { diff: string }
  | { oldText: string; newText: string }
  | { lines: readonly DiffLine[] }
);

const SIGN: Record<DiffLine['kind'], string> = { add: '+', remove: '-', context: ' ', hunk: '' };

export const DiffView = memo(function DiffView(props: DiffViewProps) {
  const { maxLines = 20, width = MAX_WIDTH } = props;
  const lines = useMemo(() => toLines(props), [props]);
  // The first hunk marker only repeats that a diff starts; later ones mark skipped lines.
  const body = lines.filter((l, i) => l.kind !== 'hunk' || i > 0);
  const shown = body.slice(0, maxLines);
  const hidden = body.length - shown.length;
  const numberWidth = Math.max(1, ...shown.map((l) => String(l.newNo ?? l.oldNo ?? '').length));
  return (
    <Box flexDirection="column">
      {shown.map((line, i) =>
        line.kind === 'hunk' ? (
          <Text key={i} color={roleColor('diffHunk')}>
            {' '.repeat(numberWidth)} ⋯
          </Text>
        ) : (
          <Text key={i} color={line.kind === 'add' ? roleColor('diffAdd') : line.kind === 'remove' ? roleColor('diffRemove') : undefined}>
            <Text color={roleColor('muted')}>{String(line.kind === 'remove' ? line.oldNo : line.newNo).padStart(numberWidth)} </Text>
            {truncate(`${SIGN[line.kind]} ${line.text}`, width - numberWidth - 1)}
          </Text>
        ),
      )}
      {hidden > 0 ? <Text color={roleColor('muted')}>{moreLines(hidden)}</Text> : null}
    </Box>
  );
});

function toLines(props: DiffViewProps): readonly DiffLine[] {
  if ('lines' in props) return props.lines;
  if ('diff' in props) return parseUnifiedDiff(props.diff);
  return diffStrings(props.oldText, props.newText);
}
