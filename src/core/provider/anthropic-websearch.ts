// Web search through Anthropic's server-side tool (`web_search_20250305`): one Messages
// request in which the model searches (the API runs the searches) and writes an answer with
// citations. The `websearch` tool returns that answer and its sources as its result, so the
// session's own conversation never carries server tool blocks.
import type Anthropic from '@anthropic-ai/sdk';
import type { WebSearchRequest, WebSearchResult } from './types.js';

/** Searches one request may run; each is billed. */
const MAX_USES = 5;
const MAX_TOKENS = 4096;

const SYSTEM = [
  'You answer a web search query for another AI agent.',
  'Search the web, then give the facts relevant to the query, concisely, with the key details (names, versions, dates, numbers) and where each comes from.',
  'Say plainly when the results do not answer the query.',
].join(' ');

export function webSearchParams(request: WebSearchRequest): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model: request.model,
    max_tokens: MAX_TOKENS,
    system: SYSTEM,
    messages: [{ role: 'user', content: `Search the web for: ${request.query}` }],
    tools: [
      {
        type: 'web_search_20250305',
        name: 'web_search',
        max_uses: MAX_USES,
        ...(request.allowedDomains?.length ? { allowed_domains: request.allowedDomains } : {}),
        ...(request.blockedDomains?.length ? { blocked_domains: request.blockedDomains } : {}),
      },
    ],
  };
}

/** The answer's text with [n] markers after cited passages, and the numbered sources. */
export function webSearchResult(message: Anthropic.Message): WebSearchResult {
  const sources: Array<{ url: string; title: string }> = [];
  const number = (url: string, title: string | null | undefined): number => {
    const found = sources.findIndex((s) => s.url === url);
    if (found >= 0) return found + 1;
    sources.push({ url, title: title ?? url });
    return sources.length;
  };
  let text = '';
  let error: string | undefined;
  for (const block of message.content) {
    if (block.type === 'text') {
      text += block.text;
      const marks = new Set<number>();
      for (const citation of block.citations ?? []) {
        if (citation.type === 'web_search_result_location') marks.add(number(citation.url, citation.title));
      }
      if (marks.size > 0) text += [...marks].map((n) => ` [${n}]`).join('');
    } else if (block.type === 'web_search_tool_result') {
      if (Array.isArray(block.content)) for (const result of block.content) number(result.url, result.title);
      else error = block.content.error_code;
    }
  }
  return { text: text.trim(), sources, ...(error ? { error } : {}) };
}
