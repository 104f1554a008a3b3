// `webfetch`: one HTTP(S) GET, returned as markdown (default), plain text or raw HTML.
// Time (30 s) and size (5 MB read at most) are capped so a slow or huge page cannot stall
// the session or flood the context; the user approves each URL.
import { z } from 'zod';
import { defineTool, ToolError } from './types.js';

export const WEBFETCH_TIMEOUT_MS = 30_000;
export const WEBFETCH_MAX_BYTES = 5 * 1024 * 1024;

const parameters = z.object({
  url: z.string().min(1).describe('The http:// or https:// URL to fetch.'),
  format: z
    .enum(['markdown', 'text', 'html'])
    .optional()
    .describe('How to return an HTML page: "markdown" (default), "text" (tags stripped) or "html" (raw).'),
});

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

async function readCapped(body: ReadableStream<Uint8Array> | null): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!body) return { bytes: new Uint8Array(), truncated: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > WEBFETCH_MAX_BYTES) {
      chunks.push(value.subarray(0, WEBFETCH_MAX_BYTES - size));
      size = WEBFETCH_MAX_BYTES;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  return { bytes: Buffer.concat(chunks), truncated };
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

- Only http:// and https:// URLs. The user may be asked to approve each URL.
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
    const href = url.toString();
    await ctx.ask({ permission: 'webfetch', patterns: [href], subject: href });

    const format = args.format ?? 'markdown';
    const timeout = AbortSignal.timeout(WEBFETCH_TIMEOUT_MS);
    const signal = AbortSignal.any([ctx.signal, timeout]);
    const accept =
      format === 'markdown'
        ? 'text/markdown;q=1.0, text/html;q=0.9, text/plain;q=0.8, */*;q=0.1'
        : format === 'text'
          ? 'text/plain;q=1.0, text/html;q=0.9, */*;q=0.1'
          : 'text/html;q=1.0, */*;q=0.1';
    let response: Response;
    let body: { bytes: Uint8Array; truncated: boolean };
    try {
      response = await fetch(href, {
        signal,
        redirect: 'follow',
        headers: { 'user-agent': 'opencode-ink (+https://github.com/)', accept, 'accept-language': 'en-US,en;q=0.9' },
      });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new ToolError(`Request failed with status ${response.status}${response.statusText ? ` ${response.statusText}` : ''}: ${href}`);
      }
      body = await readCapped(response.body);
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      if (timeout.aborted) throw new ToolError(`Request timed out after ${WEBFETCH_TIMEOUT_MS / 1000} s: ${href}`);
      if (err instanceof ToolError) throw err;
      const cause = (err as { cause?: { message?: string } }).cause?.message;
      throw new ToolError(`Request failed: ${(err as Error).message}${cause ? ` (${cause})` : ''}`);
    }

    const contentType = response.headers.get('content-type') ?? '';
    if (!isTextual(contentType)) {
      throw new ToolError(`${href} returned binary content (${contentType}); only text can be fetched.`);
    }
    const raw = decode(body.bytes, contentType);
    const isHtml = /html/i.test(contentType) || (!contentType && /^\s*<(!doctype html|html)/i.test(raw));
    let output = raw;
    if (isHtml && format === 'markdown') output = await htmlToMarkdown(raw);
    else if (isHtml && format === 'text') output = htmlToText(raw);
    if (body.truncated) output += `\n\n[Content truncated: only the first ${WEBFETCH_MAX_BYTES / 1024 / 1024} MB were read.]`;
    return {
      output: output || '(empty response)',
      metadata: { url: href, status: response.status, contentType, bytes: body.bytes.length, truncated: body.truncated },
    };
  },
});
