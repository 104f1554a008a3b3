// The Anthropic provider on the official SDK's streaming API. The SDK retries failures
// before a stream starts (429/5xx/529); failures after it started (a mid-stream
// `overloaded_error`, a stalled connection) are retried here with bounded backoff, and the
// caller is told to discard what it streamed so far.
import type Anthropic from '@anthropic-ai/sdk';
import { AbortedError, RunError, errorMessage } from '../errors.js';
import type { AssistantPart, Message, Part, Usage } from '../messages.js';
import { NO_CREDENTIALS_MESSAGE } from './credentials.js';
import type { ModelRequest, ModelResponse, Provider, StreamEvent, ToolSpec } from './types.js';

export interface AnthropicOptions {
  apiKey?: string | undefined;
  /** Bearer token (ANTHROPIC_AUTH_TOKEN), used only when there is no API key. */
  authToken?: string | undefined;
  baseURL?: string | undefined;
  /** SDK retries for failures before the stream starts. */
  maxRetries?: number | undefined;
  /** First backoff of our own mid-stream retries; doubles per attempt. */
  retryBaseDelayMs?: number | undefined;
  /** A stream silent for this long is abandoned and retried. */
  idleTimeoutMs?: number | undefined;
  /** Attempts in total for mid-stream failures (first try included). */
  maxStreamAttempts?: number | undefined;
}

const DEFAULT_IDLE_MS = 120_000;
const DEFAULT_RETRY_BASE_MS = 1_000;
const MAX_RETRY_DELAY_MS = 30_000;
const DEFAULT_STREAM_ATTEMPTS = 4;
const RETRYABLE_STREAM_ERRORS = new Set(['overloaded_error', 'api_error', 'rate_limit_error']);
const EPHEMERAL = { type: 'ephemeral' } as const;
const DEFAULT_BASE_URL = 'https://api.anthropic.com';

type SdkModule = typeof import('@anthropic-ai/sdk');
let sdk: Promise<SdkModule> | undefined;
/** The SDK is loaded on first use: commands that never call the model do not pay for it. */
function loadSdk(): Promise<SdkModule> {
  sdk ??= import('@anthropic-ai/sdk');
  return sdk;
}

export class AnthropicProvider implements Provider {
  readonly id = 'anthropic';
  private client: Anthropic | undefined;

  constructor(private readonly options: AnthropicOptions) {}

  private async getClient(): Promise<{ client: Anthropic; mod: SdkModule }> {
    const mod = await loadSdk();
    // Exactly one credential, always passed explicitly: the SDK refuses two, and one passed
    // in code stops it reading the environment for another behind our back.
    const { apiKey, authToken } = this.options;
    const credential = apiKey ? { apiKey } : authToken ? { authToken } : undefined;
    if (!credential) throw new RunError(NO_CREDENTIALS_MESSAGE);
    this.client ??= new mod.default({
      ...credential,
      ...(this.options.baseURL ? { baseURL: this.options.baseURL } : {}),
      maxRetries: this.options.maxRetries ?? 4,
    });
    return { client: this.client, mod };
  }

  async stream(request: ModelRequest, onEvent: (event: StreamEvent) => void): Promise<ModelResponse> {
    if (request.signal.aborted) throw new AbortedError();
    const { client, mod } = await this.getClient();
    const params = toWireParams(request);
    const idleMs = this.options.idleTimeoutMs ?? DEFAULT_IDLE_MS;
    const attempts = this.options.maxStreamAttempts ?? DEFAULT_STREAM_ATTEMPTS;
    for (let attempt = 1; ; attempt++) {
      // One controller per attempt: the watchdog must be able to kill a stalled attempt
      // without touching the caller's signal, and the caller's abort must reach the SDK.
      const controller = new AbortController();
      const forwardAbort = () => controller.abort();
      request.signal.addEventListener('abort', forwardAbort, { once: true });
      let stalled = false;
      let started = false;
      let consumerFailed = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          stalled = true;
          controller.abort();
        }, idleMs);
      };
      try {
        arm();
        const stream = client.messages.stream(params, { signal: controller.signal });
        for await (const event of stream) {
          started = true;
          arm();
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
        if (request.signal.aborted) throw new AbortedError();
        if (consumerFailed) throw err;
        const reason = stalled ? `no data from the API for ${formatDuration(idleMs)}` : retryReason(err, mod, started);
        if (!reason || attempt >= attempts) throw toRunError(err, mod, this.options.baseURL, stalled ? reason : undefined);
        const delayMs = backoff(attempt, this.options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_MS);
        onEvent({ type: 'retrying', attempt, delayMs, reason });
        await sleep(delayMs, request.signal);
      } finally {
        clearTimeout(timer);
        request.signal.removeEventListener('abort', forwardAbort);
      }
    }
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

/** Why a failed attempt is worth another, or undefined when it is not. */
function retryReason(err: unknown, mod: SdkModule, started: boolean): string | undefined {
  if (!(err instanceof mod.APIError)) return started ? `the stream broke: ${errorMessage(err)}` : undefined;
  if (err instanceof mod.APIUserAbortError) return undefined;
  // Before the stream started the SDK has already spent its own retries on these.
  if (err instanceof mod.APIConnectionError) return started ? `the connection dropped: ${err.message}` : undefined;
  if (err.status === undefined && err.type && RETRYABLE_STREAM_ERRORS.has(err.type)) return `${err.type} during the stream`;
  return undefined;
}

function toRunError(err: unknown, mod: SdkModule, baseURL: string | undefined, stallReason?: string): Error {
  if (stallReason) return new RunError(`Anthropic API stopped responding (${stallReason}); gave up after retrying.`);
  if (err instanceof RunError) return err;
  if (err instanceof mod.APIConnectionError) {
    return new RunError(`Cannot reach the Anthropic API at ${baseURL ?? DEFAULT_BASE_URL}: ${rootCause(err)}`);
  }
  if (err instanceof mod.APIError) {
    const status = err.status !== undefined ? ` ${err.status}` : '';
    const type = err.type ? ` (${err.type})` : '';
    return new RunError(`Anthropic API error${status}${type}: ${err.apiMessage ?? err.message}`);
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** The SDK wraps fetch's error, which wraps the socket's: only the innermost says what happened. */
function rootCause(err: Error): string {
  let current: Error = err;
  while (current.cause instanceof Error) current = current.cause;
  return current.message;
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/** Exponential with full jitter in the upper half, capped. */
function backoff(attempt: number, baseMs: number): number {
  const ceiling = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new AbortedError());
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
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
  // Caching the conversation prefix: mark the newest block that can carry a breakpoint.
  const last = wire[wire.length - 1];
  if (last && Array.isArray(last.content)) {
    for (let i = last.content.length - 1; i >= 0; i--) {
      const block = last.content[i]!;
      if (block.type === 'thinking' || block.type === 'redacted_thinking') continue;
      last.content[i] = { ...block, cache_control: EPHEMERAL } as Anthropic.ContentBlockParam;
      break;
    }
  }
  return wire;
}

function toWireBlock(part: Part): Anthropic.ContentBlockParam | undefined {
  switch (part.type) {
    case 'text':
      return part.text ? { type: 'text', text: part.text } : undefined;
    case 'thinking':
      return { type: 'thinking', thinking: part.thinking, signature: part.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: part.data };
    case 'tool_use':
      return { type: 'tool_use', id: part.id, name: part.name, input: part.input ?? {} };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: part.tool_use_id,
        content: part.content || '(no output)',
        ...(part.is_error ? { is_error: true } : {}),
      };
  }
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
