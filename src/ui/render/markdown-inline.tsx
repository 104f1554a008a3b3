// Inline markdown (emphasis, code spans, links...) as nested Ink <Text>, plus the same
// tokens flattened to plain text where only widths matter (tables).

import { Text } from 'ink';
import type { ReactNode } from 'react';
import type { MarkedToken, Token } from 'marked';
import { roleColor } from '../theme.js';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: ' ' };

/** marked keeps character references as written; a terminal should show the character. */
export function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_, name: string) => ENTITIES[name] ?? _);
}

function linkSuffix(text: string, href: string): string {
  const plain = href.replace(/^mailto:/, '');
  return text === href || text === plain ? '' : ` (${href})`;
}

export function renderInline(tokens: readonly Token[] | undefined, key = 'i'): ReactNode[] {
  return (tokens ?? []).map((raw, i) => {
    const token = raw as MarkedToken;
    const k = `${key}.${i}`;
    switch (token.type) {
      case 'strong':
        return (
          <Text key={k} bold>
            {renderInline(token.tokens, k)}
          </Text>
        );
      case 'em':
        return (
          <Text key={k} italic>
            {renderInline(token.tokens, k)}
          </Text>
        );
      case 'del':
        return (
          <Text key={k} strikethrough>
            {renderInline(token.tokens, k)}
          </Text>
        );
      case 'codespan':
        return (
          <Text key={k} color={roleColor('code')}>
            {decodeEntities(token.text)}
          </Text>
        );
      case 'link': {
        const label = inlinePlain(token.tokens) || token.href;
        return (
          <Text key={k}>
            <Text color={roleColor('link')} underline>
              {renderInline(token.tokens, k)}
            </Text>
            <Text color={roleColor('muted')}>{linkSuffix(label, token.href)}</Text>
          </Text>
        );
      }
      case 'image':
        return (
          <Text key={k} color={roleColor('muted')}>
            [image: {token.text || token.href}] ({token.href})
          </Text>
        );
      case 'br':
        return <Text key={k}>{'\n'}</Text>;
      case 'checkbox':
        return <Text key={k}>{token.checked ? '[x] ' : '[ ] '}</Text>;
      case 'text':
        return token.tokens ? (
          <Text key={k}>{renderInline(token.tokens, k)}</Text>
        ) : (
          <Text key={k}>{decodeEntities(token.text)}</Text>
        );
      case 'escape':
        return <Text key={k}>{token.text}</Text>;
      case 'html':
        return (
          <Text key={k} color={roleColor('muted')}>
            {token.text}
          </Text>
        );
      default:
        return <Text key={k}>{inlinePlain([raw])}</Text>;
    }
  });
}

export function inlinePlain(tokens: readonly Token[] | undefined): string {
  return (tokens ?? [])
    .map((raw) => {
      const token = raw as MarkedToken;
      switch (token.type) {
        case 'link':
          return inlinePlain(token.tokens) + linkSuffix(inlinePlain(token.tokens) || token.href, token.href);
        case 'image':
          return `[image: ${token.text || token.href}]`;
        case 'br':
          return ' ';
        case 'checkbox':
          return token.checked ? '[x] ' : '[ ] ';
        case 'codespan':
          return decodeEntities(token.text);
        case 'text':
          return token.tokens ? inlinePlain(token.tokens) : decodeEntities(token.text);
        default:
          return 'tokens' in token && Array.isArray(token.tokens) ? inlinePlain(token.tokens) : 'text' in token ? String(token.text) : '';
      }
    })
    .join('');
}
