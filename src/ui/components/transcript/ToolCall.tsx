// One tool call: a status glyph and one-line summary, then the detail worth seeing —
// the diff of an edit, the tail of bash output, an error — longer when `expanded`.

import { Box, Text } from 'ink';
import { memo } from 'react';
import type { ToolCallItem } from '../../state/types.js';
import { DiffView } from '../../render/diff-view.js';
import type { DiffLine } from '../../render/diff-lines.js';
import { moreLines, trimLines, truncate } from '../../render/text.js';
import { MAX_WIDTH, SPINNER_FRAMES, roleColor } from '../../theme.js';
import { callDiff, toolArgument } from './tool-summary.js';
import { imageLabel } from '../../../core/images/label.js';

export interface ToolCallProps {
  call: ToolCallItem;
  expanded?: boolean;
  width?: number;
  /** Drives the spinner of a running call. */
  now?: number;
  /**
   * The call's approval dialog is open and shows the same diff: drawing it twice would
   * push the live region past the screen height.
   */
  hideDiff?: boolean;
}

/** Lines of detail shown collapsed / expanded. */
const LIMITS = { diff: [8, 60], bash: [3, 40], output: [0, 30] } as const;

export const ToolCall = memo(function ToolCall({ call, expanded = false, width = MAX_WIDTH, now = 0, hideDiff = false }: ToolCallProps) {
  const glyph = !call.done ? (SPINNER_FRAMES[Math.floor(now / 80) % SPINNER_FRAMES.length] ?? '') : call.isError ? '✗' : '●';
  const glyphColor = !call.done ? roleColor('running') : call.isError ? roleColor('error') : roleColor('success');
  const inner = width - 2;
  const detail = detailOf(call, expanded, hideDiff);
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
        {(call.images ?? []).map((image, i) => (
          <Text key={i} color={roleColor('muted')} wrap="truncate-end">
            {imageLabel(image)}
          </Text>
        ))}
        {detail?.kind === 'diff' ? <DiffView lines={detail.lines} maxLines={detail.max} width={inner} /> : null}
        {detail?.kind === 'output' ? <Output text={detail.text} max={detail.max} keep={detail.keep} width={inner} error={detail.error} /> : null}
      </Box>
    </Box>
  );
});

type Detail =
  | { kind: 'diff'; lines: DiffLine[]; max: number }
  | { kind: 'output'; text: string; max: number; keep: 'head' | 'tail'; error: boolean };

/** The detail worth seeing under a call — the diff of an edit, the tail of bash output, an error. */
function detailOf(call: ToolCallItem, expanded: boolean, hideDiff: boolean): Detail | undefined {
  const level = expanded ? 1 : 0;
  if (call.tool === 'edit' || call.tool === 'write') {
    // A failed edit changed nothing: its error says why, a diff would mislead.
    const lines = call.isError ? undefined : callDiff(call);
    if (lines && lines.length) return hideDiff ? undefined : { kind: 'diff', lines, max: LIMITS.diff[level] };
  }
  if (!call.done || call.output === undefined) return undefined;
  if (call.isError) return { kind: 'output', text: call.output, max: level ? LIMITS.output[1] : 2, keep: 'head', error: true };
  if (call.tool === 'bash') return { kind: 'output', text: call.output, max: LIMITS.bash[level], keep: 'tail', error: false };
  if (level === 0) return undefined;
  return { kind: 'output', text: call.output, max: LIMITS.output[1], keep: 'head', error: false };
}

/** Screen rows a ToolCall takes, for fitting the live region to the terminal. */
export function toolCallRows(call: ToolCallItem, options: { expanded?: boolean; hideDiff?: boolean } = {}): number {
  const detail = detailOf(call, options.expanded ?? false, options.hideDiff ?? false);
  // The header, then one line per image.
  const head = 1 + (call.images?.length ?? 0);
  if (!detail) return head;
  if (detail.kind === 'diff') {
    // As DiffView draws it: the first hunk marker is dropped, the rest capped with a "more" line.
    const body = detail.lines.filter((l, i) => l.kind !== 'hunk' || i > 0).length;
    return head + Math.min(body, detail.max) + (body > detail.max ? 1 : 0);
  }
  const { lines, hidden } = trimLines(detail.text, detail.max, detail.keep);
  return head + lines.length + (hidden > 0 ? 1 : 0);
}

function Output({ text, max, keep, width, error }: { text: string; max: number; keep: 'head' | 'tail'; width: number; error: boolean }) {
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
