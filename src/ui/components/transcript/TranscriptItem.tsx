// One transcript item as drawn in a session view: the user's message, assistant
// markdown, a tool call (or a sub-agent block for `task`), or an error.

import { Box, Text } from 'ink';
import { memo } from 'react';
import { isTaskCall, type TranscriptEntry } from '../../state/selectors.js';
import type { TranscriptItem as Item, UiState } from '../../state/types.js';
import { Markdown } from '../../render/markdown.js';
import { MAX_WIDTH, roleColor } from '../../theme.js';
import { TaskBlock } from '../tree/TaskBlock.js';
import { ToolCall } from './ToolCall.js';
import { imageLabel } from '../../../core/images/label.js';
import { toolArgument } from './tool-summary.js';

export interface TranscriptItemProps {
  item: Item;
  /** For an assistant item cut into pieces (see transcriptView): the piece to draw. */
  text?: string;
  /** Whether `text` is the final piece (where a retry note belongs); defaults to true. */
  last?: boolean;
  /** `text` follows a cut: the blank line the whole text has there goes above it (see transcriptView). */
  continued?: boolean;
  /** Show more of a tool call's output or diff. */
  expanded?: boolean;
  width?: number;
  /** Needed to draw `task` calls as sub-agent blocks; without it they draw as plain calls. */
  state?: UiState;
  now?: number;
  agentColors?: Readonly<Record<string, string>>;
  /** Latest tool calls listed under each running sub-agent (the app shrinks it to fit the screen). */
  latestTools?: number;
}

export const TranscriptItem = memo(function TranscriptItem(props: TranscriptItemProps) {
  const { item, expanded, state, now = 0, agentColors } = props;
  const width = props.width ?? MAX_WIDTH;
  if (item.undone) return <UndoneLine item={item} width={width} />;
  switch (item.kind) {
    case 'user':
      return (
        <Box width={width}>
          <Text color={roleColor('user')}>› </Text>
          <Box flexGrow={1} flexDirection="column">
            {item.text ? (
              <Text color={roleColor('user')}>
                {item.text}
                {item.steered ? <Text color={roleColor('muted')}> ({item.steered === 'user' ? 'from you' : 'from its parent'})</Text> : null}
              </Text>
            ) : null}
            {(item.images ?? []).map((image, i) => (
              <Text key={i} color={roleColor('muted')} wrap="truncate-end">
                {imageLabel(image)}
              </Text>
            ))}
          </Box>
        </Box>
      );
    case 'assistant': {
      const text = props.text ?? item.text;
      return (
        <Box flexDirection="column" width={width}>
          {text.trim() ? (
            <Box marginTop={props.continued ? 1 : 0} flexDirection="column">
              <Markdown text={text} width={width} />
            </Box>
          ) : null}
          {item.abandoned && props.last !== false ? (
            <Text color={roleColor('warning')}>⟳ retrying: {item.abandoned}</Text>
          ) : null}
        </Box>
      );
    }
    case 'tool':
      if (isTaskCall(item) && state) {
        return (
          <TaskBlock
            state={state}
            call={item}
            now={now}
            width={width}
            {...(agentColors ? { agentColors } : {})}
            {...(props.latestTools !== undefined ? { latestTools: props.latestTools } : {})}
            {...(expanded !== undefined ? { expanded } : {})}
          />
        );
      }
      return <ToolCall call={item} width={width} now={now} {...(expanded !== undefined ? { expanded } : {})} />;
    case 'error':
      return (
        <Box width={width}>
          <Text color={roleColor('error')}>✗ {item.message}</Text>
        </Box>
      );
    case 'notice':
      return (
        <Box width={width}>
          <Text dimColor>⋯ {item.text}</Text>
        </Box>
      );
  }
});

/** Draws an entry of transcriptView(): whole items, or one piece of a cut assistant text. */
export function TranscriptEntryView({ entry, ...rest }: { entry: TranscriptEntry } & Omit<TranscriptItemProps, 'item' | 'text'>) {
  return 'text' in entry ? <TranscriptItem item={entry.item} text={entry.text} last={entry.last} continued={entry.continued} {...rest} /> : <TranscriptItem item={entry.item} {...rest} />;
}

/**
 * A turn taken out by undo or rewind stays in view, one dimmed line per item marked
 * `[undone]` (as `sessions show` prints it), so the screen never shows it as current.
 */
function UndoneLine({ item, width }: { item: Item; width: number }) {
  const firstLine = (text: string) => text.split('\n').find((l) => l.trim() !== '') ?? '';
  const text =
    item.kind === 'user'
      ? `› ${firstLine(item.text)}`
      : item.kind === 'assistant'
        ? firstLine(item.text)
        : item.kind === 'tool'
          ? `${item.tool} ${toolArgument(item)}`.trim()
          : item.kind === 'error'
            ? `✗ ${item.message}`
            : `⋯ ${item.text}`;
  return (
    <Box width={width}>
      <Text dimColor wrap="truncate-end">
        [undone] {text}
      </Text>
    </Box>
  );
}
