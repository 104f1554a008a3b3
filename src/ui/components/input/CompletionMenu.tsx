// Renders the `/` command or `@` mention menu: a window of items around the selection.

import { Box, Text } from 'ink';
import { roleColor } from '../../theme.js';
import type { MenuItem } from './completion.js';

export interface CompletionMenuProps {
  items: readonly MenuItem[];
  index: number;
  maxVisible?: number;
}

export function CompletionMenu({ items, index, maxVisible = 8 }: CompletionMenuProps) {
  const start = Math.max(0, Math.min(index - Math.floor(maxVisible / 2), items.length - maxVisible));
  const visible = items.slice(start, start + maxVisible);
  const width = Math.min(28, Math.max(...visible.map((i) => i.label.length)));
  return (
    <Box flexDirection="column" paddingX={1}>
      {visible.map((item, i) => {
        const selected = start + i === index;
        return (
          <Box key={`${item.kind}:${item.label}`}>
            <Text color={selected ? roleColor('accent') : undefined} bold={selected} wrap="truncate-end">
              {selected ? '❯ ' : '  '}
              {item.label.padEnd(width)}
              {item.kind === 'agent' ? ' (agent)' : ''}
            </Text>
            {item.description ? (
              <Text color={roleColor('muted')} wrap="truncate-end">
                {'  '}
                {item.description}
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
