// `webfetch`: one HTTP(S) GET, returned as markdown (default), plain text or raw HTML.
// Time (30 s) and size (5 MB read at most) are capped so a slow or huge page cannot stall
// the session or flood the context. Every URL it connects to — the first and each redirect
// hop — goes through the permission rules first (see fetch-checked.ts), and addresses off
// the public internet always ask.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { fetchChecked, type FetchedResponse } from './fetch-checked.js';
import { defineTool, PermissionDeniedError, ToolError } from './types.js';
import { normaliseWebUrl } from './web-url.js';

export const WEBFETCH_TIMEOUT_MS = 30_000;
export const WEBFETCH_MAX_BYTES = 5 * 1024 * 1024;

const parameters = lazySchema(() =>
  z.object({
    url: z.string().min(1).describe('The http:// or https:// URL to fetch.'),
    format: z
      .enum(['markdown', 'text', 'html'])
      .optional()
      .describe('How to return an HTML page: "markdown" (default), "text" (tags stripped) or "html" (raw).'),
  }),
);

/** Turndown (and its DOM) load only when a page is actually converted. */
export async function htmlToMarkdown(html: string): Promise<string> {
  const { default: TurndownService } = await import('turndown');
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  service.remove(['script', 'style', 'noscript', 'iframe', 'template']);
  return service.turndown(html).trim();
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style|noscript|template)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<\/?(br|p|div|li|ul|ol|h[1-6]|tr|table|section|article|header|footer|nav|main|blockquote|pre|hr)\b[^>]*>/gi, '\n')
    .replace(/<\/?(td|th)\b[^>]*>/gi, ' ')
    .replace(/<[^>]+>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] === '#') {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/[ \t\f\v\r]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{2,}/g, '\n')
    .trim();
}

function charsetOf(contentType: string): string {
  return /charset=["']?([^;"'\s]+)/i.exec(contentType)?.[1] ?? 'utf-8';
}

function decode(bytes: Uint8Array, contentType: string): string {
  try {
    return new TextDecoder(charsetOf(contentType)).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function isTextual(contentType: string): boolean {
  if (!contentType) return true;
  return /^text\/|[/+](json|xml|javascript|ecmascript|yaml|x-yaml|toml|csv|markdown|x-sh)\b|^application\/(xhtml|rss|atom)/i.test(
    contentType,
  );
}

export const webfetchTool = defineTool({
  name: 'webfetch',
  description: `Fetch a web page or other text resource by URL and return its content.

- Only http:// and https:// URLs. The user may be asked to approve each URL, including each redirect target. Local and private network addresses always need the user's approval.
- HTML is converted to markdown by default; format "text" strips all markup and "html" returns the page source. Other text content (JSON, plain text...) is returned as is; binary content is refused.
- Takes at most ${WEBFETCH_TIMEOUT_MS / 1000} s and reads at most ${WEBFETCH_MAX_BYTES / 1024 / 1024} MB; long results may be truncated.
- Read-only: it performs a single GET and cannot log in or submit forms. Pages needing JavaScript or authentication may come back empty or as a login page.`,
  parameters,
  readOnly: true,
  async execute(args, ctx) {
    let url: URL;
    try {
      url = new URL(args.url);
    } catch {
      throw new ToolError(`Invalid URL: ${args.url}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ToolError(`Only http:// and https:// URLs can be fetched, not ${url.protocol}`);
    }
    // Rules match, and the request goes to, one spelling: no user info, no trailing dot, ASCII.
    url = normaliseWebUrl(url);
    const href = url.toString();

    const format = args.format ?? 'markdown';
    const timeout = AbortSignal.timeout(WEBFETCH_TIMEOUT_MS);
    const signal = AbortSignal.any([ctx.signal, timeout]);
    const accept =
      format === 'markdown'
        ? 'text/markdown;q=1.0, text/html;q=0.9, text/plain;q=0.8, */*;q=0.1'
        : format === 'text'
          ? 'text/plain;q=1.0, text/html;q=0.9, */*;q=0.1'
          : 'text/html;q=1.0, */*;q=0.1';
    let response: FetchedResponse;
    let finalUrl = href;
    try {
      ({ response, url: finalUrl } = await fetchChecked(url, ctx, signal, { accept }));
      if (response.status < 200 || response.status > 299) {
        response.discard();
        throw new ToolError(`Request failed with status ${response.status}${response.statusText ? ` ${response.statusText}` : ''}: ${finalUrl}`);
      }
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      if (timeout.aborted) throw new ToolError(`Request timed out after ${WEBFETCH_TIMEOUT_MS / 1000} s: ${href}`);
      if (err instanceof ToolError || err instanceof PermissionDeniedError) throw err;
      throw new ToolError(`Request failed: ${(err as Error).message}`);
    }
    let body: { bytes: Uint8Array; truncated: boolean };
    try {
      body = await response.read(WEBFETCH_MAX_BYTES);
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      if (timeout.aborted) throw new ToolError(`Request timed out after ${WEBFETCH_TIMEOUT_MS / 1000} s: ${finalUrl}`);
      throw new ToolError(`Reading the response of ${finalUrl} failed: ${(err as Error).message}`);
    }

    const contentType = response.contentType;
    if (!isTextual(contentType)) {
      throw new ToolError(`${finalUrl} returned binary content (${contentType}); only text can be fetched.`);
    }
    const raw = decode(body.bytes, contentType);
    const isHtml = /html/i.test(contentType) || (!contentType && /^\s*<(!doctype html|html)/i.test(raw));
    let output = raw;
    if (isHtml && format === 'markdown') output = await htmlToMarkdown(raw);
    else if (isHtml && format === 'text') output = htmlToText(raw);
    if (body.truncated) output += `\n\n[Content truncated: only the first ${WEBFETCH_MAX_BYTES / 1024 / 1024} MB were read.]`;
    return {
      output: output || '(empty response)',
      metadata: {
        url: href,
        ...(finalUrl !== href ? { final_url: finalUrl } : {}),
        status: response.status,
        contentType,
        bytes: body.bytes.length,
        truncated: body.truncated,
      },
    };
  },
});
