// Renders the `/` command or `@` mention menu: a window of items around the selection.

import { Box, Text } from 'ink';
import { roleColor } from '../../theme.js';
import { displayWidth, padEnd, truncate } from '../../render/text.js';
import type { MenuItem } from './completion.js';
import { terminalSafe } from '../../../core/text/terminal-safe.js';

export interface CompletionMenuProps {
  items: readonly MenuItem[];
  index: number;
  maxVisible?: number;
}

/** Columns the label column may take; longer labels (deep paths) are cut with `…`. */
const LABEL_WIDTH = 28;

export function CompletionMenu({ items, index, maxVisible = 8 }: CompletionMenuProps) {
  const start = Math.max(0, Math.min(index - Math.floor(maxVisible / 2), items.length - maxVisible));
  const visible = items.slice(start, start + maxVisible);
  const label = (item: MenuItem): string => `${item.label}${item.kind === 'agent' ? ' (agent)' : ''}`;
  const width = Math.min(LABEL_WIDTH, Math.max(...visible.map((i) => displayWidth(label(i)))));
  return (
    <Box flexDirection="column" paddingX={1}>
      {visible.map((item, i) => {
        const selected = start + i === index;
        return (
          <Box key={`${item.kind}:${item.label}`}>
            {/* The label never shrinks: the description gives way and is cut instead. */}
            <Box flexShrink={0}>
              <Text color={selected ? roleColor('accent') : undefined} bold={selected}>
                {selected ? '❯ ' : '  '}
                {padEnd(truncate(label(item), width), width)}
              </Text>
            </Box>
            {item.description ? (
              <Text color={roleColor('muted')} wrap="truncate-end">
                {'  '}
                {/* Descriptions come from project files. */}
                {terminalSafe(item.description)}
              </Text>
            ) : null}
          </Box>
        );
      })}
      {items.length > visible.length ? (
        <Text color={roleColor('muted')}>
          {'  '}
          {index + 1}/{items.length}
        </Text>
      ) : null}
    </Box>
  );
}
