// Encodes a scripted assistant reply as the Messages API streaming protocol (SSE), exactly
// as the real API frames it, so the demo exercises the same SDK path as a live session.

export type DemoBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

export interface DemoReply {
  content: DemoBlock[];
  /** Pause between streamed events, so the demo visibly streams. */
  chunkDelayMs?: number;
  /** Pause before the response starts (a model "thinking"). */
  delayMs?: number;
}

export interface SseEvent {
  event: string;
  /** Any JSON value; the Messages API always sends an object with a `type`. */
  data: unknown;
}

/** Splits text into small pieces the way a model streams tokens. */
function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}

export function replyEvents(reply: DemoReply, model: string, inputTokens: number): SseEvent[] {
  const events: SseEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: `msg_demo_${Math.random().toString(36).slice(2, 10)}`,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: inputTokens, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
      },
    },
  ];
  let outputTokens = 0;
  reply.content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } });
      for (const piece of pieces(block.text, 12)) {
        events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } } });
      }
      outputTokens += Math.ceil(block.text.length / 4);
    } else {
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } },
      });
      const json = JSON.stringify(block.input);
      for (const piece of pieces(json, 40)) {
        events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } } });
      }
      outputTokens += Math.ceil(json.length / 4) + 10;
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  const stopReason = reply.content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  events.push({
    event: 'message_delta',
    data: { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}

/** One SSE frame, framed as the Messages API frames it; the test fake server uses it too. */
export function encodeEvent(e: SseEvent): string {
  return `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}
