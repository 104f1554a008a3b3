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

/** Characters of everything a request sends that the model reads. */
export function requestChars(request: RequestShape): number {
  return request.system.length + JSON.stringify(request.tools).length + JSON.stringify(request.messages).length;
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
