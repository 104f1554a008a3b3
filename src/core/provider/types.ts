// The provider contract the agent loop depends on. A provider turns a neutral request into
// a streamed reply; it owns retries, idle watchdogs and wire-format translation.

import type { AssistantPart, Message, Usage } from '../messages.js';
import type { Effort } from './effort.js';

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the tool's parameters (an object schema). */
  input_schema: Record<string, unknown>;
}

export interface ModelRequest {
  /** The provider-local model id, e.g. `claude-sonnet-4-5`. */
  model: string;
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  maxTokens: number;
  signal: AbortSignal;
  /** Extended thinking budget; omitted = thinking off. */
  thinkingBudget?: number;
  /** How hard to think (an agent's `effort`), already fitted to this model by `effortOnWire`; omitted = the model's default. */
  effort?: Effort;
}

export type StreamEvent =
  | { type: 'text.delta'; text: string }
  | { type: 'thinking.delta'; text: string }
  | { type: 'tool_use.started'; id: string; name: string }
  /**
   * An attempt failed and the request is tried again after `delayMs`: discard partial output.
   * `attempt` is the attempt that failed; `summary` says why in a few words.
   */
  | { type: 'retrying'; attempt: number; maxAttempts: number; delayMs: number; reason: string; summary: string; midStream: boolean };

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'pause_turn' | (string & {});

export interface ModelResponse {
  content: AssistantPart[];
  stopReason: StopReason;
  usage: Usage;
  model: string;
}

export interface WebSearchRequest {
  model: string;
  query: string;
  allowedDomains?: string[] | undefined;
  blockedDomains?: string[] | undefined;
  signal: AbortSignal;
}

export interface WebSearchResult {
  /** The answer written from the results, citation markers [n] included. */
  text: string;
  /** Every page the answer cites or the search returned, numbered as the markers are. */
  sources: Array<{ url: string; title: string }>;
  /** Set when the search itself failed (the server tool's error code). */
  error?: string;
}

export interface Provider {
  readonly id: string;
  stream(request: ModelRequest, onEvent: (event: StreamEvent) => void): Promise<ModelResponse>;
  /** A web search run by the provider's own servers; absent where the provider has none. */
  webSearch?(request: WebSearchRequest): Promise<WebSearchResult>;
}

/** `anthropic/claude-sonnet-4-5` → { provider: 'anthropic', model: 'claude-sonnet-4-5' }. */
export interface ModelRef {
  provider: string;
  model: string;
}
