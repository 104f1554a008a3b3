// `websearch` (DESIGN §5): a web search run by the model provider's own servers (Anthropic's
// server-side web search tool), for sessions whose model that provider serves. The engine
// builds it per session with the session's provider and model; the result is the answer
// written from the search results, with its numbered sources.
//
// Permission key `websearch`, allowed by default (as in Claude Code): the search runs on the
// provider's servers and cannot touch this machine; `"websearch": "ask"` or `"deny"` changes that.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { once } from '../once.js';
import { errorMessage } from '../errors.js';
import type { WebSearchRequest, WebSearchResult } from '../provider/types.js';
import { defineTool, ToolError, type Tool } from './types.js';

export const WEBSEARCH_TOOL = 'websearch';

const domain = once(() =>
  z
    .string()
    .min(1)
    .regex(/^[A-Za-z0-9.-]+(?::\d+)?(\/[^\s]*)?$/, 'a domain such as "example.com" (no scheme)'),
);

/** The tool's parameters, the same object in every websearch tool (its input schema is converted when building). */
export const WEBSEARCH_PARAMETERS = lazySchema(() =>
  z.strictObject({
    query: z.string().min(2).max(500).describe('What to search for.'),
    allowed_domains: z.array(domain()).max(20).optional().describe('Only include results from these domains.'),
    blocked_domains: z.array(domain()).max(20).optional().describe('Never include results from these domains.'),
  }),
);

export type WebSearch = (request: Omit<WebSearchRequest, 'model'>) => Promise<WebSearchResult>;

export function createWebsearchTool(search: WebSearch): Tool {
  return defineTool({
    name: WEBSEARCH_TOOL,
    description: `Searches the web and returns an answer written from the results, with numbered sources (title and URL).
- Use it for information newer than your training data or not in the project: current releases, docs, error messages.
- allowed_domains or blocked_domains (not both) narrow the results.
- Cite the sources you use when you answer the user.`,
    parameters: WEBSEARCH_PARAMETERS,
    readOnly: true,
    async execute(args, ctx) {
      if (args.allowed_domains?.length && args.blocked_domains?.length) {
        throw new ToolError('Give allowed_domains or blocked_domains, not both.');
      }
      await ctx.ask({ permission: WEBSEARCH_TOOL, patterns: [args.query], subject: args.query });
      let result: WebSearchResult;
      try {
        result = await search({ query: args.query, allowedDomains: args.allowed_domains, blockedDomains: args.blocked_domains, signal: ctx.signal });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        return { output: `Web search failed: ${errorMessage(err)}`, isError: true };
      }
      if (result.error && !result.text) return { output: `Web search failed: ${result.error}.`, isError: true };
      const sources = result.sources.map((s, i) => `[${i + 1}] ${s.title} — ${s.url}`);
      const output = [result.text || 'The search found nothing to answer the query.', ...(sources.length ? ['', 'Sources:', ...sources] : [])].join('\n');
      return { output, metadata: { sources: result.sources } };
    },
  });
}
