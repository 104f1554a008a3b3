// The Anthropic provider on the official SDK's streaming API. Every retry is ours, not the
// SDK's (it gets maxRetries 0): then one policy (retry.ts) sees each attempt, so the idle
// watchdog times only the network, backoff waits can be cancelled and count against the
// overall deadline, and each failure is reported as what it was. A retried stream tells
// the caller to discard what it streamed so far.
import type Anthropic from '@anthropic-ai/sdk';
import type { MessagesClient } from './anthropic-sdk.js';
import { AbortedError, RunError } from '../errors.js';
import type { AssistantPart, ImagePart, Message, Part, Usage } from '../messages.js';
import { imageLabel } from '../images/label.js';
import { quietSdkCall, sdkLogLevel } from './sdk-log.js';
import { NO_CREDENTIALS_MESSAGE } from './credentials.js';
import { AttemptFailed, retryPolicyOf, withRetries, type Failure } from './retry.js';
import { webSearchParams, webSearchResult } from './anthropic-websearch.js';
import type { ModelRequest, ModelResponse, Provider, StreamEvent, ToolSpec, WebSearchRequest, WebSearchResult } from './types.js';
import { connectionSummary, retryAfter, rootCause, statusSummary } from './http-failure.js';

export interface AnthropicOptions {
  apiKey?: string | undefined;
  /** Bearer token (ANTHROPIC_AUTH_TOKEN), used only when there is no API key. */
  authToken?: string | undefined;
  baseURL?: string | undefined;
  /** Retries of a failed request (HTTP 408/409/429/5xx, dropped connections, stalls). */
  maxRetries?: number | undefined;
  /** First backoff between retries; doubles per retry. */
  retryBaseDelayMs?: number | undefined;
  /** A request silent for this long (before or during its stream) is abandoned and retried. */
  idleTimeoutMs?: number | undefined;
  /** Time without data a request may spend across all its retries before it fails. */
  requestTimeoutMs?: number | undefined;
  /** `--debug`: let the SDK print its own warnings (deprecated models, settings); see sdk-log.ts. */
  debug?: boolean | undefined;
}

const RETRYABLE_STREAM_ERRORS = new Set(['overloaded_error', 'api_error', 'rate_limit_error']);
const EPHEMERAL = { type: 'ephemeral' } as const;
const DEFAULT_BASE_URL = 'https://api.anthropic.com';
const SERVICE = 'Anthropic API';
/** Socket-level codes of a connection the other side dropped, rather than one never made. */
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

type SdkModule = typeof import('./anthropic-sdk.js');
let sdk: Promise<SdkModule> | undefined;
/** The SDK is loaded on first use: commands that never call the model do not pay for it. */
function loadSdk(): Promise<SdkModule> {
  sdk ??= import('./anthropic-sdk.js');
  return sdk;
}

export class AnthropicProvider implements Provider {
  readonly id = 'anthropic';
  private client: MessagesClient | undefined;

  constructor(private readonly options: AnthropicOptions) {}

  private async getClient(): Promise<{ client: MessagesClient; mod: SdkModule }> {
    const mod = await loadSdk();
    // Exactly one credential, always passed explicitly: the SDK refuses two, and one passed
    // in code stops it reading the environment for another behind our back.
    const { apiKey, authToken } = this.options;
    const credential = apiKey ? { apiKey } : authToken ? { authToken } : undefined;
    if (!credential) throw new RunError(NO_CREDENTIALS_MESSAGE);
    this.client ??= new mod.MessagesClient({
      ...credential,
      ...(this.options.baseURL ? { baseURL: this.options.baseURL } : {}),
      maxRetries: 0,
      logLevel: sdkLogLevel(this.options.debug),
    });
    return { client: this.client, mod };
  }

  async stream(request: ModelRequest, onEvent: (event: StreamEvent) => void): Promise<ModelResponse> {
    if (request.signal.aborted) throw new AbortedError();
    const { client, mod } = await this.getClient();
    const params = toWireParams(request);
    const baseURL = this.options.baseURL || DEFAULT_BASE_URL;
    return withRetries({
      policy: retryPolicyOf(this.options),
      signal: request.signal,
      service: SERVICE,
      deadlineKey: 'provider.anthropic.requestTimeoutMs',
      onRetry: (info) => onEvent({ type: 'retrying', ...info }),
      attempt: async ({ signal, data }) => {
        let started = false;
        let consumerFailed = false;
        try {
          const stream = quietSdkCall(this.options.debug, () => client.messages.stream(params, { signal }));
          for await (const event of stream) {
            started = true;
            data();
            try {
              forward(event, onEvent);
            } catch (err) {
              // A bug in the consumer is not a network failure: replaying the stream would
              // only repeat it.
              consumerFailed = true;
              throw err;
            }
          }
          return toResponse(await stream.finalMessage());
        } catch (err) {
          if (consumerFailed || signal.aborted) throw err;
          const failure = classify(err, mod, baseURL, started);
          throw failure ? new AttemptFailed(failure) : err;
        }
      },
    });
  }

  /** Anthropic's server-side web search, in a request of its own (anthropic-websearch.ts). */
  async webSearch(request: WebSearchRequest): Promise<WebSearchResult> {
    if (request.signal.aborted) throw new AbortedError();
    const { client } = await this.getClient();
    const stream = client.messages.stream(webSearchParams(request), { signal: request.signal });
    return webSearchResult(await stream.finalMessage());
  }
}

function forward(event: Anthropic.MessageStreamEvent, onEvent: (event: StreamEvent) => void): void {
  if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
    onEvent({ type: 'tool_use.started', id: event.content_block.id, name: event.content_block.name });
  } else if (event.type === 'content_block_delta') {
    if (event.delta.type === 'text_delta') onEvent({ type: 'text.delta', text: event.delta.text });
    else if (event.delta.type === 'thinking_delta') onEvent({ type: 'thinking.delta', text: event.delta.thinking });
  }
}

/**
 * What a failed attempt was, in one sentence, and whether another attempt may help. Undefined
 * for errors that are not about the API or the network: those are rethrown as they are.
 */
function classify(err: unknown, mod: SdkModule, baseURL: string, started: boolean): Failure | undefined {
  if (err instanceof mod.APIConnectionError) return connectionFailure(err, baseURL, started);
  if (err instanceof mod.APIError) {
    const type = err.type ? ` (${err.type})` : '';
    const text = err.apiMessage ?? err.message;
    if (err.status === undefined) {
      // An `error` event inside a stream that had started: the SDK gives it no status.
      return {
        message: `${SERVICE} error${type}: ${text}`,
        retryable: Boolean(err.type && RETRYABLE_STREAM_ERRORS.has(err.type)),
        summary: err.type === 'overloaded_error' ? 'overloaded' : (err.type ?? 'stream error'),
      };
    }
    return {
      message: `${SERVICE} error ${err.status}${type}: ${text}`,
      retryable: shouldRetry(err),
      retryAfterMs: retryAfter(err.headers),
      summary: statusSummary(err.status, err.type),
    };
  }
  // The body of a started stream broke outside the SDK's wrapping (undici's "terminated").
  if (started && err instanceof Error) return connectionFailure(err, baseURL, true);
  return undefined;
}

function connectionFailure(err: Error, baseURL: string, started: boolean): Failure {
  const { message, code } = rootCause(err);
  const reset = (code !== undefined && RESET_CODES.has(code)) || /socket hang up|other side closed/i.test(message);
  const where = `The connection to the ${SERVICE} at ${baseURL}`;
  const summary = connectionSummary(code, reset, started);
  if (started) return { message: `${where} ${reset ? 'was reset' : 'broke'} mid-response: ${message}`, retryable: true, summary };
  if (reset) return { message: `${where} was reset: ${message}`, retryable: true, summary };
  return { message: `Cannot reach the ${SERVICE} at ${baseURL}: ${message}`, retryable: true, summary };
}

/** The SDK's own rule: the server's x-should-retry, else timeouts, conflicts, rate limits, 5xx. */
function shouldRetry(err: InstanceType<SdkModule['APIError']>): boolean {
  const header = err.headers?.get('x-should-retry');
  if (header === 'true') return true;
  if (header === 'false') return false;
  const status = err.status ?? 0;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

// ---- neutral ↔ wire ----

export function toWireParams(request: ModelRequest): Anthropic.MessageCreateParamsNonStreaming {
  const tools = request.tools.map((t, i, all) => toWireTool(t, i === all.length - 1));
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    // The API rejects an empty text block, so an empty prompt means no system at all.
    ...(request.system ? { system: [{ type: 'text', text: request.system, cache_control: EPHEMERAL }] } : {}),
    messages: toWireMessages(request.messages),
    ...(tools.length ? { tools } : {}),
    ...(request.thinkingBudget ? { thinking: { type: 'enabled', budget_tokens: request.thinkingBudget } } : {}),
    ...(request.effort ? { output_config: { effort: request.effort } } : {}),
  };
}

function toWireTool(tool: ToolSpec, last: boolean): Anthropic.Tool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: tool.input_schema as Anthropic.Tool.InputSchema,
    ...(last ? { cache_control: EPHEMERAL } : {}),
  };
}

function toWireMessages(messages: Message[]): Anthropic.MessageParam[] {
  const wire = messages.map((m): Anthropic.MessageParam => {
    const content = m.content.map(toWireBlock).filter((b): b is Anthropic.ContentBlockParam => b !== undefined);
    // The API rejects empty messages; an interrupted reply can leave one behind.
    if (content.length === 0) content.push({ type: 'text', text: m.role === 'assistant' ? '(no output)' : '(empty)' });
    return { role: m.role, content };
  });
  // Caching the conversation prefix: the newest message, and the user message the previous
  // request ended with — where that request wrote its cache entry, so this one reads it
  // however many blocks were added since (the API looks back only 20 blocks from a
  // breakpoint). With the system prompt and the tools that is the API's limit of four.
  markForCache(wire[wire.length - 1]);
  for (let i = wire.length - 2; i >= 0; i--) {
    if (wire[i]!.role !== 'user') continue;
    markForCache(wire[i]);
    break;
  }
  return wire;
}

/** Puts a cache breakpoint on the newest block of a message that can carry one. */
function markForCache(message: Anthropic.MessageParam | undefined): void {
  if (!message || !Array.isArray(message.content)) return;
  for (let i = message.content.length - 1; i >= 0; i--) {
    const block = message.content[i]!;
    if (block.type === 'thinking' || block.type === 'redacted_thinking') continue;
    message.content[i] = { ...block, cache_control: EPHEMERAL } as Anthropic.ContentBlockParam;
    return;
  }
}

function toWireBlock(part: Part): Anthropic.ContentBlockParam | undefined {
  switch (part.type) {
    case 'text':
      return part.text ? { type: 'text', text: part.text } : undefined;
    case 'thinking':
      // Reasoning from another provider has no signature, and the API rejects it unsigned.
      return part.signature ? { type: 'thinking', thinking: part.thinking, signature: part.signature } : undefined;
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: part.data };
    case 'tool_use':
      return { type: 'tool_use', id: part.id, name: part.name, input: part.input ?? {} };
    case 'tool_result': {
      const text = part.content || '(no output)';
      const images = (part.images ?? []).map(toWireImage);
      return {
        type: 'tool_result',
        tool_use_id: part.tool_use_id,
        // Pictures travel inside the result itself (DESIGN §22), after its text.
        content: images.length ? [{ type: 'text', text }, ...images] : text,
        ...(part.is_error ? { is_error: true } : {}),
      };
    }
    case 'image':
      return toWireImage(part);
  }
}

/** An image with its bytes as a base64 block; one without them (never resolved) as its label. */
function toWireImage(image: ImagePart): Anthropic.ImageBlockParam | Anthropic.TextBlockParam {
  if (!image.data) return { type: 'text', text: imageLabel(image, 'not available') };
  return { type: 'image', source: { type: 'base64', media_type: image.media_type, data: image.data } };
}

function toResponse(message: Anthropic.Message): ModelResponse {
  const content: AssistantPart[] = [];
  for (const block of message.content) {
    if (block.type === 'text') content.push({ type: 'text', text: block.text });
    else if (block.type === 'thinking') content.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
    else if (block.type === 'redacted_thinking') content.push({ type: 'redacted_thinking', data: block.data });
    else if (block.type === 'tool_use') content.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
  }
  const u = message.usage;
  const usage: Usage = {
    input_tokens: u.input_tokens ?? 0,
    output_tokens: u.output_tokens ?? 0,
    cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
  };
  return { content, stopReason: message.stop_reason ?? 'end_turn', usage, model: message.model };
}
