// Markdown → Ink elements. marked only lexes (no HTML); each block token maps to a Box or
// Text here, so terminal layout (indent, wrapping, width) stays under our control.

import { Box, Text } from 'ink';
import { memo, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { Lexer, MarkedToken, Token, Tokens } from 'marked';
import { MAX_WIDTH, roleColor } from '../theme.js';
import { CodeBlock } from './code-block.js';
import { decodeEntities, inlinePlain, renderInline } from './markdown-inline.js';
import { layoutTable, type Align } from './table-layout.js';
import { WrappedText } from './wrapped-text.js';

export interface MarkdownProps {
  text: string;
  /** Columns available; tables and rules are laid out to it. */
  width?: number;
}

// marked builds its grammar when it loads, a few ms of start-up: it is loaded before the
// first frame only when that frame shows text (launch.tsx), otherwise right after it.
let lexer: typeof Lexer | undefined;
let loading: Promise<void> | undefined;

export function loadMarkdown(): Promise<void> {
  loading ??= import('marked').then((mod) => {
    lexer = mod.Lexer;
  });
  return loading;
}

/** The text's markdown tokens; before marked has loaded, the text as one plain block. */
export function lexMarkdown(text: string): Token[] {
  if (!lexer) return [{ type: 'text', raw: text, text }];
  return lexer.lex(text, { gfm: true });
}

export const Markdown = memo(function Markdown({ text, width = MAX_WIDTH }: MarkdownProps) {
  // Drawn before marked has loaded (the app loads it right after the first frame): drawn
  // again, formatted, once it has.
  const [formatted, setFormatted] = useState(lexer !== undefined);
  useEffect(() => {
    if (!formatted) void loadMarkdown().then(() => setFormatted(true));
  }, [formatted]);
  const tokens = useMemo(() => lexMarkdown(text), [text, formatted]);
  return <Box flexDirection="column">{renderBlocks(tokens, width, 'b', true)}</Box>;
});

/** `spaced`: a blank line between blocks at the top level and in loose lists, not in tight ones. */
function renderBlocks(tokens: readonly Token[], width: number, key: string, spaced: boolean): ReactNode[] {
  const blocks = tokens.filter((t) => t.type !== 'space' && t.type !== 'def');
  return blocks.map((token, i) => (
    <Box key={`${key}.${i}`} marginTop={spaced && i > 0 ? 1 : 0} flexDirection="column">
      {renderBlock(token, width, `${key}.${i}`)}
    </Box>
  ));
}

function renderBlock(raw: Token, width: number, key: string): ReactNode {
  const token = raw as MarkedToken;
  switch (token.type) {
    case 'heading':
      return (
        <WrappedText bold underline={token.depth === 1} color={roleColor('heading')}>
          {renderInline(token.tokens, key)}
        </WrappedText>
      );
    case 'paragraph':
      return <WrappedText>{renderInline(token.tokens, key)}</WrappedText>;
    case 'text':
      return <WrappedText>{token.tokens ? renderInline(token.tokens, key) : decodeEntities(token.text)}</WrappedText>;
    case 'code':
      return <CodeBlock code={token.text} {...(token.lang ? { lang: token.lang } : {})} />;
    case 'blockquote':
      return (
        <Box
          borderStyle="single"
          borderTop={false}
          borderRight={false}
          borderBottom={false}
          borderColor={roleColor('quote')}
          paddingLeft={1}
          flexDirection="column"
        >
          {renderBlocks(token.tokens, width - 2, key, true)}
        </Box>
      );
    case 'list':
      return renderList(token, width, key);
    case 'table':
      return renderTable(token, width);
    case 'hr':
      return <Text color={roleColor('muted')}>{'─'.repeat(Math.min(width, 40))}</Text>;
    case 'html':
      return <Text color={roleColor('muted')}>{token.text.replace(/\n$/, '')}</Text>;
    default:
      return <Text>{inlinePlain([raw])}</Text>;
  }
}

function renderList(list: Tokens.List, width: number, key: string): ReactNode {
  const start = typeof list.start === 'number' ? list.start : 1;
  const markers = list.items.map((item, i) => {
    const bullet = list.ordered ? `${start + i}.` : '•';
    return item.task ? `${bullet} ${item.checked ? '[x]' : '[ ]'}` : bullet;
  });
  const markerWidth = Math.max(...markers.map((m) => m.length)) + 1;
  return (
    <Box flexDirection="column">
      {list.items.map((item, i) => (
        <Box key={`${key}.${i}`} flexDirection="row" marginTop={list.loose && i > 0 ? 1 : 0}>
          <Box width={markerWidth} flexShrink={0}>
            <Text color={roleColor('accent')}>{markers[i]}</Text>
          </Box>
          <Box flexDirection="column" flexGrow={1}>
            {renderBlocks(
              item.tokens.filter((t) => t.type !== 'checkbox'),
              width - markerWidth,
              `${key}.${i}`,
              item.loose,
            )}
          </Box>
        </Box>
      ))}
    </Box>
  );
}

function renderTable(table: Tokens.Table, width: number): ReactNode {
  const header = table.header.map((c) => inlinePlain(c.tokens));
  const rows = table.rows.map((r) => r.map((c) => inlinePlain(c.tokens)));
  const lines = layoutTable(header, rows, table.align as Align[], width);
  return (
    <Box flexDirection="column">
      <Text bold>{lines.header}</Text>
      <Text color={roleColor('muted')}>{lines.rule}</Text>
      {lines.rows.map((row, i) => (
        <Text key={i}>{row}</Text>
      ))}
    </Box>
  );
}
