// Provider-neutral conversation types. The store persists these blocks as JSON and the
// provider translates them to and from its wire format, so nothing outside
// src/core/provider depends on an SDK type.

export interface TextPart {
  type: 'text';
  text: string;
  /** Present only on the summary a compaction stores (src/core/context): what it replaces. */
  compaction?: CompactionMark;
}

/** The summary message's record of what it stands for (DESIGN §12). */
export interface CompactionMark {
  /** Messages just before the summary (in the history the request was built from) that stay verbatim. */
  kept: number;
  /** Estimated request size before compacting. */
  tokens_before: number;
}

export interface ThinkingPart {
  type: 'thinking';
  thinking: string;
  /** Must be echoed back unchanged to the API on the next request. */
  signature: string;
}

export interface RedactedThinkingPart {
  type: 'redacted_thinking';
  data: string;
}

export interface ToolUsePart {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultPart {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error?: boolean;
  /** Images the tool returned (`read` of a PNG), sent to the model after `content` (DESIGN §22). */
  images?: ImagePart[];
}

/** The image formats every supported provider accepts. */
export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

/**
 * An image in the conversation (DESIGN §22): in a user message (`@shot.png`, a pasted path)
 * or inside a tool result. Stored by reference: the bytes live once in the data dir under
 * their SHA-256 (store/blobs.ts), so a message's JSON stays small and a resumed session
 * still sends the picture.
 */
export interface ImagePart {
  type: 'image';
  /** SHA-256 (hex) of the bytes as sent: the blob's name. */
  sha256: string;
  media_type: ImageMediaType;
  /** The file's base name, as the user and the model know it. */
  name: string;
  /** Pixels of the image as sent (after any scaling). */
  width: number;
  height: number;
  /**
   * The bytes, base64: filled in only on a request about to be sent (images/request.ts),
   * never stored. A provider given an image without them sends a text placeholder instead.
   */
  data?: string;
}

export type AssistantPart = TextPart | ThinkingPart | RedactedThinkingPart | ToolUsePart;
export type UserPart = TextPart | ToolResultPart | ImagePart;
export type Part = AssistantPart | ToolResultPart | ImagePart;

export type Role = 'user' | 'assistant';

export interface Message {
  role: Role;
  content: Part[];
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
  };
}

/** Every token the model read for this request, cached or not. */
export function totalInputTokens(u: Usage): number {
  return u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
}

export function textOf(message: Message): string {
  return message.content
    .filter((p): p is TextPart => p.type === 'text')
    .map((p) => p.text)
    .join('');
}
