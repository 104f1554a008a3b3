// One tool call: a status glyph and one-line summary, then the detail worth seeing —
// the diff of an edit, the tail of bash output, an error — longer when `expanded`.

import { Box, Text } from 'ink';
import { memo } from 'react';
import type { ToolCallItem } from '../../state/types.js';
import { DiffView } from '../../render/diff-view.js';
import { moreLines, trimLines, truncate } from '../../render/text.js';
import { MAX_WIDTH, SPINNER_FRAMES, roleColor } from '../../theme.js';
import { callDiff, toolArgument } from './tool-summary.js';

export interface ToolCallProps {
  call: ToolCallItem;
  expanded?: boolean;
  width?: number;
  /** Drives the spinner of a running call. */
  now?: number;
}

/** Lines of detail shown collapsed / expanded. */
const LIMITS = { diff: [8, 60], bash: [3, 40], output: [0, 30] } as const;

export const ToolCall = memo(function ToolCall({ call, expanded = false, width = MAX_WIDTH, now = 0 }: ToolCallProps) {
  const glyph = !call.done ? (SPINNER_FRAMES[Math.floor(now / 80) % SPINNER_FRAMES.length] ?? '') : call.isError ? '✗' : '●';
  const glyphColor = !call.done ? roleColor('running') : call.isError ? roleColor('error') : roleColor('success');
  const level = expanded ? 1 : 0;
  const inner = width - 2;
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        <Text color={glyphColor}>{glyph} </Text>
        <Text bold color={roleColor('toolName')}>
          {call.tool}
        </Text>
        <Text> {toolArgument(call)}</Text>
      </Text>
      <Box flexDirection="column" paddingLeft={2}>
        <Detail call={call} level={level} width={inner} />
      </Box>
    </Box>
  );
});

function Detail({ call, level, width }: { call: ToolCallItem; level: 0 | 1; width: number }) {
  if (call.tool === 'edit' || call.tool === 'write') {
    // A failed edit changed nothing: its error says why, a diff would mislead.
    const lines = call.isError ? undefined : callDiff(call);
    if (lines && lines.length) return <DiffView lines={lines} maxLines={LIMITS.diff[level]} width={width} />;
  }
  if (!call.done || call.output === undefined) return null;
  if (call.isError) return <Output text={call.output} max={level ? LIMITS.output[1] : 2} keep="head" width={width} error />;
  if (call.tool === 'bash') return <Output text={call.output} max={LIMITS.bash[level]} keep="tail" width={width} />;
  if (level === 0) return null;
  return <Output text={call.output} max={LIMITS.output[1]} keep="head" width={width} />;
}

function Output({ text, max, keep, width, error }: { text: string; max: number; keep: 'head' | 'tail'; width: number; error?: boolean }) {
  const { lines, hidden } = trimLines(text, max, keep);
  if (lines.length === 0 && hidden === 0) return null;
  const more = hidden > 0 ? (
    <Text color={roleColor('muted')} key="more">
      {moreLines(hidden)}
    </Text>
  ) : null;
  return (
    <Box flexDirection="column">
      {keep === 'tail' ? more : null}
      {lines.map((line, i) => (
        <Text key={i} color={error ? roleColor('error') : roleColor('muted')}>
          {truncate(line, width)}
        </Text>
      ))}
      {keep === 'head' ? more : null}
    </Box>
  );
}
