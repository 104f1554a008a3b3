// An MCP `tools/call` result as the text of a tool result. Text stays text; images and audio
// become a short note (the model cannot use base64 it never asked for); embedded resources
// give their text or their URI; structured content is JSON when no text says it already.

/** The parts of an MCP call result we read (the SDK's type, loosely: servers vary). */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  /** Servers of the 2024-10-07 protocol answer with this instead of `content`. */
  toolResult?: unknown;
}

export function formatCallResult(result: McpCallResult): { output: string; isError: boolean } {
  const parts: string[] = [];
  const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  for (const item of content) parts.push(formatPart(item));
  const hasText = content.some((item) => isRecord(item) && item.type === 'text');
  if (result.toolResult !== undefined && content.length === 0) parts.push(JSON.stringify(result.toolResult, null, 2));
  if (result.structuredContent !== undefined && !hasText) parts.push(JSON.stringify(result.structuredContent, null, 2));
  const isError = result.isError === true;
  const output = parts.filter((p) => p.length > 0).join('\n');
  return { output: output || (isError ? 'The MCP tool reported an error without details.' : '(no output)'), isError };
}

function formatPart(item: unknown): string {
  if (!isRecord(item)) return '';
  switch (item.type) {
    case 'text':
      return typeof item.text === 'string' ? item.text : '';
    case 'image':
    case 'audio':
      return `[${item.type}: ${String(item.mimeType ?? 'unknown type')}, ${base64Bytes(item.data)} bytes]`;
    case 'resource': {
      const resource = isRecord(item.resource) ? item.resource : {};
      if (typeof resource.text === 'string') return resource.text;
      return `[resource: ${String(resource.uri ?? 'unknown')}${typeof resource.blob === 'string' ? `, ${base64Bytes(resource.blob)} bytes` : ''}]`;
    }
    case 'resource_link':
      return `[resource link: ${String(item.uri ?? '')}${typeof item.name === 'string' ? ` (${item.name})` : ''}]`;
    default:
      return `[${String(item.type)} content]`;
  }
}

function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  const clean = data.replace(/=+$/, '');
  return Math.floor((clean.length * 3) / 4);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
