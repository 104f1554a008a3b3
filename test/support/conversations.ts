// Scripts the fake server per conversation instead of per request: parallel sub-agents hit
// the server in no fixed order, so each session's replies are keyed by the first user
// message it sent (its prompt), which tests make unique.
import type { FakeServer, RecordedRequest, ScriptedBlock, ScriptedReply } from './fake-anthropic.js';

export type ReplyScript = ScriptedReply | ((req: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>);

export function firstUserText(req: RecordedRequest): string {
  const first = req.body.messages[0];
  if (!first) return '';
  if (typeof first.content === 'string') return first.content;
  const parts = first.content as Array<{ type: string; text?: string }>;
  return parts
    .filter((p) => p.type === 'text')
    .map((p) => p.text ?? '')
    .join('');
}

/** Each key is a session's prompt; its replies are served in order to that session's requests. */
export function scriptConversations(server: FakeServer, scripts: Record<string, ReplyScript[]>): void {
  const queues = new Map(Object.entries(scripts).map(([k, v]) => [k, [...v]]));
  server.setHandler(async (req) => {
    const key = firstUserText(req);
    const queue = queues.get(key);
    const next = queue?.shift();
    if (!next) {
      return { type: 'http_error', status: 400, errorType: 'invalid_request_error', message: `no scripted reply for conversation "${key.slice(0, 60)}"` };
    }
    return typeof next === 'function' ? next(req) : next;
  });
}

/** Requests of one conversation, in arrival order. */
export function requestsOf(server: FakeServer, prompt: string): RecordedRequest[] {
  return server.requests.filter((r) => firstUserText(r) === prompt);
}

/** The largest number of requests that were in flight at the same time among `requests`. */
export function maxOverlap(requests: readonly RecordedRequest[]): number {
  const edges = requests.flatMap((r) => [
    { t: r.receivedAt, d: 1 },
    { t: r.finishedAt ?? Number.POSITIVE_INFINITY, d: -1 },
  ]);
  edges.sort((a, b) => a.t - b.t || a.d - b.d);
  let current = 0;
  let max = 0;
  for (const e of edges) {
    current += e.d;
    max = Math.max(max, current);
  }
  return max;
}

/** A reply held back until the test calls `open()`: a sub-agent that is still working while the test acts. */
export function held(answer: ScriptedReply): { reply: () => Promise<ScriptedReply>; open: () => void } {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { reply: async () => (await opened, answer), open };
}

let callSeq = 0;

/** A scripted tool call with an id unique in the process. */
export function toolUse(name: string, input: Record<string, unknown>): ScriptedBlock {
  return { type: 'tool_use', name, input, id: `toolu_${name}_${++callSeq}` };
}

/** A `task` call for a `general` sub-agent; its prompt (unique per test) keys its conversation. */
export function taskUse(prompt: string): ScriptedBlock {
  return toolUse('task', { description: prompt.slice(0, 20), prompt, subagent_type: 'general' });
}
