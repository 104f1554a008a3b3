// Text that wraps like prose: Ink wraps with wrap-ansi `trim: false`, so a row that breaks
// at a space starts with that space (" a limiter there."). Rows after the first drop their
// leading spaces here; the row count is unchanged, so layout estimates still hold.

import { Text, Transform, type TextProps } from 'ink';

/** Leading spaces of a drawn row, after any colour codes that open it. */
// eslint-disable-next-line no-control-regex
const LEADING_SPACES = /^((?:\u001B\[[0-9;]*m)*) +/;

export function dropWrapIndent(line: string, index: number): string {
  return index === 0 ? line : line.replace(LEADING_SPACES, '$1');
}

/**
 * For prose only (paragraphs, headings, user messages), where a continuation row's
 * leading spaces carry no meaning; code and tool output keep theirs.
 */
export function WrappedText(props: TextProps) {
  return (
    <Transform transform={dropWrapIndent}>
      <Text {...props} />
    </Transform>
  );
}
