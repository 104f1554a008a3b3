// Request size estimates without a tokenizer (DESIGN §12). The last reply's reported input
// tokens measure the prefix exactly; what changed since is counted at 4 characters a token.
// Never below the plain chars/4 figure, so a server that reports nonsense usage cannot make
// an oversized request look small.
import type { Message } from '../messages.js';
import type { ToolSpec } from '../provider/types.js';

export const CHARS_PER_TOKEN = 4;

/** The measured size of the last request sent for a session. */
export interface SizeBasis {
  chars: number;
  tokens: number;
}

export interface RequestShape {
  system: string;
  tools: readonly ToolSpec[];
  messages: readonly Message[];
}

/** Characters of everything a request sends that the model reads; an image counts as the text its tokens would be. */
export function requestChars(request: RequestShape): number {
  return (
    request.system.length +
    toolsChars(request.tools) +
    JSON.stringify(request.messages).length +
    imageTokens(request.messages) * CHARS_PER_TOKEN
  );
}

/**
 * Each tool spec's JSON length, measured once per spec object. Specs are built once per
 * schema and shared, never changed (agent/loop.ts `toolSpecs`), while each request is measured
 * twice (before it is sent, and with the reply's usage): ten children with the same ~25 KB of
 * schemas would otherwise serialise them twenty times on the fan-out's path.
 */
const specChars = new WeakMap<ToolSpec, number>();

/** What `JSON.stringify(tools).length` gives: the brackets, the commas between, each spec. */
function toolsChars(tools: readonly ToolSpec[]): number {
  let chars = 2 + Math.max(0, tools.length - 1);
  for (const tool of tools) {
    let own = specChars.get(tool);
    if (own === undefined) {
      own = JSON.stringify(tool).length;
      specChars.set(tool, own);
    }
    chars += own;
  }
  return chars;
}

/** Anthropic's rule of thumb: width × height / 750 tokens, at most ~1600 once it scales the picture down. */
const MAX_IMAGE_TOKENS = 1600;

function imageTokens(messages: readonly Message[]): number {
  let tokens = 0;
  for (const message of messages) {
    for (const part of message.content) {
      const images = part.type === 'image' ? [part] : part.type === 'tool_result' ? (part.images ?? []) : [];
      for (const image of images) tokens += Math.min(MAX_IMAGE_TOKENS, Math.ceil((image.width * image.height) / 750));
    }
  }
  return tokens;
}

export function estimateTokens(request: RequestShape, basis?: SizeBasis): number {
  const chars = requestChars(request);
  const plain = Math.ceil(chars / CHARS_PER_TOKEN);
  if (!basis) return plain;
  return Math.max(plain, Math.ceil(basis.tokens + (chars - basis.chars) / CHARS_PER_TOKEN));
}

/** Characters → an estimated token count, for parts of a request. */
export function tokensOfChars(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}
