// Neutral messages ↔ OpenAI Chat Completions wire format, and the assembly of a streamed
// reply from its chunks. Pure functions: no network, no SDK instance.
//
// - The system prompt becomes a `system` message; assistant tool calls become `tool_calls`;
//   each tool result becomes its own `role: "tool"` message carrying the call's id, before
//   any text of the same user message (the API wants results right after the calls).
// - `role: "tool"` takes text only, so a tool result's images are named in it ("[image
//   shot.png 64×64 attached below]") and sent as `image_url` parts (data URLs) in the user
//   message that follows the results, with the user's own text and pictures.
// - Thinking parts are not sent back: these servers have no field for them.
// - Tool call ids from the server are kept when they are usable and replaced otherwise
//   (missing, duplicated, odd characters): the neutral id is what goes back in both the
//   assistant's `tool_calls` and the `tool` message, so the pair always matches, and it is
//   also a valid Anthropic id should the session later switch providers.
import type { ChatCompletionChunk, ChatCompletionContentPart, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { AssistantPart, ImagePart, Message, Usage } from '../messages.js';
import { imageLabel } from '../images/label.js';
import type { StopReason, StreamEvent, ToolSpec } from './types.js';

export function toWireMessages(system: string, messages: readonly Message[]): ChatCompletionMessageParam[] {
  const wire: ChatCompletionMessageParam[] = system ? [{ role: 'system', content: system }] : [];
  for (const message of messages) {
    if (message.role === 'assistant') {
      const text = message.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
      const calls = message.content.flatMap((p) =>
        p.type === 'tool_use'
          ? [{ id: p.id, type: 'function' as const, function: { name: p.name, arguments: JSON.stringify(p.input ?? {}) } }]
          : [],
      );
      if (calls.length) wire.push({ role: 'assistant', content: text || null, tool_calls: calls });
      // An interrupted reply can leave an empty message; servers reject those.
      else wire.push({ role: 'assistant', content: text || '(no output)' });
      continue;
    }
    const texts: string[] = [];
    const pictures: ChatCompletionContentPart[] = [];
    /** A picture goes in the user message, named by a text part just before it. */
    const attach = (image: ImagePart): boolean => {
      if (!image.data) return false;
      pictures.push({ type: 'text', text: imageLabel(image) }, { type: 'image_url', image_url: { url: `data:${image.media_type};base64,${image.data}` } });
      return true;
    };
    for (const part of message.content) {
      if (part.type === 'tool_result') {
        // `role: "tool"` takes text only: its pictures follow in a user message (DESIGN §22).
        const notes = (part.images ?? []).map((image) => imageLabel(image, attach(image) ? 'attached below' : 'not available'));
        const content = [part.content || (notes.length ? '' : '(no output)'), ...notes].filter(Boolean).join('\n');
        wire.push({ role: 'tool', tool_call_id: part.tool_use_id, content: part.is_error ? `Error: ${content}` : content });
      } else if (part.type === 'text' && part.text) {
        texts.push(part.text);
      } else if (part.type === 'image' && !attach(part)) {
        texts.push(imageLabel(part, 'not available'));
      }
    }
    const hadResults = message.content.some((p) => p.type === 'tool_result');
    if (pictures.length) {
      const text: ChatCompletionContentPart[] = texts.length ? [{ type: 'text', text: texts.join('\n\n') }] : [];
      wire.push({ role: 'user', content: [...text, ...pictures] });
    } else if (texts.length) wire.push({ role: 'user', content: texts.join('\n\n') });
    else if (!hadResults) wire.push({ role: 'user', content: '(empty)' });
  }
  return wire;
}

// Keywords strict function-calling validators (OpenAI's, and llama.cpp's grammar builder)
// reject or choke on; they only document, so dropping them changes nothing the model needs.
const DROPPED_KEYWORDS = new Set(['$schema', '$id', '$comment', 'examples']);

export function toWireTools(tools: readonly ToolSpec[]): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: toWireSchema(tool.input_schema) },
  }));
}

/** A tool's JSON Schema as function calling accepts it: an object with `properties` at the top. */
export function toWireSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const cleaned = clean(schema);
  const top = isRecord(cleaned) ? cleaned : {};
  return { ...top, type: 'object', properties: isRecord(top.properties) ? top.properties : {} };
}

function clean(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clean);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (DROPPED_KEYWORDS.has(key)) continue;
    // `properties` maps names to schemas: a property may well be called "examples".
    out[key] = key === 'properties' && isRecord(item) ? Object.fromEntries(Object.entries(item).map(([k, v]) => [k, clean(v)])) : clean(item);
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const FINISH_REASONS: Readonly<Record<string, StopReason>> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

const USABLE_ID = /^[A-Za-z0-9_-]{1,64}$/;

interface PendingCall {
  id: string;
  name: string;
  args: string;
  announced: boolean;
}

/** Collects one streamed reply; `push` each chunk, then `finish` once the stream ends. */
export class ReplyAssembler {
  private text = '';
  private thinking = '';
  private readonly calls = new Map<number, PendingCall>();
  private readonly ids = new Set<string>();
  private finishReason: string | undefined;
  private usage: Usage | undefined;
  private model: string | undefined;
  private generated = 0;

  constructor(private readonly onEvent: (event: StreamEvent) => void) {}

  /** Whether the server said the reply is over (a finish reason): without one it was cut off. */
  get finished(): boolean {
    return this.finishReason !== undefined;
  }

  push(chunk: ChatCompletionChunk): void {
    if (chunk.model) this.model = chunk.model;
    if (chunk.usage) this.usage = toUsage(chunk.usage);
    for (const choice of chunk.choices ?? []) {
      if (choice.index !== 0) continue;
      const delta = choice.delta ?? {};
      const reasoning = reasoningOf(delta);
      if (reasoning) {
        this.thinking += reasoning;
        this.onEvent({ type: 'thinking.delta', text: reasoning });
      }
      if (typeof delta.content === 'string' && delta.content) {
        this.text += delta.content;
        this.onEvent({ type: 'text.delta', text: delta.content });
      }
      for (const piece of delta.tool_calls ?? []) {
        let call = this.calls.get(piece.index);
        if (!call) {
          call = { id: this.idFor(piece.id), name: '', args: '', announced: false };
          this.calls.set(piece.index, call);
        }
        if (piece.function?.name) call.name += piece.function.name;
        if (piece.function?.arguments) call.args += piece.function.arguments;
        if (!call.announced && call.name) {
          call.announced = true;
          this.onEvent({ type: 'tool_use.started', id: call.id, name: call.name });
        }
      }
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
  }

  finish(requestedModel: string): { content: AssistantPart[]; stopReason: StopReason; usage: Usage; model: string } {
    const content: AssistantPart[] = [];
    // Kept for the transcript; never sent back (see toWireMessages). An empty signature marks
    // it as not Anthropic's.
    if (this.thinking) content.push({ type: 'thinking', thinking: this.thinking, signature: '' });
    if (this.text) content.push({ type: 'text', text: this.text });
    const calls = [...this.calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    for (const call of calls) {
      if (!call.name) continue;
      content.push({ type: 'tool_use', id: call.id, name: call.name, input: parseArguments(call.args) });
    }
    let stopReason: StopReason = this.finishReason ? (FINISH_REASONS[this.finishReason] ?? this.finishReason) : 'end_turn';
    // Some servers (Ollama among them) say `stop` even when the reply is tool calls.
    if (stopReason === 'end_turn' && content.some((p) => p.type === 'tool_use')) stopReason = 'tool_use';
    return {
      content,
      stopReason,
      usage: this.usage ?? { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      model: this.model ?? requestedModel,
    };
  }

  private idFor(serverId: string | undefined): string {
    let id = serverId && USABLE_ID.test(serverId) && !this.ids.has(serverId) ? serverId : undefined;
    while (id === undefined || this.ids.has(id)) id = `call_${Date.now().toString(36)}${(this.generated++).toString(36)}`;
    this.ids.add(id);
    return id;
  }
}

/** `reasoning_content` (DeepSeek, vLLM, LM Studio) or `reasoning` (OpenRouter, Ollama). */
function reasoningOf(delta: object): string | undefined {
  const fields = delta as { reasoning_content?: unknown; reasoning?: unknown };
  const value = fields.reasoning_content ?? fields.reasoning;
  return typeof value === 'string' && value ? value : undefined;
}

/**
 * The call's arguments as an object: `{}` when empty. Text that is not a JSON object (a
 * model that wrote prose) is kept under `_raw_arguments`, so the tool's input validation
 * rejects it with an error result the model can read. (A call cut off by the length limit
 * never runs: the loop checks the `max_tokens` stop reason first.)
 */
function parseArguments(args: string): unknown {
  if (!args.trim()) return {};
  try {
    const parsed: unknown = JSON.parse(args);
    return isRecord(parsed) ? parsed : { _raw_arguments: args };
  } catch {
    return { _raw_arguments: args };
  }
}

function toUsage(u: NonNullable<ChatCompletionChunk['usage']>): Usage {
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    input_tokens: Math.max(0, (u.prompt_tokens ?? 0) - cached),
    output_tokens: u.completion_tokens ?? 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}
