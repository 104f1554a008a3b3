// A fenced code block: highlighted lines under a muted language label, indented so it
// stands apart from prose without a box border (borders cost columns at 80 wide).

import { Box, Text } from 'ink';
import { memo, useMemo } from 'react';
import { roleColor } from '../theme.js';
import { highlightLines } from './highlight.js';

export interface CodeBlockProps {
  code: string;
  lang?: string;
}

export const CodeBlock = memo(function CodeBlock({ code, lang }: CodeBlockProps) {
  const lines = useMemo(() => highlightLines(code.replace(/\n$/, ''), lang), [code, lang]);
  return (
    <Box flexDirection="column" paddingLeft={2}>
      {lang ? <Text color={roleColor('muted')}>{lang}</Text> : null}
      {lines.map((segments, i) => (
        <Text key={i}>
          {segments.length === 0
            ? ' '
            : segments.map((s, j) => (
                <Text key={j} color={s.color}>
                  {s.text}
                </Text>
              ))}
        </Text>
      ))}
    </Box>
  );
});
