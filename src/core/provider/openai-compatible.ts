// The `openai-compatible` provider (DESIGN §13): any server speaking OpenAI's Chat
// Completions with streaming — OpenAI, Ollama, vLLM, LM Studio, OpenRouter — on the
// official `openai` SDK. Like the Anthropic provider, every retry is ours (the SDK gets
// maxRetries 0) and runs under the shared policy in retry.ts: one idle watchdog, one
// overall deadline, cancellable backoff waits, and a `retrying` event so the caller drops
// what a failed attempt streamed. Wire translation lives in openai-wire.ts.
import type OpenAI from 'openai';
import { AbortedError, RunError } from '../errors.js';
import { connectionSummary, retryAfter, rootCause, statusSummary } from './http-failure.js';
import { ReplyAssembler, toWireMessages, toWireTools } from './openai-wire.js';
import { AttemptFailed, retryPolicyOf, withRetries, type Failure } from './retry.js';
import { sdkLogLevel } from './sdk-log.js';
import type { ModelRequest, ModelResponse, Provider, StreamEvent } from './types.js';

export interface OpenAICompatibleOptions {
  /** The provider's name in `provider/model` refs, e.g. `ollama`. */
  name: string;
  /** `--debug`: let the SDK log its own warnings; see sdk-log.ts. */
  debug?: boolean | undefined;
  baseURL: string;
  /** Absent for servers that need no key (local ones). */
  apiKey?: string | undefined;
  /** When set, a missing key fails the request with this sentence instead of being sent keyless. */
  missingKeyMessage?: string | undefined;
  headers?: Readonly<Record<string, string>> | undefined;
  /** Said after "Cannot reach …" when nothing listens at `baseURL`. */
  unreachableHint?: string | undefined;
  maxTokensParam?: 'max_tokens' | 'max_completion_tokens' | undefined;
  /** `models.<id>.limit.output`: a request never asks a model for more than it can give. */
  outputLimits?: Readonly<Record<string, number>> | undefined;
  maxRetries?: number | undefined;
  retryBaseDelayMs?: number | undefined;
  idleTimeoutMs?: number | undefined;
  requestTimeoutMs?: number | undefined;
}

type SdkModule = typeof import('openai');
let sdk: Promise<SdkModule> | undefined;
/** Loaded on first use: sessions that never touch this provider do not pay for the SDK. */
function loadSdk(): Promise<SdkModule> {
  sdk ??= import('openai');
  return sdk;
}

/** Socket-level codes of a connection the other side dropped, rather than one never made. */
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
/**
 * How servers say a model cannot call tools: Ollama ("… does not support tools"), vLLM
 * ("auto" tool choice requires --enable-auto-tool-choice …), llama.cpp ("tools param requires
 * --jinja flag"). Narrow on purpose: a 400 about a malformed tool message is something else.
 */
const NO_TOOLS = /not support\S*\s+(tools?|tool.calls?|function.call\S*)\b|\btools?\b.{0,40}\b(not supported|unsupported)|tool.choice requires|tools param requires/i;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '0.0.0.0']);

export class OpenAICompatibleProvider implements Provider {
  readonly id: string;
  private readonly service: string;
  private client: OpenAI | undefined;

  constructor(private readonly options: OpenAICompatibleOptions) {
    this.id = options.name;
    this.service = options.name === 'openai' ? 'OpenAI API' : `OpenAI-compatible server "${options.name}"`;
  }

  private async getClient(): Promise<{ client: OpenAI; mod: SdkModule }> {
    const mod = await loadSdk();
    if (!this.options.apiKey && this.options.missingKeyMessage) throw new RunError(this.options.missingKeyMessage);
    const { apiKey, headers } = this.options;
    // Everything passed explicitly: the SDK would otherwise read OPENAI_API_KEY, OPENAI_ORG_ID
    // and friends from the environment and send them to whatever server this provider points
    // at. A keyless server gets a placeholder key (the SDK insists on one) whose header is
    // then removed, so no Authorization header is sent at all.
    this.client ??= new mod.default({
      apiKey: apiKey || 'none',
      adminAPIKey: null,
      organization: null,
      project: null,
      baseURL: this.options.baseURL,
      defaultHeaders: { ...(apiKey ? {} : { Authorization: null }), ...headers },
      maxRetries: 0,
      // Its logger warns about settings on its own; only `--debug` shows that (see sdk-log.ts).
      logLevel: sdkLogLevel(this.options.debug),
    });
    return { client: this.client, mod };
  }

  async stream(request: ModelRequest, onEvent: (event: StreamEvent) => void): Promise<ModelResponse> {
    if (request.signal.aborted) throw new AbortedError();
    const { client, mod } = await this.getClient();
    const tools = toWireTools(request.tools);
    const params: OpenAI.Chat.ChatCompletionCreateParamsStreaming = {
      model: request.model,
      messages: toWireMessages(request.system, request.messages),
      stream: true,
      stream_options: { include_usage: true },
      // Servers such as vLLM refuse a request whose cap exceeds what the model can produce.
      [this.options.maxTokensParam ?? 'max_tokens']: Math.min(request.maxTokens, this.options.outputLimits?.[request.model] ?? Infinity),
      ...(tools.length ? { tools } : {}),
      ...(request.effort ? { reasoning_effort: request.effort } : {}),
    };
    return withRetries({
      policy: retryPolicyOf(this.options),
      signal: request.signal,
      service: this.service,
      deadlineKey: `provider.${this.options.name}.requestTimeoutMs`,
      onRetry: (info) => onEvent({ type: 'retrying', ...info }),
      attempt: async ({ signal, data }) => {
        let started = false;
        let consumerFailed = false;
        const reply = new ReplyAssembler((event) => {
          try {
            onEvent(event);
          } catch (err) {
            // A bug in the consumer is not a network failure: replaying would repeat it.
            consumerFailed = true;
            throw err;
          }
        });
        try {
          const stream = await client.chat.completions.create(params, { signal });
          for await (const chunk of stream) {
            started = true;
            data();
            reply.push(chunk);
          }
          // The SDK ends the iteration quietly when its request is aborted (by the caller or
          // the watchdog); either way this attempt has no reply.
          if (signal.aborted) throw new AbortedError();
          if (!reply.finished) {
            throw new AttemptFailed({
              message: `The ${this.service} at ${this.options.baseURL} ended the reply before it was complete`,
              retryable: true,
              summary: 'reply cut short',
            });
          }
          return reply.finish(request.model);
        } catch (err) {
          if (consumerFailed || signal.aborted || err instanceof AttemptFailed) throw err;
          const failure = this.classify(err, mod, request.model, started);
          throw failure ? new AttemptFailed(failure) : err;
        }
      },
    });
  }

  /** What a failed attempt was, in one sentence; undefined for errors not about the server. */
  private classify(err: unknown, mod: SdkModule, model: string, started: boolean): Failure | undefined {
    if (err instanceof mod.APIConnectionError) return this.connectionFailure(err, started);
    if (err instanceof mod.APIError) {
      const text = serverMessage(err);
      if (err.status === undefined) {
        // An error object inside a stream that had started: the SDK gives it no status.
        return { message: `${this.service} error: ${text}`, retryable: true, summary: 'stream error' };
      }
      const status = err.status;
      if (status === 400 && NO_TOOLS.test(text)) {
        return {
          message: `The model "${model}" on ${this.service} does not support tool calls (the server said: ${text}); pick a model with tool support.`,
          retryable: false,
        };
      }
      if (status === 401 || status === 403) {
        return { message: `${this.service} refused the API key (${status}): ${text}`, retryable: false };
      }
      if (status === 404) {
        return { message: `${this.service} has no model "${model}" (404): ${text}`, retryable: false };
      }
      return {
        message: `${this.service} error ${status}: ${text}`,
        retryable: shouldRetry(err),
        retryAfterMs: retryAfter(err.headers),
        summary: statusSummary(status),
      };
    }
    // The body of a started stream broke outside the SDK's wrapping (undici's "terminated").
    if (started && err instanceof Error) return this.connectionFailure(err, true);
    return undefined;
  }

  private connectionFailure(err: Error, started: boolean): Failure {
    const { message, code } = rootCause(err);
    const { baseURL } = this.options;
    const reset = (code !== undefined && RESET_CODES.has(code)) || /socket hang up|other side closed/i.test(message);
    const where = `The connection to the ${this.service} at ${baseURL}`;
    const summary = connectionSummary(code, reset, started);
    if (started) return { message: `${where} ${reset ? 'was reset' : 'broke'} mid-response: ${message}`, retryable: true, summary };
    if (reset) return { message: `${where} was reset: ${message}`, retryable: true, summary };
    const hint = this.options.unreachableHint ?? 'is the server running?';
    // Nothing listening on this machine will not start listening within a few backoff
    // waits: say so at once rather than after a minute of retries.
    const refusedLocally = code === 'ECONNREFUSED' && isLoopback(baseURL);
    return { message: `Cannot reach the ${this.service} at ${baseURL} — ${hint} (${message})`, retryable: !refusedLocally, summary };
  }
}

function isLoopback(url: string): boolean {
  try {
    return LOOPBACK.has(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** The server's own words: OpenAI's `{error: {message}}`, Ollama's and vLLM's variants. */
function serverMessage(err: InstanceType<SdkModule['APIError']>): string {
  const body = err.error as { message?: unknown } | undefined;
  if (body && typeof body.message === 'string' && body.message) return body.message;
  return err.message.replace(/^\d{3}\s+/, '') || 'no details';
}

/** The SDK's own rule: the server's x-should-retry, else timeouts, conflicts, rate limits, 5xx. */
function shouldRetry(err: InstanceType<SdkModule['APIError']>): boolean {
  const header = err.headers?.get('x-should-retry');
  if (header === 'true') return true;
  if (header === 'false') return false;
  const status = err.status ?? 0;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}
